#!/bin/bash
# kernel-noop.sh - `make kernel` with nothing to do rebuilds nothing: it
# says so and leaves the installed bzImage alone.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
img=$("$ROOT/vm/kbuild.sh" --dir patched)/bzImage
before=$(stat -c %Y.%i "$img")
t0=$(date +%s%N)
out=$(make -s -C "$ROOT" kernel VARIANT=patched)
echo "$out"
echo "took $((($(date +%s%N) - t0) / 1000000)) ms"
grep -q 'up to date' <<<"$out"
[ "$(stat -c %Y.%i "$img")" = "$before" ]
