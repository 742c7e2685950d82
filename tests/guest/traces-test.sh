#!/bin/bash
# traces-test.sh - runs inside the guest (patched kernel): each traces/
# script, run against a known workload (tests/guest/stat_n.c: N calls),
# must count exactly N.
set -eu
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
N=23
D=/mnt/ext4/traces-test
mkdir -p "$D"
echo data >"$D/file"
OUT=${IO:-/tmp}/traces-test
mkdir -p "$OUT"
fails=0
# The scripts key by device (major, minor): /mnt/ext4's, as bpftrace prints it.
E=$(awk '$5 == "/mnt/ext4" { split($3, d, ":"); print d[1] ", " d[2]; exit }' /proc/self/mountinfo)
[ -n "$E" ] || { echo "traces-test: /mnt/ext4 is not in the mount table"; exit 1; }

# trace NAME SCRIPT [ARGS]: start SCRIPT, wait for its banner; the caller
# runs the workload and then calls untrace.
trace() {
	local name=$1 script=$2
	shift 2
	bpftrace -I "$REPO/traces/include" "$REPO/traces/$script" "$@" >"$OUT/$name.out" 2>&1 &
	BT=$!
	wait_banner "$OUT/$name.out" "$BT" && return 0
	echo "FAIL: $script did not start:"
	cat "$OUT/$name.out"
	fails=$((fails + 1))
	return 1
}
untrace() {
	kill -INT "$BT"
	wait "$BT" || true
}
expect() { # expect NAME LINE: the script's output has LINE
	if grep -qxF "$2" "$OUT/$1.out"; then
		echo "ok: $1: $2"
	else
		echo "FAIL: $1: no line '$2' in:"
		cat "$OUT/$1.out"
		fails=$((fails + 1))
	fi
}
S="$REPO/build/stat_n"

if trace latency getattr_latency.bt stat_n; then
	"$S" statx $N "$D/file" 0x200
	untrace
	expect latency "@calls[$E]: $N"
fi
if trace masks getattr_masks.bt stat_n; then
	"$S" statx $N "$D/file" 0x200
	untrace
	expect masks "@calls[$E, 512, 2047]: $N"
	expect masks "@more[$E, 512]: $N"
fi
if trace callers getattr_callers.bt; then
	"$S" stat $N "$D/file"
	"$S" statx $N "$D/file" 0x1
	"$S" fstat $N "$D/file"
	untrace
	expect callers "@syscall[$E, newfstatat]: $N"
	expect callers "@syscall[$E, statx]: $N"
	expect callers "@syscall[$E, newfstat]: $N"
fi
if trace stages stat_stages.bt stat_n; then
	"$S" statx $N "$D/file" 0x7ff
	untrace
	expect stages "@calls[$E]: $N"
	grep -q "^@stage_ns\\[$E, 2 getattr\\]: [0-9]" "$OUT/stages.out" ||
		{ echo "FAIL: stages: no getattr stage"; fails=$((fails + 1)); }
fi
if trace clients client_calls.bt stat_n; then
	"$S" statx $N "$D/file" 0x200 0x4000
	"$S" stat $N "$D/file"
	untrace
	expect clients "@calls[statx, 512, 16384]: $N"
	expect clients "@calls[newfstatat, 0, 0]: $N"
	expect clients "@getattr[$E, 512, 16384]: $N"
	expect clients "@getattr[$E, 2047, 0]: $N"
fi

# probe-count (the probe study's loader): N stat() calls are N hits more
# than none, at every attach point this kernel has.
hits() { # hits KIND TARGET CALLS: probe-count's total around stat_n CALLS
	"$REPO/build/probe-count" "$1" "$2" "$S" stat "$3" "$D/file" >"$OUT/pc.out" 2>&1 || true
	sed -n 's/^hits //p' "$OUT/pc.out"
}
for probe in "tracepoint stat:vfs_getattr_enter" "raw_tp vfs_getattr_enter" \
	"kprobe vfs_getattr_nosec" "kretprobe vfs_getattr_nosec"; do
	read -r kind target <<<"$probe"
	h0=$(hits "$kind" "$target" 0)
	h1=$(hits "$kind" "$target" $N)
	if [ -n "$h0" ] && [ -n "$h1" ] && [ $((h1 - h0)) = $N ]; then
		echo "ok: probe-count $kind: $N calls, $((h1 - h0)) more hits ($h0 without them)"
	else
		echo "FAIL: probe-count $kind $target: '$h1' hits with $N calls, '$h0' with none"
		cat "$OUT/pc.out"
		fails=$((fails + 1))
	fi
