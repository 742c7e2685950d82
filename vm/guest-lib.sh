# guest-lib.sh - helpers for commands that run inside the guest.
# Source it; it defines functions only.  Needs the guest init's mounts
# (tmpfs on /var/lib/nfs and /run, ext4 on /mnt/ext4).
# shellcheck shell=bash

EXPORT=/mnt/ext4/export

# start_nfsd: knfsd over loopback, exporting $EXPORT (ext4)
# as the v4 pseudo-root, out of its grace periods when it returns.
#
# Nothing here has state to reclaim, so no grace period is kept: knfsd's
# NFSv4 one ends at once (v4_end_grace), and lockd's, which knfsd starts
# beside it, is made as short as lockd allows and waited out.  Both
# matter: knfsd grants no NFSv4 delegation while any lock manager is in
# grace (locks_in_grace() in nfs4_open_delegation()), and lockd's lasts
# five nlm_timeouts, 50 s by default.  Whether a configuration met it
# used to depend on how much ran before it in the boot: fstat() on NFSv4
# with actimeo=0 made no GETATTR when a delegation was held, one when
# not.  NFSD_KEEP_GRACE=1 keeps both (traces/nfs4-delegation.sh measures
# them).
start_nfsd() {
	[ -e /proc/fs/nfsd/threads ] && [ "$(cat /proc/fs/nfsd/threads)" != 0 ] && return 0
	local keep=${NFSD_KEEP_GRACE:-0}
	mkdir -p "$EXPORT" /var/lib/nfs/sm /var/lib/nfs/v4recovery /run/rpcbind
	touch /var/lib/nfs/etab /var/lib/nfs/rmtab
	mount -t nfsd nfsd /proc/fs/nfsd
	if [ "$keep" != 1 ]; then
		# roundup(nlm_grace_period, nlm_timeout) seconds: 3.
		echo 3 >/proc/sys/fs/nfs/nlm_timeout
		echo 1 >/proc/sys/fs/nfs/nlm_grace_period
	fi
	rpcbind -w
	exportfs -o rw,no_root_squash,no_subtree_check,fsid=0 "127.0.0.1:$EXPORT"
	rpc.mountd
	rpc.nfsd 4
	[ "$keep" = 1 ] && return 0
	echo Y >/proc/fs/nfsd/v4_end_grace
	# lockd's grace ends in a delayed work after 3 s.  Idle, the guest's
	# clock jumps in cost mode, so this costs little; 5 s leaves room.
	sleep 5
}

# host_seconds: the host's wall clock in whole seconds (the CMOS RTC,
# which QEMU drives from the host's clock).  In cost mode the guest's own
# clock jumps while the host keeps an idle guest waiting, so a guest-side
# wait bounded by it can end long before the host has answered.
host_seconds() {
	cat /sys/class/rtc/rtc0/since_epoch
}

