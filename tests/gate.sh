#!/bin/bash
# gate.sh - the regression gate catches a slowed getattr path and a slowed
# long name, and passes the series with its own regression listed.
#  1. stock -> patched (every case, every file system): exit 0; the
#     descriptor cases improve; the long names patch 4 makes slower are
#     listed as accepted regressions, not hidden.
#  2. patched -> slow (tests/regress: cp_statx() does extra work, and so
#     does getname() for names of 160 bytes and more): exit 1; what
#     regresses is statx() and the long names, nothing else; a 159-byte
#     name does not.
# One gate run boots the three kernels (each with and without
# init_on_alloc=0); both gates judge it (compare.sh -r).
# Usage: tests/gate.sh [OUT [RUN]]; RUN: judge a gate run already made
# (OUT/run of an earlier call) instead of booting.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/results/test/gate}
RUN=${2:-}
if [ -n "$RUN" ]; then
	RUN=$(cd "$RUN" && pwd)
	[ -f "$RUN/results.json" ] || { echo "gate: $RUN/results.json: no such run"; exit 2; }
	case $RUN/ in "$(mkdir -p "$OUT" && cd "$OUT" && pwd)"/*)
		echo "gate: RUN must lie outside OUT (OUT is emptied)"; exit 2 ;;
	esac
fi
rm -rf "$OUT"
mkdir -p "$OUT"
if [ -z "$RUN" ]; then
	RUN=$OUT/run
	"$ROOT/vm/kbuild.sh" slow
	"$ROOT/bench/run.sh" -q 0 -t 0 -g 1 -o "$RUN" stock patched slow >"$OUT/run.log" 2>&1 ||
		{ tail -30 "$OUT/run.log"; echo "the gate's run failed (log: $OUT/run.log)"; exit 1; }
fi
rc=0
"$ROOT/bench/compare.sh" -r "$RUN" -b stock -n patched -o "$OUT/stock-patched" || rc=$?
echo "stock -> patched: gate exit $rc (want 0)"
[ "$rc" = 0 ]
T=$OUT/stock-patched/compare.txt
grep -q ' improved$' "$T" || { echo "no case improved"; exit 1; }
grep -Eq '^default +ext4 +stat\.name160 .* accepted: patch 4' "$T" ||
	{ echo "the 160-byte name is not listed as an accepted regression"; exit 1; }
rc=0
"$ROOT/bench/compare.sh" -r "$RUN" -b patched -n slow -o "$OUT/patched-slow" || rc=$?
echo "patched -> slow: gate exit $rc (want 1)"
[ "$rc" = 1 ]
# Every regression is a statx case (a writer's statx included: slow's
# cp_statx() runs after the write too, and whether its few instructions
# clear a dirty case's spread is chance) or a name of 160 bytes or more;
# statx by path and the long names regressed on the local file systems;
# 159 bytes did not.
awk '$NF == "regressed" && $3 !~ /^(dirty\.)?statx\./ && $3 !~ /\.name(1[6-9][0-9]|[2-9][0-9][0-9]|[0-9][0-9][0-9][0-9])$/ {
		print "unexpected regression: " $0; bad = 1 }
     $1 == "default" && ($2 == "ext4" || $2 == "tmpfs") &&
     $3 ~ /^(statx\.(BASIC_STATS|SIZE|TYPE)|stat\.name(160|1024|4095))$/ && $NF != "regressed" {
		print "missed: " $0; bad = 1 }
     $3 == "stat.name159" && $NF == "regressed" { print "a short name regressed: " $0; bad = 1 }
     END { exit bad }' "$OUT/patched-slow/compare.txt"
