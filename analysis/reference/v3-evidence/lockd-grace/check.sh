#!/bin/bash
# check.sh [keep-grace] - in the guest: GETATTRs of fstat() and stat() on
# an NFSv4.2 mount with actimeo=0 made right after start_nfsd, with its
# grace periods ended (default) or kept.
#   make vm-run VARIANT=stock MODE=cost \
#     CMD='analysis/reference/v3-evidence/lockd-grace/check.sh keep-grace'
set -eu
REPO=${REPO:-$(cd "$(dirname "$0")/../../../.." && pwd)}
# shellcheck source=../../../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
[ "${1:-}" != keep-grace ] || export NFSD_KEEP_GRACE=1
start_nfsd
mount_nfs 4.2 /mnt/nfs4 actimeo=0
mkdir -p /mnt/nfs4/dc
"$REPO/build/statx-bench" --dir /mnt/nfs4/dc --fs nfs --variant stock --mode cost --cases fstat,stat --samples 3 --nfs-mount /mnt/nfs4 --label dc --json /tmp/dc.json >/dev/null
python3 -c "
import json;d=json.load(open('/tmp/dc.json'))
for c in d['cases']:
    if c['name'] in ('fstat','stat'): print('RESULT', '${1:-default}', c['name'], c['median'], c['nfs_ops_per_call']['GETATTR'])"
