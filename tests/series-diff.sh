#!/bin/bash
# series-diff.sh - the series tests pass on stock and on patched, and the
# only tests stock skips are those about what the series adds.
# Usage: tests/series-diff.sh VMDIR (holding series-stock/ and series-patched/)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
/usr/bin/python3 - "$ROOT/analysis" "$1/series-stock/output" "$1/series-patched/output" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import conformance  # the kselftest_harness TAP parser the suites share

stock, patched = (conformance.parse(open(p, errors="replace").read())
                  for p in sys.argv[2:4])
bad = 0
if not stock["tests"] or not patched["tests"]:
    print("no TAP results"); sys.exit(1)
if set(stock["tests"]) != set(patched["tests"]):
    print("different test lists:", set(stock["tests"]) ^ set(patched["tests"])); bad = 1
for name in sorted(patched["tests"]):
    s, p = stock["tests"].get(name, "missing"), patched["tests"][name]
    mark = "" if s == p else "   <- differs"
    print(f"{name:60} stock={s:5} patched={p:5}{mark}")
    if "fail" in (s, p):
        bad = 1
    # stock may skip only what the series adds (its events, the NULL name)
    if s == "skip" and p != "skip" and "stock 6.1" not in stock["skips"].get(name, ""):
        bad = 1
    if p == "skip" and "not mounted" not in patched["skips"].get(name, ""):
        print(f"  patched skipped {name}: {patched['skips'].get(name)}"); bad = 1
sys.exit(bad)
PY
