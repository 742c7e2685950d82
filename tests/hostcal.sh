#!/bin/bash
# hostcal.sh - the host calibration (bench/hostcal.c) runs here, on the
# host, in user space, and writes a file bench/schema.json accepts with
# every sequence the cycle model weighs.  No timing is checked: it is a
# benchmark.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$ROOT/bench"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$ROOT/build/hostcal" --samples 3 --json "$out"
/usr/bin/python3 "$ROOT/tests/checks.py" hostcal "$out"
