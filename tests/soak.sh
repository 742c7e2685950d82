#!/bin/bash
# soak.sh - boot each variant N times and run the series tests and the
# conformance suite on every file system each time (check mode); report
# every failure with its TAP, the hung test's stacks (hangwatch takes
# them before the harness's timeout) and the console's tail.
#
# Usage: tests/soak.sh [-n N] [-j JOBS] [-f FUZZ] [-m MODE] [-o DIR] VARIANT...
#   -n N      boots per variant (default 20)
#   -j JOBS   guests at once (default: one per core, at most one per 5 GiB)
#   -f FUZZ   the conformance suite's fuzz calls per boot (default 100000,
#             NFS a tenth)
#   -m MODE   vm/run.sh's mode (default check; cost is how the suites ran
#             before 2026-12-04, where a guest timeout can fire while the
#             host keeps an idle guest waiting: tests/clock-stall.sh)
#   -o DIR    where the boots go (default results/soak/<time>)
# Exit status 0 only when every boot passed every test.  DIR/summary.txt
# is the table printed at the end; DIR/failures.txt each failure in full.
set -eu -o pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=20 JOBS='' FUZZ=100000 DIR='' MODE=check
while getopts n:j:f:m:o: opt; do
	case $opt in
	n) N=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	f) FUZZ=$OPTARG ;;
	m) MODE=$OPTARG ;;
	o) DIR=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "soak.sh: name at least one variant" >&2; exit 2; }
for n in "$N" "$FUZZ" ${JOBS:+"$JOBS"}; do
	case $n in '' | *[!0-9]*) echo "soak.sh: -n, -f and -j take whole numbers" >&2; exit 2 ;; esac
done
[ "$N" -ge 1 ] || { echo "soak.sh: -n wants at least 1" >&2; exit 2; }
for v in "$@"; do
	"$ROOT/vm/kbuild.sh" --dir "$v" >/dev/null || exit 2
	[ -f "$("$ROOT/vm/kbuild.sh" --dir "$v")/bzImage" ] ||
		{ echo "soak.sh: no kernel for '$v': run 'make kernel VARIANT=$v'" >&2; exit 2; }
done
if [ -z "$JOBS" ]; then
	JOBS=$("$ROOT/vm/jobs.sh")
fi
DIR=${DIR:-$ROOT/results/soak/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

# Stopped, the soak stops its guests (each vm/run.sh stops its own QEMU).
declare -A running=()
# shellcheck disable=SC2317 # run by the trap
stop() {
	for p in "${!running[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

boots=()
for i in $(seq "$N"); do
	for v in "$@"; do boots+=("$v/$i"); done
done
echo "[soak] $* x $N boots ($MODE mode), $JOBS at a time, fuzz $FUZZ; in $DIR"
t0=$(date +%s)
next=0 done_n=0
while [ "$next" -lt ${#boots[@]} ] || [ ${#running[@]} -gt 0 ]; do
	while [ "$next" -lt ${#boots[@]} ] && [ ${#running[@]} -lt "$JOBS" ]; do
		b=${boots[next]}
		"$ROOT/vm/run.sh" -q -m "$MODE" -v "${b%/*}" -t 2400 -o "$DIR/$b" -- \
			"tests/guest/suites.sh $FUZZ" >"$DIR/${b%/*}.$((${b#*/})).log" 2>&1 &
		running[$!]=$b
		next=$((next + 1))
	done
	pid='' rc=0
	wait -n -p pid "${!running[@]}" || rc=$?
	b=${running[$pid]}
	unset "running[$pid]"
	done_n=$((done_n + 1))
	echo "$rc" >"$DIR/$b/soak-status"
	verdict=passed
	[ "$rc" = 0 ] || verdict="FAILED (status $rc)"
	echo "[soak] $done_n/${#boots[@]}: $b $verdict ($(($(date +%s) - t0)) s)"
done
trap - EXIT

/usr/bin/python3 "$ROOT/analysis/soak.py" "$DIR" | tee "$DIR/summary.txt"
