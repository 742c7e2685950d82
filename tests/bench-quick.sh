#!/bin/bash
# bench-quick.sh - `make bench QUICK=1` end to end (stock and patched, every
# file system), then checks on what it wrote: the schema, every
# configuration present, the harness's own overhead subtracted exactly,
# NFS operations counted, the series' effect where it is exact, and the
# system call dispatch count against its measured check.
# Usage: tests/bench-quick.sh RUNDIR
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNDIR=$1
rm -rf "$RUNDIR"
"$ROOT/bench/run.sh" -q 1 -t 0 -o "$RUNDIR" stock patched
# In the guest, time mode under TCG is refused unless flagged.
rc=0
out=$("$ROOT/vm/run.sh" -q -v patched -o "$RUNDIR/refuse-time" -- \
	'build/statx-bench --mode time --cases null') || rc=$?
# 5: EXIT_REFUSE_TCG_TIME (bench/util.h)
[ "$rc" = 5 ] || { echo "time mode under TCG was not refused with status 5 (status $rc): $out"; exit 1; }
echo "refused in the guest: time mode under TCG"
/usr/bin/python3 "$ROOT/tests/checks.py" quick "$RUNDIR/results.json" "$RUNDIR/drift.json"
test -s "$RUNDIR/report/REPORT.md"
test -s "$RUNDIR/report/filesystems.png"
grep -q '^## Against the reference run' "$RUNDIR/report/REPORT.md"
