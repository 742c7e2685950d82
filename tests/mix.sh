#!/bin/bash
# mix.sh - the instruction mix (traces/mix.py) in one boot: every window's
# total, its empty body's taken off, must equal the harness's clock read
# around that same window (cost mode's count of that call) and cost
# mode's median of the case's batches in the same boot, each within 1%
# (analysis/mix.py fails otherwise, naming the case); every case's
# classes must add up to its total; the cycle model must weigh every
# case.  Cost-mode counts of local calls are exact, so nothing here is a
# timing threshold.
# Usage: tests/mix.sh OUTDIR
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: mix.sh OUTDIR}
PY=/usr/bin/python3
rm -rf "$OUT"
mkdir -p "$OUT"
$PY "$ROOT/traces/mix.py" run --timeout 900 \
	--cases fstat,glibc.fstat,statx.fd.empty,stat,stat.name160 --configs ext4 \
	patched "$OUT/patched" >"$OUT/run.log" 2>&1 ||
	{ tail -20 "$OUT/run.log"; exit 1; }
$PY "$ROOT/analysis/mix.py" "$OUT" -o "$OUT/mix.json"
$PY "$ROOT/tests/checks.py" mix "$OUT/mix.json"
