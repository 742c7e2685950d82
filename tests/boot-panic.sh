#!/bin/bash
# boot-panic.sh - a guest kernel panic is an error, and the console's tail
# is printed.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
rc=0
msg=$("$ROOT/vm/run.sh" -q -v patched -t 120 -o "$ROOT/results/test/vm/boot-panic" -- \
	'echo 1 >/proc/sys/kernel/sysrq; echo c >/proc/sysrq-trigger' 2>&1) || rc=$?
echo "$msg"
[ "$rc" = 125 ]
grep -q 'crashed' <<<"$msg"
grep -q 'Kernel panic' <<<"$msg"
