#!/bin/bash
# gate.sh - the regression gate catches a slowed getattr path and passes
# the series where it targets nothing.
#  1. stock -> patched (events compiled in, disabled): exit 0; nothing
#     regresses beyond the threshold, the descriptor cases improve.
#  2. patched -> slow (tests/regress: cp_statx() does extra work): exit 1,
#     and what regresses is statx() and nothing else.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/results/test/gate}
rm -rf "$OUT"
mkdir -p "$OUT"
"$ROOT/vm/kbuild.sh" slow
rc=0
"$ROOT/bench/compare.sh" -b stock -n patched -o "$OUT/stock-patched" || rc=$?
echo "stock -> patched: gate exit $rc (want 0)"
[ "$rc" = 0 ]
grep -q ' improved$' "$OUT/stock-patched/compare.txt"
rc=0
"$ROOT/bench/compare.sh" -b patched -n slow -o "$OUT/patched-slow" || rc=$?
echo "patched -> slow: gate exit $rc (want 1)"
[ "$rc" = 1 ]
# Every regression is a statx case, and every statx-by-path case regressed.
awk '$NF == "regressed" && $3 !~ /^statx\./ {print "unexpected regression: " $0; bad = 1}
     $3 ~ /^statx\.(BASIC_STATS|SIZE|TYPE)$/ && $NF != "regressed" {print "missed: " $0; bad = 1}
     END {exit bad}' "$OUT/patched-slow/compare.txt"
