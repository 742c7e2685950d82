#!/bin/bash
# conformance.sh - runs inside the guest: mount NFS v3 and v4.2 from the
# guest's own knfsd (with a tmpfs submount under the export, crossmnt, for
# AT_NO_AUTOMOUNT), then run the statx conformance suite; TAP on stdout,
# and a copy in $IO/conformance.tap when $IO is set.
# Usage (in the guest): tests/guest/conformance.sh [FUZZ_CALLS]
set -eu -o pipefail
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
# shellcheck source=../../vm/afs-lib.sh
. "$REPO/vm/afs-lib.sh"
export STATX_FUZZ_CALLS=${1:-${STATX_FUZZ_CALLS:-100000}}

start_nfsd
# A second file system inside the export: NFS clients see an automount
# point at automnt (its own fsid; the parent export crosses into it).
sub=$EXPORT/automnt
mkdir -p "$sub"
mountpoint -q "$sub" || mount -t tmpfs -o size=16m automnt "$sub"
touch "$sub/.automount-test"
exportfs -o rw,no_root_squash,no_subtree_check,fsid=0,crossmnt "127.0.0.1:$EXPORT"
exportfs -o rw,no_root_squash,no_subtree_check,fsid=77 "127.0.0.1:$sub"
# kafs, where the kernel has it (VARIANT=afs): the guest's own OpenAFS
# cell on /mnt/afs (vm/afs-lib.sh), and a dynroot that lists the cell.
if [ -e /proc/fs/afs/cells ]; then
	start_afs_cell
	mkdir -p /mnt/afsdyn
	mount -t afs none /mnt/afsdyn -o dyn
fi
mount_nfs 3 /mnt/nfs3
mount_nfs 4.2 /mnt/nfs4
echo "guest: $(uname -r); $(for m in /mnt/ext4 /mnt/tmpfs /mnt/nfs3 /mnt/nfs4 /mnt/afs; do
	mountpoint -q "$m" && printf '%s=%s ' "$m" "$(fs_type "$m")"; done)"
cd /tmp
out=/dev/null
[ -n "${IO:-}" ] && out=$IO/conformance.tap
rc=0
# hangwatch: a test that runs long gets its stacks taken, printed into
# the TAP when the harness kills it ($IO/hangwatch-conformance/ keeps
# them, and each test's guest, busy, idle and host seconds; HANGWATCH_AFTER:
# the seconds a test runs before its stacks are taken; hangwatch -a).
"$REPO/build/hangwatch" ${HANGWATCH_AFTER:+-a "$HANGWATCH_AFTER"} -o "${IO:-/tmp}/hangwatch-conformance" -- \
	"$REPO/build/statx_conformance_test" | tee "$out" || rc=$?
# A kernel warning during the run is a failure whatever the tests said.
if dmesg | grep -E 'BUG:|WARNING:|Oops|general protection' >/dev/null; then
	echo "conformance: the kernel complained during the run:"
	dmesg | grep -E -A5 'BUG:|WARNING:|Oops|general protection' | head -40
	rc=1
fi
exit "$rc"
