#!/bin/bash
# uml-timing.sh - the kernel's own stat() code timed natively on this CPU:
# the statx_timing KUnit suite (patches/uml/) in User-Mode Linux kernels
# of stock and of the series, for each base, with init_on_alloc 0 and 1.
#
# The method, enforced here and by analysis/uml_timing.py:
#   - nothing else of the project runs: no guest, no kernel build (the
#     build lock is held for the whole run, so none can start);
#   - every boot is pinned to CPU 0 (taskset);
#   - the boots are interleaved in an order written down before the first
#     boot: round by round, every kernel and init_on_alloc setting, the
#     order reversed every other round;
#   - each boot's ticks become core cycles by its own add chain;
#   - a boot whose add chain or spread is off is refused, named and
#     counted; more than one refused boot in six of any kernel and setting
#     fails the run; there is no retry.
# Then one more boot of each kernel and setting runs under gdb, which
# counts the instructions of one warm call of every case (bench/uml_count.py).
#
# Usage: bench/uml-timing.sh [-n BOOTS] [-o DIR] [BASE...]
#   -n BOOTS  timed boots of each kernel and setting (default 12, at least 5)
#   -o DIR    where the boots' logs go (default results/uml-timing)
#   BASE      6.1 and/or 6.12 (default: both)
# DIR/order.txt, DIR/boots/<n>.<variant>.ioa<0|1>.log,
# DIR/counts/<variant>.ioa<0|1>.txt; then analysis/uml_timing.py DIR.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KCACHE=${KCACHE:-$HOME/.cache/statx-study}
BOOTS=12 OUT=$ROOT/results/uml-timing
usage() { sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2; }
die() { echo "uml-timing: $*" >&2; exit 1; }
while getopts n:o: opt; do
	case $opt in
	n) BOOTS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
case $BOOTS in '' | *[!0-9]*) die "-n wants a count of boots, not '$BOOTS'" ;; esac
[ "$BOOTS" -ge 5 ] || die "-n $BOOTS: the method wants at least 5 boots of each kernel"
[ $# -gt 0 ] || set -- 6.1 6.12
VARIANTS=()
for base in "$@"; do
	case $base in
	6.1) VARIANTS+=(stock patched) ;;
	6.12) VARIANTS+=(stock-6.12 patched-6.12) ;;
	*) die "no base '$base' (6.1 or 6.12)" ;;
	esac
done

for v in "${VARIANTS[@]}"; do "$ROOT/vm/uml.sh" build "$v"; done

# Quiet: no guest of ours running, and no build may start.
mkdir -p "$KCACHE"
exec 9>"$KCACHE/build.lock"
flock -n 9 || die "a kernel build is running; the timing runs alone"
if pgrep -x qemu-system-x86 >/dev/null || pgrep -f '^qemu-system-x86_64 ' >/dev/null; then
	die "a QEMU guest is running; the timing runs alone"
fi
command -v gdb >/dev/null || die "gdb missing: run 'make deps'"

rm -rf "$OUT"
mkdir -p "$OUT/boots" "$OUT/counts"
# The order, before the first boot.
CONFIGS=()
for v in "${VARIANTS[@]}"; do
	for ioa in 0 1; do CONFIGS+=("$v.ioa$ioa"); done
done
n=0
for ((r = 0; r < BOOTS; r++)); do
	if [ $((r % 2)) -eq 0 ]; then
		for c in "${CONFIGS[@]}"; do n=$((n + 1)); echo "$n $c"; done
	else
		for ((k = ${#CONFIGS[@]} - 1; k >= 0; k--)); do n=$((n + 1)); echo "$n ${CONFIGS[$k]}"; done
	fi
done >"$OUT/order.txt"
{
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
		"family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)" \
		"model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "tsc_khz: $(sed -n 's/^cpu MHz[[:space:]]*: //p' /proc/cpuinfo | head -1) MHz (cpuinfo)"
	echo "pinned: taskset -c 0"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$OUT/host.txt"

t0=$(date +%s)
while read -r n c; do
	v=${c%.ioa*} ioa=${c##*.ioa}
	words=$("$ROOT/vm/uml.sh" --timing-cmd "$v" "init_on_alloc=$ioa")
	mapfile -t cmd <<<"$words"
	timeout 300 taskset -c 0 "${cmd[@]}" </dev/null >"$OUT/boots/$n.$c.log" 2>&1 ||
		echo "uml-timing: boot $n ($c) exited with $? (the analysis reads its log)"
done <"$OUT/order.txt"
echo "uml-timing: $(wc -l <"$OUT/order.txt") timed boots in $(($(date +%s) - t0)) s"

for c in "${CONFIGS[@]}"; do
	v=${c%.ioa*} ioa=${c##*.ioa}
	words=$("$ROOT/vm/uml.sh" --timing-cmd "$v" "init_on_alloc=$ioa")
	mapfile -t cmd <<<"$words"
	STATX_COUNT_OUT=$OUT/counts/$c.txt timeout 900 taskset -c 0 gdb -q -batch \
		-x "$ROOT/bench/uml_count.py" --args "${cmd[@]}" \
		</dev/null >"$OUT/counts/$c.gdb.log" 2>&1 ||
		die "counting $c's instructions under gdb failed: $OUT/counts/$c.gdb.log"
done
echo "uml-timing: instructions counted under gdb, $(($(date +%s) - t0)) s in all"
flock -u 9
/usr/bin/python3 "$ROOT/analysis/uml_timing.py" "$OUT" -o "$OUT/uml_timing.json" --markdown
