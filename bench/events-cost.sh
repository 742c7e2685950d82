#!/bin/bash
# events-cost.sh - what the series' tracepoints cost disabled, boot by
# boot: BEFORE (the series without the events) and AFTER (with them),
# booted alternately in cost mode, each boot running the calls the
# events sit on, once with Debian's command line and once with
# hardened_usercopy=off.
#
# Why the second setting: a call that copies a name from user space
# (strncpy_from_user()) has hardened usercopy check the slab object it
# copies into, and that check's length depends on where the allocator
# put the object (compound_head() takes one more step on a slab's tail
# page), so a by-path call moves by a few instructions from boot to boot
# whatever the kernel.  With the check off, what is left of the change
# is the events' own.  analysis/events_cost.py reads both.
#
# Usage: bench/events-cost.sh [-n BOOTS] [-o DIR] [BEFORE AFTER]
#   BEFORE AFTER  default: series4 patched (patches 1-4, then 1-5)
#   -n BOOTS      boots of each kernel in each setting (default 3)
#   -o DIR        where the boots write (default results/events-cost)
# Each boot: DIR/<setting>/<variant>.<i>/ (vm/run.sh's run directory, the
# harness's JSON in cases.json).  The order is fixed before the run:
# per boot index, per setting, BEFORE then AFTER.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BOOTS=3 OUT=$ROOT/results/events-cost
while getopts n:o: opt; do
	case $opt in
	n) BOOTS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
BEFORE=${1:-series4} AFTER=${2:-patched}
case $BOOTS in '' | *[!0-9]* | 0) echo "events-cost: -n wants a count of boots, not '$BOOTS'" >&2; exit 2 ;; esac

# The calls each event pair sits on: by descriptor (no name copied) and
# by path (a name copied, so hardened usercopy's check runs).
CASES=fstat,fstatat.empty,statx.fd.empty,stat,statx.BASIC_STATS
# setting name, then the kernel command-line arguments it adds.
SETTINGS=("default|" "usercopy_off|hardened_usercopy=off")

for v in "$BEFORE" "$AFTER"; do "$ROOT/vm/kbuild.sh" "$v"; done
rm -rf "$OUT"
i=0
while [ "$i" -lt "$BOOTS" ]; do
	i=$((i + 1))
	for s in "${SETTINGS[@]}"; do
		name=${s%%|*} args=${s#*|}
		for v in "$BEFORE" "$AFTER"; do
			d=$OUT/$name/$v.$i
			"$ROOT/vm/run.sh" -q -b -v "$v" -m cost -t 900 ${args:+-a "$args"} -o "$d" -- \
				"mkdir -p /mnt/ext4/ev && build/statx-bench --dir /mnt/ext4/ev --fs ext4 --mode cost --variant $v --cases $CASES --env kernel_cmdline=\"\$(cat /proc/cmdline)\" --json \$IO/cases.json" >/dev/null ||
				{ echo "events-cost: $v boot $i ($name) failed: $d/console.log" >&2; exit 1; }
			echo "events-cost: $name $v boot $i done"
		done
	done
done
/usr/bin/python3 "$ROOT/analysis/events_cost.py" "$OUT" --before "$BEFORE" --after "$AFTER"
