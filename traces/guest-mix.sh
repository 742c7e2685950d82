#!/bin/bash
# guest-mix.sh - runs inside the guest, steered by traces/mix.py on the
# host: the harness's --mix windows of the headline cases on each
# configuration, over the control line /dev/ttyS1.
#
# Usage (in the guest): traces/guest-mix.sh VARIANT CASES CONFIGS
#   CASES    the harness's --cases list (comma-separated)
#   CONFIGS  ext4, nfs3, nfs3.actimeo0, nfs4 and/or nfs4.actimeo0 (comma-separated)
# Writes to $IO: kallsyms (the running kernel's symbols, for attribution),
# and LABEL.json per configuration (the harness's cost-mode results of the
# same boot, which each window's total must equal).
set -eu
VARIANT=$1 CASES=$2 CONFIGS=$3
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
IO=${IO:?guest-mix: no \$IO}
BIN=$REPO/build/statx-bench
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
TTY=/dev/ttyS1
[ -c "$TTY" ] || { echo "guest-mix: no $TTY (vm/run.sh -c gives it)" >&2; exit 1; }

# Root reads the real addresses (kptr_restrict permitting).
echo 0 >/proc/sys/kernel/kptr_restrict
cp /proc/kallsyms "$IO/kallsyms"
grep -q '^ffffffff' "$IO/kallsyms" || { echo "guest-mix: kallsyms shows no addresses" >&2; exit 1; }

say() { printf '%s\n' "$*" >"$TTY"; }

# The TSC rate the kernel calibrated: the harness's clock is ticks
# scaled by it, QEMU's TSC runs at 1 GHz of instructions (analysis/mix.py
# gives the clock's excess over the count from it).
dmesg | grep -m1 'tsc: Detected' >"$IO/tsc.txt" ||
	echo "guest-mix: no 'tsc: Detected' line in dmesg" >"$IO/tsc.txt"

nfsd=0
for label in ${CONFIGS//,/ }; do
	case $label in
	ext4) fs=ext4 dir=/mnt/ext4/bench extra=() ;;
	nfs3 | nfs3.actimeo0 | nfs4 | nfs4.actimeo0)
		[ "$nfsd" = 1 ] || { start_nfsd; nfsd=1; }
		# v3, or v4.2 as bench/guest-bench.sh mounts it.
		v=${label%%.*} opts=''
		v=${v#nfs}
		[ "$label" = "nfs$v.actimeo0" ] && opts=actimeo=0
		mountpoint -q "/mnt/nfs$v" && umount "/mnt/nfs$v"
		mount_nfs "$([ "$v" = 4 ] && echo 4.2 || echo 3)" "/mnt/nfs$v" "$opts"
		fs=nfs dir=/mnt/nfs$v/bench-nfs$v extra=(--nfs-mount "/mnt/nfs$v")
		;;
	*) echo "guest-mix: no configuration $label" >&2; exit 2 ;;
	esac
	mkdir -p "$dir"
	say "mix config $label"
	echo "== mix: $label on $dir ($(mount_options "$dir"))"
	"$BIN" --dir "$dir" --fs "$fs" --variant "$VARIANT" --mode cost \
		--cases "$CASES" --mix "$TTY" --label "$label" --json "$IO/$label.json" \
		--env "variant=$VARIANT" --env "mount=$(fs_type "$dir") $(mount_options "$dir")" \
		"${extra[@]}"
done
say "mix end"
