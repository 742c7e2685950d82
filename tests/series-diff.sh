#!/bin/bash
# series-diff.sh - the series tests pass on stock and on patched, and the
# only tests stock skips are those about what the series adds.
# Usage: tests/series-diff.sh VMDIR (holding series-stock/ and series-patched/)
set -eu
/usr/bin/python3 - "$1/series-stock/output" "$1/series-patched/output" <<'PY'
import re, sys

def tap(path):
    """{test: (ok|not ok|skip, rest of line)} from kselftest_harness TAP,
    where a skip line carries the reason but not the name: the name comes
    from the "#  RUN" line before it."""
    res, current = {}, None
    for line in open(path, errors="replace"):
        line = line.strip()
        m = re.match(r"#\s+RUN\s+(\S+)", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"(ok|not ok) \d+ (.*)", line)
        if m and current:
            skip = m.group(2).startswith("# SKIP")
            res[current] = ("skip" if skip else m.group(1), m.group(2))
            current = None
    return res

stock, patched = tap(sys.argv[1]), tap(sys.argv[2])
bad = 0
if not stock or not patched:
    print("no TAP results"); sys.exit(1)
if set(stock) != set(patched):
    print("different test lists:", set(stock) ^ set(patched)); bad = 1
for name in sorted(patched):
    s, p = stock.get(name, ("missing", ""))[0], patched[name][0]
    mark = "" if s == p else "   <- differs"
    print(f"{name:60} stock={s:5} patched={p:5}{mark}")
    if p == "not ok" or s == "not ok":
        bad = 1
    # stock may skip only what the series adds (its events, the NULL name)
    if s == "skip" and p != "skip" and "stock 6.1" not in stock[name][1]:
        bad = 1
    if p == "skip" and "not mounted" not in patched[name][1]:
        print(f"  patched skipped {name}: {patched[name][1]}"); bad = 1
sys.exit(bad)
PY
