#!/bin/bash
# behaviour.sh - runs inside the guest: what the lookup-free paths of the
# series change besides cost (issue 18), written to OUTDIR for
# analysis/behaviour.py.
#   audit: with a rule on the stat-family calls of one uid, each call once
#     (build/fastpath_probe as uid 4242), its working directory the one the
#     file is in, where the AT_FDCWD calls point; the kernel log keeps the
#     records (no audit daemon: kauditd prints them), OUTDIR/audit.log,
#     beside each call's pid, OUTDIR/audit.calls.
#   nfs: a file opened on NFS v3, then replaced on the server (a new file
#     renamed over it in the export), then each call again on the same
#     descriptor and by path: OUTDIR/nfs.<mount>.calls, for a mount with
#     the attribute cache (defaults) and one without (actimeo=0).
#   nfs cwd: the same two mounts, a client whose working directory the
#     server replaces (a new directory renamed over it), then each
#     AT_FDCWD call and fstat() of the directory's descriptor, with the
#     GETATTR and LOOKUP calls each made: OUTDIR/nfs.cwd.<mount>.calls.
# Usage (in the guest): tests/guest/behaviour.sh OUTDIR
set -eu
OUT=${1:?usage: behaviour.sh OUTDIR}
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
PROBE=$REPO/build/fastpath_probe
CALLS=(fstat fstatat_empty fstatat_null statx_empty statx_null stat_path statx_path
	cwd_fstatat_empty cwd_fstatat_null cwd_statx_empty cwd_statx_null)
CWD_CALLS=(fstat cwd_fstatat_empty cwd_fstatat_null cwd_statx_empty cwd_statx_null)
mkdir -p "$OUT"
echo "kernel=$(uname -r)" >"$OUT/env"

# --- audit ---------------------------------------------------------------
dir=/mnt/ext4/behaviour
rm -rf "$dir"
mkdir -p "$dir"
echo audit >"$dir/file"
chmod 755 "$dir"
chmod 644 "$dir/file"
# Every record reaches the log: no printk rate limit.
echo 0 >/proc/sys/kernel/printk_ratelimit
auditctl -D >/dev/null
auditctl -e 1 >/dev/null
auditctl -a always,exit -F arch=b64 -S newfstatat -S statx -S fstat -F uid=4242 -k sxs
: >"$OUT/audit.calls"
for c in "${CALLS[@]}"; do
	setpriv --reuid=4242 --regid=4242 --clear-groups "$PROBE" -C "$dir" "$dir/file" "$c" \
		>>"$OUT/audit.calls"
done
auditctl -D >/dev/null
auditctl -e 0 >/dev/null
dmesg | grep 'audit: type=' >"$OUT/audit.log" || true

# --- NFS: the file replaced on the server behind an open descriptor ------
start_nfsd
mount_nfs 3 /mnt/nfs3
mount_nfs 3 /mnt/nfs3.actimeo0 actimeo=0,nosharecache
for m in nfs3 nfs3.actimeo0; do
	d=replace.$m
	rm -rf "${EXPORT:?}/$d"
	mkdir -p "$EXPORT/$d"
	echo old >"$EXPORT/$d/file"
	# The server's side: a new file (a new inode, another size) renamed
	# over the old name, as an editor or a package manager replaces one.
	"$PROBE" -r "echo a-newer-and-longer-file >$EXPORT/$d/new && mv $EXPORT/$d/new $EXPORT/$d/file" \
		"/mnt/$m/$d/file" "${CALLS[@]}" >"$OUT/nfs.$m.calls"
	echo "server: $(stat -c 'ino=%i size=%s' "$EXPORT/$d/file")" >>"$OUT/nfs.$m.calls"
	# The client's working directory, replaced on the server: an empty
	# directory renamed over it, so the client's file handle is stale.
	d=cwd.$m
	rm -rf "${EXPORT:?}/$d" "${EXPORT:?}/$d.new"
	mkdir -p "$EXPORT/$d"
	"$PROBE" -C "/mnt/$m/$d" -m "/mnt/$m" \
		-r "mkdir $EXPORT/$d.new && mv -T $EXPORT/$d.new $EXPORT/$d" \
		. "${CWD_CALLS[@]}" >"$OUT/nfs.cwd.$m.calls"
done
echo "behaviour: done"
