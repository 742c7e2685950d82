#!/bin/bash
# names-inject.sh - the names stress run fails on a splat in the kernel log:
# a short run on the debug kernel with a fake KASAN report written to the
# log must end with names-stress.sh's failure message, not only any error.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: names-inject.sh RUNDIR}
if "$ROOT/vm/run.sh" -q -v debug -a audit=1 -t 1200 -o "$out" -- \
	"tests/guest/names-stress.sh 0 1 inject"; then
	echo "names-stress.sh passed with a KASAN report in the log"
	exit 1
fi
grep -q "FAIL: the kernel log reports the above" "$out/output" || {
	echo "names-stress.sh failed, but not on the injected report:"
	tail -n 20 "$out/output"
	exit 1
}
echo "names-stress.sh failed on the injected report, as it must"
