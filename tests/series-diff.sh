#!/bin/bash
# series-diff.sh - the series tests pass on stock and on patched, and the
# only tests stock skips are those about what the series adds.
# Usage: tests/series-diff.sh STOCK_TAP PATCHED_TAP
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# = 2 ] || { echo "usage: tests/series-diff.sh STOCK_TAP PATCHED_TAP" >&2; exit 2; }
exec /usr/bin/python3 "$ROOT/analysis/conformance.py" --series-diff "$1" "$2"
