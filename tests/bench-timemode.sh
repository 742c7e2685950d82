#!/bin/bash
# bench-timemode.sh - time mode's stopping rule, on the host's own clock
# (user space only: the harness makes system calls, nothing is loaded):
# rounds are added until every case's 95% interval of the median is
# within --ci-target of it, and no further than --max-samples.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$ROOT/bench"
B=$ROOT/build/statx-bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The empty body ("null") is among them: its median is about zero, so it
# cannot meet a relative target and must not hold the others up.
cases=null,getppid,stat,fstat
# A loose target is met at the first check; one no clock can meet runs to
# the limit and says so.
# (The loose run picks the same cases by pattern: --cases, then --skip.)
"$B" --mode time --dir "$dir" --cases 'null,getppid,stat*,fstat' --skip 'stat.*,statx*' \
	--samples 31 --max-samples 300 --ci-target 0.5 --json "$dir/loose.json" >"$dir/loose.out"
"$B" --mode time --dir "$dir" --cases "$cases" --samples 11 --max-samples 40 \
	--ci-target 1e-9 --json "$dir/tight.json" >"$dir/tight.out"
cat "$dir/loose.out" "$dir/tight.out"
/usr/bin/python3 - "$dir/loose.json" "$dir/tight.json" <<'PY'
import json
import sys

bad = []
for path, want_n, want_met in ((sys.argv[1], 31, True), (sys.argv[2], 40, False)):
    doc = json.load(open(path))
    names = sorted(c["name"] for c in doc["cases"])
    if names != sorted("null,getppid,stat,fstat".split(",")):
        bad.append(f"{path}: cases {names}")
    if "ci_target" not in doc:
        bad.append(f"{path}: no ci_target")
    if "warning" in doc:
        bad.append(f"{path}: a TCG warning outside a TCG guest")
    for c in doc["cases"]:
        lo, hi = c["ci95"]
        if len(c["samples"]) != want_n:
            bad.append(f"{c['name']}: {len(c['samples'])} samples, want {want_n}")
        # null's interval is recorded, but it does not count.
        if c["name"] != "null" and c["ci_met"] is not want_met:
            bad.append(f"{c['name']}: ci_met {c['ci_met']}, want {want_met}")
        if not lo <= c["median"] <= hi:
            bad.append(f"{c['name']}: interval {lo}..{hi} misses the median {c['median']}")
print("\n".join(bad) or "time mode: stops at the target (31 samples) or at the limit (40)")
sys.exit(1 if bad else 0)
PY
