#!/bin/bash
# names-stress.sh - runs inside the guest (the debug variant, booted with
# audit=1 so that audit holds references to struct filename): name_storm on
# ext4, tmpfs and NFS v4.2, then the kernel log is searched for anything
# KASAN, KFENCE, lockdep or the atomic-sleep check reported.
# Usage (in the guest): tests/guest/names-stress.sh [CALLS] [SEED] [inject]
#   inject: write a fake KASAN report to the kernel log after the storm, so
#   that tests/names-inject.sh can check this script fails on one.
set -eu
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
CALLS=${1:-20000} SEED=${2:-1} INJECT=${3:-}
# shellcheck source=../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"

# What the checkers print when they find something.
SPLAT='BUG: |WARNING: |KASAN|KFENCE|possible circular|inconsistent lock|sleeping function called|general protection|Oops'

echo "guest: $(uname -r), cmdline: $(cat /proc/cmdline)"
for opt in CONFIG_KASAN CONFIG_KFENCE CONFIG_PROVE_LOCKING CONFIG_DEBUG_ATOMIC_SLEEP; do
	zcat /proc/config.gz | grep -q "^$opt=y" || { echo "not a debug kernel: $opt is off"; exit 1; }
done
if dmesg | grep -E "$SPLAT"; then
	echo "FAIL: the kernel log reports the above before the storm"
	exit 1
fi

start_nfsd
mount_nfs 4.2 /mnt/nfs4
status=0
for mnt in /mnt/ext4 /mnt/tmpfs /mnt/nfs4; do
	dir=$mnt/storm-$$
	mkdir -p "$dir"
	echo "== $mnt ($(fs_type "$mnt"))"
	n=$CALLS
	# NFS round trips under KASAN and lockdep are slow: a fifth as many.
	[ "$mnt" = /mnt/nfs4 ] && n=$((CALLS / 5))
	"$REPO/build/name_storm" "$dir" "$n" "$SEED" || status=1
	rm -rf "$dir"
done
if [ "$INJECT" = inject ]; then
	echo "<3>BUG: KASAN: injected by names-stress.sh (test of the test)" >/dev/kmsg
fi
if dmesg | grep -E -A 20 "$SPLAT"; then
	echo "FAIL: the kernel log reports the above"
	exit 1
fi
[ "$status" = 0 ] || { echo "FAIL: name_storm saw an unexpected error"; exit 1; }
echo "names-stress: no splat in the kernel log"
