#!/bin/bash
# behaviour.sh - what the lookup-free paths change besides cost, on stock
# and on the whole series (tests/guest/behaviour.sh in a guest each, then
# tests/checks.py behaviour): audit records per call, and each call on NFS
# after the file is replaced on the server.
# Usage: tests/behaviour.sh [OUTDIR]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/results/test/behaviour}
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$ROOT"
# $IO is the guest's: expanded there.
# shellcheck disable=SC2016
for v in stock patched; do
	vm/kbuild.sh "$v" >/dev/null
	vm/run.sh -q -m check -v "$v" -t 900 -o "$OUT/$v" -- 'tests/guest/behaviour.sh $IO' >/dev/null ||
		{ tail -20 "$OUT/$v/output"; echo "behaviour: the $v guest failed" >&2; exit 1; }
done
/usr/bin/python3 analysis/behaviour.py "$OUT/stock" "$OUT/patched" -o "$OUT/behaviour.json"
exec /usr/bin/python3 tests/checks.py behaviour "$OUT/behaviour.json"
