#!/bin/bash
# boot-fail.sh - a guest that fails is an error with a message (run.sh's
# status 125):
#   hang    a guest that never ends is killed by the timeout, and the
#           message names the timeout;
#   panic   a guest kernel panic is a crash, and the console's tail with
#           the panic in it is printed.
# Usage: tests/boot-fail.sh hang|panic
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
hang) secs=30 cmd='echo spinning; while :; do :; done' want=('timeout') ;;
panic) secs=120 cmd='echo 1 >/proc/sys/kernel/sysrq; echo c >/proc/sysrq-trigger'
	want=('crashed' 'Kernel panic') ;;
*) echo "usage: tests/boot-fail.sh hang|panic" >&2; exit 2 ;;
esac
rc=0
msg=$("$ROOT/vm/run.sh" -q -v patched -t "$secs" -o "$ROOT/results/test/vm/boot-$1" -- "$cmd" 2>&1) || rc=$?
echo "$msg"
[ "$rc" = 125 ] || { echo "FAIL: status $rc, not 125"; exit 1; }
for w in "${want[@]}"; do
	grep -q "$w" <<<"$msg" || { echo "FAIL: no '$w' in the message"; exit 1; }
done
