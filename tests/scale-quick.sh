#!/bin/bash
# scale-quick.sh - the scaling study's quick run in a patched guest
# (bench/guest-scale.sh QUICK=1: directories of up to 1000 files), then
# checks on what it wrote: every file system's depth, directory-size and
# ls -l points, fio's three stat types, and merge.py/report.py taking it.
# Usage: tests/scale-quick.sh RUNDIR
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNDIR=$1
rm -rf "$RUNDIR"
mkdir -p "$RUNDIR"
"$ROOT/vm/run.sh" -q -v patched -t 1800 -o "$RUNDIR/scale/patched" -- \
	"bench/guest-scale.sh /mnt/io patched 1"
/usr/bin/python3 "$ROOT/tests/checks.py" scale "$RUNDIR/scale/patched"
# The merged results and the report take it (merge.py needs a guest run:
# the bench step's quick run, which tests/run.sh makes just before this).
if [ ! -d "$ROOT/results/test/quick/guest" ]; then
	echo "FAIL: no quick bench run to merge the scaling study into" \
		"(tests/bench-quick.sh writes results/test/quick/)"
	exit 1
fi
cp -r "$ROOT/results/test/quick/guest" "$RUNDIR/"
/usr/bin/python3 "$ROOT/analysis/merge.py" "$RUNDIR" -o "$RUNDIR/results.json"
/usr/bin/python3 "$ROOT/analysis/report.py" "$RUNDIR/results.json" -o "$RUNDIR/report"
grep -q '^### patched' "$RUNDIR/report/REPORT.md"
test -s "$RUNDIR/report/scale/depth.png"
echo "merged and reported: $RUNDIR/report/REPORT.md"
