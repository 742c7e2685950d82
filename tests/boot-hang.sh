#!/bin/bash
# boot-hang.sh - a guest that never ends is killed by the timeout, and
# run.sh says so (status 125, a message naming the timeout).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
rc=0
msg=$("$ROOT/vm/run.sh" -q -v patched -t 30 -o "$ROOT/results/test/vm/boot-hang" -- \
	'echo spinning; while :; do :; done' 2>&1) || rc=$?
echo "$msg"
[ "$rc" = 125 ]
grep -q 'timeout' <<<"$msg"
