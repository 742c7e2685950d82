#!/bin/bash
# nfs4-delegation.sh - runs inside the guest: does knfsd hand the client a
# read delegation when the benchmark holds the file open, and is that why
# NFSv4 with actimeo=0 makes no GETATTR for fstat() and one fewer for a
# stat() by path?  Runs of the harness on an NFSv4.2 mount with actimeo=0,
# each inside its own bpftrace session (nfs4_delegation.bt), first while
# knfsd is in its grace period (just started: it grants no delegation
# then), then the same after it (PHASE.after_grace), then:
#   path   stat by path, no descriptor open on the file
#   fd     the same stat while the harness holds the file open (its fstat
#          case's descriptor, opened before any case is measured), and
#          fstat on that descriptor
#   bench  after the grace period, as bench/guest-bench.sh runs them (its
#          NFS configurations come long after knfsd starts): every NFS case (--skip-tags
#          local) on a mount with the attribute cache (its nfs4
#          configuration, untimed here), then the mount again with
#          actimeo=0 and every case once more in the same directory
#          (nfs4.actimeo0, the counts kept); one bpftrace session over both
# Usage (in the guest): traces/nfs4-delegation.sh OUTDIR VARIANT
# Writes OUTDIR/deleg.PHASE.json (the harness's file: GETATTRs per call
# from mountstats), OUTDIR/deleg.PHASE.bt (bpftrace's output: the
# delegation events) and OUTDIR/grace (knfsd's grace period, seconds),
# read by analysis/delegation.py.
set -eu
OUTDIR=$1 VARIANT=$2
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
B=$REPO/build/statx-bench
[ -x "$B" ] || { echo "nfs4-delegation: no $B: run 'make -C bench'" >&2; exit 2; }
mode=$(boot_arg sxs.mode)
mkdir -p "$OUTDIR"
NFSD_KEEP_GRACE=1 start_nfsd
mount_nfs 4.2 /mnt/nfs4 actimeo=0

# trace_start NAME / trace_stop: one bpftrace session, its output in
# OUTDIR/deleg.NAME.bt.
trace_start() {
	bpftrace -I "$REPO/traces/include" "$REPO/traces/nfs4_delegation.bt" \
		>"$OUTDIR/deleg.$1.bt" 2>&1 &
	tpid=$!
	if ! wait_banner "$OUTDIR/deleg.$1.bt" "$tpid"; then
		echo "nfs4-delegation: bpftrace did not attach:" >&2
		cat "$OUTDIR/deleg.$1.bt" >&2
		exit 1
	fi
}
trace_stop() {
	kill -INT "$tpid"
	wait "$tpid" || true
}

# bench_run NAME JSON ARGS...: the harness on /mnt/nfs4/deleg-NAME.
bench_run() {
	local name=$1 json=$2 dir=/mnt/nfs4/deleg-$1
	shift 2
	mkdir -p "$dir"
	"$B" --dir "$dir" --fs nfs --variant "$VARIANT" --mode "$mode" "$@" \
		--samples 3 --nfs-mount /mnt/nfs4 --label "nfs4.deleg.$name" \
		--env "mount=$(fs_type "$dir") $(mount_options "$dir")" --json "$json"
}

# phases SUFFIX: stat with nothing open, then with the file open, each in
# a fresh directory (no delegation left from another phase).
phases() {
	local ph a
	for ph in "path --cases stat" "fd --cases stat,fstat"; do
		read -r -a a <<<"$ph"
		trace_start "${a[0]}$1"
		bench_run "${a[0]}$1" "$OUTDIR/deleg.${a[0]}$1.json" "${a[@]:1}"
		trace_stop
	done
}

grace=$(cat /proc/fs/nfsd/nfsv4gracetime)
echo "$grace" >"$OUTDIR/grace"
phases ""
# Idle, the guest's clock jumps (-icount sleep=off): this takes little time.
echo "== waiting out knfsd's grace period ($grace s)"
sleep $((grace + 5))
phases .after_grace
trace_start bench
mount_nfs 4.2 /mnt/nfs4
bench_run bench "$OUTDIR/deleg.bench-cached.json" --skip-tags local
mount_nfs 4.2 /mnt/nfs4 actimeo=0
bench_run bench "$OUTDIR/deleg.bench.json" --skip-tags local
trace_stop
umount /mnt/nfs4
