#!/bin/bash
# bad-args.sh - every make target given a bad argument exits non-zero
# with a line that says what is wrong, and no Python traceback.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fails=0
# expect WHAT_IT_MUST_SAY COMMAND...
expect() {
	local want=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ] || ! grep -qi -- "$want" <<<"$out" || grep -q Traceback <<<"$out"; then
		echo "FAIL: $* (status $rc) should say '$want':"
		tail -5 <<<"$out"
		fails=$((fails + 1))
	else
		echo "ok: $* -> $(grep -i -m1 -- "$want" <<<"$out")"
	fi
}
cd "$ROOT"
expect "no such results file" make -s report RUN=/nonexistent
expect "no such results file" make -s report-reference RUN=/nonexistent
expect "no variant 'bogus'" make -s kernel VARIANT=bogus
expect "no variant 'bogus'" make -s conformance VARIANT=bogus
expect "no variant 'bogus'" make -s soak VARIANT=bogus N=1
expect "whole numbers" make -s soak VARIANT=stock N=many
expect "MODE must be cost, check or time" make -s vm-run VARIANT=stock MODE=fast
expect "no variant 'bogus'" make -s compare BASE=bogus NEW=patched
expect "no step 'bogus'" make -s test STEPS=bogus
[ "$fails" = 0 ]
