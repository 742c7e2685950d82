#!/bin/bash
# compare.sh - boot two variants in one run, run the same cases on both,
# and gate: exit 1 when a case of NEW regresses against BASE.
# Usage: bench/compare.sh -b BASE -n NEW [-x THRESHOLD%] [-m cost|time]
# (THRESHOLD: default analysis/targets.py's GATE_THRESHOLD)
#                         [-q 0|1] [-l LABELS] [-o RUNDIR] [-r RUN]
# -r RUN: judge a run already made (RUN/results.json, bench/run.sh -g 1
# with both kernels among its variants) instead of booting; the verdict
# table goes to RUNDIR.  Cost mode's counts do not depend on the other
# kernels a run boots, so one run of three kernels serves two gates
# (tests/gate.sh).
# By default the gate sees every case the report reads: the whole case
# set (-q 0), name lengths included, on every configuration, NFS included.
# -q 1 runs the quick case set; LABELS (comma-separated) limits the gate to
# some configurations.  analysis/compare.py judges each case by its own
# rule (exact, measured spread, NFS) and prints the verdict table.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=stock NEW=patched X='' MODE=cost QUICK=0 LABELS='' RUNDIR='' RUN=''
while getopts b:n:x:m:q:l:o:r: opt; do
	case $opt in
	r) RUN=$OPTARG ;;
	b) BASE=$OPTARG ;;
	n) NEW=$OPTARG ;;
	x) X=$OPTARG ;;
	m) MODE=$OPTARG ;;
	q) QUICK=$OPTARG ;;
	l) LABELS=$OPTARG ;;
	o) RUNDIR=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
RUNDIR=${RUNDIR:-$ROOT/results/compare-$(date -u +%Y%m%dT%H%M%SZ)-$BASE-$NEW}
mkdir -p "$(dirname "$RUNDIR")"
if [ -n "$RUN" ]; then
	[ -f "$RUN/results.json" ] || { echo "compare: $RUN/results.json: no such run" >&2; exit 2; }
	mkdir -p "$RUNDIR"
else
	RUN=$RUNDIR
	"$ROOT/bench/run.sh" -q "$QUICK" -t 0 -g 1 -m "$MODE" -o "$RUNDIR" "$BASE" "$NEW" >"$RUNDIR.log" 2>&1 ||
		{ tail -30 "$RUNDIR.log"; echo "compare: the benchmark run failed (log: $RUNDIR.log)" >&2; exit 2; }
fi
/usr/bin/python3 "$ROOT/analysis/compare.py" "$RUN/results.json" --base "$BASE" --new "$NEW" \
	${X:+--threshold "$X"} ${LABELS:+--labels "$LABELS"} -o "$RUNDIR/compare.txt"
