#!/bin/bash
# boot-status.sh - the guest command's exit status reaches the host.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
out=$ROOT/results/test/vm/boot-status
rc=0
"$ROOT/vm/run.sh" -q -v patched -o "$out" -- 'echo about to fail; exit 3' || rc=$?
echo "guest 'exit 3' -> run.sh status $rc"
[ "$rc" = 3 ]
grep -q 'about to fail' "$out/output"
