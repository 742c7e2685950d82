#!/bin/bash
# run.sh - runs inside the guest: mount NFS v3 and v4.2 from the guest's
# own knfsd, then run the series' tests (TAP on stdout, and a copy in
# $IO/series.tap when $IO is set).
# Usage (in the guest): tests/guest/run.sh
set -eu -o pipefail
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
start_nfsd
mount_nfs 3 /mnt/nfs3
mount_nfs 4.2 /mnt/nfs4
echo "guest: $(uname -r), file systems: $(findmnt -n -o FSTYPE /mnt/ext4) $(findmnt -n -o FSTYPE /mnt/tmpfs) $(findmnt -n -o FSTYPE /mnt/nfs3) $(findmnt -n -o FSTYPE /mnt/nfs4)"
cd /tmp
out=/dev/null
[ -n "${IO:-}" ] && out=$IO/series.tap
# hangwatch: stacks of a test that runs long, in the TAP if it times out.
"$REPO/build/hangwatch" ${HANGWATCH_AFTER:+-a "$HANGWATCH_AFTER"} -o "${IO:-/tmp}/hangwatch-series" -- \
	"$REPO/build/statx_series_test" | tee "$out"
