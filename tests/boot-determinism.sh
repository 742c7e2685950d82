#!/bin/bash
# boot-determinism.sh - cost mode is exact: two boots of the same kernel
# give the same instruction counts for a fixed user-space loop and for
# getppid() (within 0.1%, the noise a stray interrupt leaves in a median).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
for b in 1 2; do
	"$ROOT/vm/run.sh" -q -v patched -o "$ROOT/results/test/vm/determinism-$b" -- \
		"build/statx-bench --mode cost --variant patched --cases 'calib.*,getppid,null' --json /mnt/io/bench.json"
done
/usr/bin/python3 - "$ROOT/results/test/vm/determinism-1/bench.json" \
	"$ROOT/results/test/vm/determinism-2/bench.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ma = {c["name"]: c["median"] for c in a["cases"]}
mb = {c["name"]: c["median"] for c in b["cases"]}
bad = 0
for name in sorted(ma):
    x, y = ma[name], mb[name]
    rel = abs(x - y) / max(abs(x), 1.0)
    print(f"{name:24} boot1 {x:10.1f} boot2 {y:10.1f} diff {rel * 100:.4f}%")
    if name == "null":
        bad += abs(x) > 1 or abs(y) > 1
    else:
        bad += rel > 0.001
# The plain loop is 2000 instructions; icount must say so.
loop = ma["calib.loop_2000"]
print(f"calib.loop_2000 = {loop:.1f} (2000 instructions plus call and return)")
bad += not (2000 <= loop <= 2020)
sys.exit(1 if bad else 0)
PY
