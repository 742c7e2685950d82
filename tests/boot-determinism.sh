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
/usr/bin/python3 "$ROOT/tests/checks.py" determinism "$ROOT/results/test/vm/determinism-1/bench.json" \
	"$ROOT/results/test/vm/determinism-2/bench.json"
