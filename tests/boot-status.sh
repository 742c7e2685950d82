#!/bin/bash
# boot-status.sh - the guest command's exit status reaches the host, and
# `make vm-run CMD=...` hands the guest the command as typed ($ included).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
out=$ROOT/results/test/vm/boot-status
rc=0
"$ROOT/vm/run.sh" -q -m check -v patched -o "$out" -- 'echo about to fail; exit 3' || rc=$?
echo "guest 'exit 3' -> run.sh status $rc"
[ "$rc" = 3 ]
grep -q 'about to fail' "$out/output"
# shellcheck disable=SC2016 # the $ is for the guest's shell, not this one
make -s -C "$ROOT" vm-run VARIANT=stock MODE=check CMD='echo "marker-$((6*7))"' >"$out.make" 2>&1 ||
	{ tail -5 "$out.make"; echo "make vm-run failed"; exit 1; }
grep -q 'marker-42' "$out.make" || { echo "make vm-run did not pass \$((6*7)) to the guest:"; grep marker "$out.make"; exit 1; }
echo "make vm-run CMD='echo \"marker-\$((6*7))\"' printed marker-42 in the guest"
