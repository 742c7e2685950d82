#!/bin/bash
# nfs4-sites.sh - runs inside the guest: where each GETATTR of a stat() by
# path on NFSv4 without an attribute cache comes from, with no descriptor
# open on the file and with one held open, as the benchmark's harness
# holds its fstat case's (knfsd then grants a read delegation).  Which
# GETATTR the delegation spares, and, booted on 6.1 and on 6.12, which
# one 6.12 spares besides (issue 33): analysis/nfs4_sites.py.
# Usage (in the guest): traces/nfs4-sites.sh OUTDIR
# Writes OUTDIR/nfs_sites.closed.txt and OUTDIR/nfs_sites.deleg.txt (the
# file held open with a read delegation: vm/guest-lib.sh trace_sites).
set -eu
OUTDIR=$1
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
[ -x "$REPO/build/stat_n" ] || { echo "nfs4-sites: no $REPO/build/stat_n: run 'make bench-bin'" >&2; exit 2; }
grep -q '^stat:vfs_getattr_enter$' /sys/kernel/tracing/available_events ||
	{ echo "nfs4-sites: $(uname -r) has no stat:* events (the phase needs them)" >&2; exit 2; }
mkdir -p "$OUTDIR"
# Out of both grace periods when it returns: delegations are granted.
start_nfsd
mount_nfs 4.2 /mnt/nfs4 actimeo=0
# Each state in a directory of its own: no delegation left from the other.
for hold in closed deleg; do
	echo "trace: nfs_getattr_sites, stat, file $hold"
	trace_sites "$OUTDIR/nfs_sites.$hold.txt" "/mnt/nfs4/sites-$hold" "$hold" stat
done
umount /mnt/nfs4