done

# NFS: GETATTR RPCs seen by nfs_getattr.bt against /proc/self/mountstats.
start_nfsd
mount_nfs 3 /mnt/nfs3 actimeo=0
mkdir -p /mnt/nfs3/tt
echo data >/mnt/nfs3/tt/file
if trace nfs nfs_getattr.bt stat_n; then
	g0=$(nfs_ops /mnt/nfs3 GETATTR)
	"$S" statx $N /mnt/nfs3/tt/file 0x200 0x4000
	g1=$(nfs_ops /mnt/nfs3 GETATTR)
	untrace
	expect nfs "@calls[1, 512, 16384]: $N"
	seen=$(sed -n 's/^@rpc_getattr\[.*\]: //p' "$OUT/nfs.out" | awk '{s += $1} END {print s + 0}')
	if [ "$seen" = $((g1 - g0)) ] && [ "$seen" -gt 0 ]; then
		echo "ok: nfs: $seen GETATTR RPCs traced = mountstats delta $((g1 - g0))"
	else
		echo "FAIL: nfs: $seen GETATTR RPCs traced, mountstats says $((g1 - g0))"
		cat "$OUT/nfs.out"
		fails=$((fails + 1))
	fi
fi

# nfs_getattr_sites.bt: the GETATTRs of N stat() calls, and those outside
# them, add up to mountstats's count; each in the calls is attributed to a
# VFS step, an NFS function and an inode.
mkdir -p /mnt/nfs3/ts/d1/d2/d3
echo data >/mnt/nfs3/ts/d1/d2/d3/file
# The workload's shell changes directory; this one stays off the mount.
if trace sites nfs_getattr_sites.bt stat_n; then
	g0=$(nfs_ops /mnt/nfs3 GETATTR)
	sh -c "cd /mnt/nfs3/ts && exec $S stat $N d1/d2/d3/file"
	g1=$(nfs_ops /mnt/nfs3 GETATTR)
	untrace
	echo "calls $N" >>"$OUT/sites.out"
	(cd /mnt/nfs3/ts && stat -c 'fileid %i %n' . d1 d1/d2 d1/d2/d3 d1/d2/d3/file) >>"$OUT/sites.out"
	# (No process substitution: the guest has no /dev/fd.)
	res=$(python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import nfs_sites
s = nfs_sites.parse(open(sys.argv[2]).read())
import re
out = sum(int(n) for n in re.findall(r"^@outside\[.*, GETATTR\]: (\d+)$", open(sys.argv[2]).read(), re.M))
print(sum(r["count"] for r in s["rpcs"] if r["proc"] == "GETATTR"), out,
      sum(r["count"] for r in s["rpcs"] if nfs_sites.UNATTRIBUTED in (r["step"], r["nfs"], r["component"])))' \
		"$REPO/analysis" "$OUT/sites.out")
	read -r seen outside loose <<<"$res"
	if [ $((seen + outside)) = $((g1 - g0)) ] && [ "$seen" -gt 0 ] && [ "$loose" = 0 ]; then
		echo "ok: sites: $seen GETATTR RPCs in the calls + $outside outside = mountstats delta, every one in the calls attributed"
	else
		echo "FAIL: sites: $seen GETATTR RPCs in the calls + $outside outside, mountstats says $((g1 - g0)), $loose unattributed"
		cat "$OUT/sites.out"
		fails=$((fails + 1))
	fi
fi
umount /mnt/nfs3
echo "traces-test: $fails failures"
[ "$fails" = 0 ]