# wait_banner FILE PID [REGEX]: wait, up to 120 host seconds, until FILE
# has a line matching REGEX (default: bpftrace's "Hit Ctrl-C", printed once
# its probes are attached) or PID has exited.  Status 0 only for the banner.
wait_banner() {
	local file=$1 pid=$2 re=${3:-Hit Ctrl-C} end
	end=$(($(host_seconds) + 120))
	while [ "$(host_seconds)" -le "$end" ]; do
		grep -qE "$re" "$file" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# bt SCRIPT OUT WORKLOAD...: run traces/SCRIPT (bpftrace) around one
# workload, its output in OUT.
bt() {
	local script=$1 out=$2 pid
	shift 2
	bpftrace -I "$REPO/traces/include" "$REPO/traces/$script" >"$out" 2>&1 &
	pid=$!
	wait_banner "$out" "$pid" || echo "trace: $script did not attach; see $out"
	"$@"
	kill -INT "$pid"
	wait "$pid" || true
}

# trace_sites OUT DIR HOLD CALL [MASK [FLAGS]]: where each NFS RPC of 20
# calls of stat_n CALL on DIR/d1/d2/d3/file (made here) comes from
# (traces/nfs_getattr_sites.bt), run from DIR.  HOLD: "open" holds the
# file open meanwhile, as the benchmark's harness does; "deleg" the same
# on NFSv4, until knfsd holds a read delegation for it (the first open
# after the file was written gets none: it is opened again, up to five
# times, a second apart, else this fails); "closed" opens nothing.  The
# open happens before the trace starts, so its own RPCs are not counted.
# OUT gets bpftrace's maps, the calls and each component's fileid
# (analysis/nfs_sites.py).
trace_sites() {
	local out=$1 dir=$2 hold=$3 call=$4 f i
	shift 4
	f=$dir/d1/d2/d3/file
	mkdir -p "$dir/d1/d2/d3"
	echo data >"$f"
	case $hold in
	open) exec 8<"$f" ;;
	deleg)
		for i in 1 2 3 4 5; do
			exec 8<"$f"
			# knfsd's states name a file by its parent and name.
			grep -qs 'type: deleg, access: r, .*filename: "d3/file"' /proc/fs/nfsd/clients/*/states && break
			exec 8<&-
			[ "$i" = 5 ] && { echo "trace_sites: no read delegation for $f after 5 opens" >&2; return 1; }
			sleep 1
		done
		;;
	closed) ;;
	*) echo "trace_sites: HOLD is open, deleg or closed, not $hold" >&2; return 2 ;;
	esac
	bt nfs_getattr_sites.bt "$out" sh -c \
		"cd $dir && exec $REPO/build/stat_n $call 20 d1/d2/d3/file $*"
	[ "$hold" = closed ] || exec 8<&-
	echo "calls 20" >>"$out"
	(cd "$dir" && stat -c 'fileid %i %n' . d1 d1/d2 d1/d2/d3 d1/d2/d3/file) >>"$out"
}

# mount_nfs VERS MNT [OPTIONS]: mount the export over loopback.
mount_nfs() {
	local vers=$1 mnt=$2 opts=${3:-}
	mkdir -p "$mnt"
	umount "$mnt" 2>/dev/null || true
	if [ "$vers" = 3 ]; then
		mount -t nfs -o "vers=3,nolock${opts:+,$opts}" "127.0.0.1:$EXPORT" "$mnt"
	else
		mount -t nfs -o "vers=$vers${opts:+,$opts}" 127.0.0.1:/ "$mnt"
	fi
}

# set_netem USEC: delay every packet on lo by USEC microseconds (0: none).
set_netem() {
	tc qdisc del dev lo root 2>/dev/null || true
	[ "$1" = 0 ] || tc qdisc add dev lo root netem delay "${1}us"
}

# boot_arg KEY: the value of KEY=VALUE on the kernel command line (vm/run.sh
# sets sxs.mode, sxs.accel, sxs.variant); empty when it is not there.
boot_arg() {
	local w words
	read -r -a words </proc/cmdline
	for w in "${words[@]}"; do
		case $w in "$1"=*) echo "${w#*=}"; return 0 ;; esac
	done
}

# mount_options DIR: the options of the mount DIR is on.
mount_options() {
	findmnt -n -o OPTIONS --target "$1"
}

# fs_source DIR: file system type and source of the mount DIR is on.
fs_type() {
	findmnt -n -o FSTYPE --target "$1"
}

# mount_devices: a line per mount, "MAJOR:MINOR TYPE", from the mount table.
# The stat:* events name a file system by its device only; this names it.
mount_devices() {
	awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $3, $(i + 1); break } }' \
		/proc/self/mountinfo
}

# nfs_ops MNT OP: operations count of OP (GETATTR, ...) for mount MNT.
nfs_ops() {
	awk -v m="$1" -v op="$2:" '
		$1 == "device" { on = ($5 == m) }
		on && $1 == op { print $2; exit }' /proc/self/mountstats
}
