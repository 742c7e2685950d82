#!/bin/bash
# run.sh - boot a kernel variant in QEMU, run one command in it, return its
# exit status.
#
# Usage: vm/run.sh [options] -- COMMAND
#   -v VARIANT     kernel variant (default: patched)
#   -m MODE        cost: TCG, -icount shift=0,sleep=off, one vCPU: guest
#                  time is an exact instruction count (default); an idle
#                  guest's clock jumps to its next timer, however long
#                  the host keeps it waiting, so a guest-side timeout
#                  means nothing here;
#                  check: TCG, -icount shift=0,sleep=on, one vCPU: busy
#                  time is still one ns per instruction, idle time passes
#                  as on the host, so a guest timeout is a real one (the
#                  behaviour suites; never numbers);
#                  time: wall clock, KVM if a probe boot passes, else TCG
#                  (flagged in vm.env as accel_note)
#   -a ARGS        extra kernel command-line arguments (e.g. init_on_alloc=0)
#   -t SECONDS     kill the guest after this long (default 600)
#   -o DIR         run directory: console.log, output, status, vm.env and
#                  whatever the command writes to $IO (default: a new
#                  directory under results/vm-run/)
#   -q             do not stream the console while the guest runs
#   -s             attach /dev/vdb, a 1 MiB disk QEMU lets read once a
#                  second of host time: a read of it keeps the guest
#                  waiting on the host (tests/clock-stall.sh)
#   -c             control sockets in the run directory, for a host
#                  program that steers QEMU while the command runs
#                  (traces/mix.py): monitor.sock, QEMU's human monitor
#                  (log, logfile), and ctl.sock, the guest's /dev/ttyS1
#   -b             boot only a kernel that is built and up to date
#                  (vm/kbuild.sh --check): refuse a missing or stale one
#   -n             check the options, the command and (with -b) the
#                  kernel, then stop without booting (make vm-run does,
#                  before it builds anything)
#
# In the guest the repository is $REPO (/mnt/repo), the run directory is
# $IO (/mnt/io), an ext4 disk is mounted on /mnt/ext4 and a tmpfs on
# /mnt/tmpfs.  The host's root is the guest's, read-only, except /mnt and
# the directories vm/guest-init mounts a tmpfs on (TMPFS_DIRS: /tmp, /run,
# /root, ...): a command that names a host file there is refused (status
# 2), since the guest would not find it.  Exit status: the command's, or
# 125 for a kernel refused (missing, or stale with -b) or a guest that
# hung, panicked or never reported.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KCACHE=${KCACHE:-$HOME/.cache/statx-study}
VARIANT=patched MODE=cost APPEND='' TIMEOUT=600 RUN='' QUIET=0 STALL=0 CTL=0
BUILT=0 DRY=0
while getopts v:m:a:t:o:qscbn opt; do
	case $opt in
	v) VARIANT=$OPTARG ;;
	m) MODE=$OPTARG ;;
	a) APPEND=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	o) RUN=$OPTARG ;;
	q) QUIET=1 ;;
	s) STALL=1 ;;
	c) CTL=1 ;;
	b) BUILT=1 ;;
	n) DRY=1 ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "run.sh: no command given" >&2; exit 2; }
CMD="$*"

say() { printf '[vm] %s\n' "$*"; }
fail() { printf '[vm] error: %s\n' "$*" >&2; exit 125; }
refuse() { printf '[vm] error: %s\n' "$*" >&2; exit 2; }

# --- what the guest cannot see -------------------------------------------
# The host directories the guest hides: /mnt (its own mount points) and
# guest-init's tmpfs mounts.
tmpfs_dirs=$(sed -n 's/^TMPFS_DIRS="\(.*\)"$/\1/p' "$ROOT/vm/guest-init")
[ -n "$tmpfs_dirs" ] || fail "no TMPFS_DIRS line in vm/guest-init"
HIDDEN="/mnt $tmpfs_dirs"
# hidden_in WORD: the hidden directory that holds the existing host file a
# word of the command names, if any.  A word names a path when it starts
# with / after quotes, a redirection or NAME=; the path's name as typed and
# with the host's symbolic links followed (/var/run is /run) both count.
# A file the command itself makes in the guest's /tmp does not exist here
# and passes, and so does a hidden directory named alone (cd /tmp).
hidden_in() {
	local re="^([\"']|[0-9]*[<>]+|[A-Za-z0-9_.-]*=)*(/[^\"';|&)]*)" p d
	[[ $1 =~ $re ]] || return 1
	p=${BASH_REMATCH[2]}
	[ -e "$p" ] || [ -L "$p" ] || return 1
	for d in $HIDDEN; do
		case "$(realpath -s -m -- "$p") $(realpath -m -- "$p")" in
		"$d"/* | *" $d"/*) echo "$d $p"; return 0 ;;
		esac
	done
	return 1
}
read -r -d '' -a words <<<"$CMD" || true # every line's words
for w in "${words[@]}"; do
	hid=$(hidden_in "$w") || continue
	d=${hid%% *} p=${hid#* }
	where="put it under the repository (the guest's \$REPO, where the command runs) or in the run directory (\$IO)"
	case $p in "$ROOT"/*) where="name it relative to the repository, where the command runs (\$REPO): ${p#"$ROOT"/}" ;; esac
	refuse "the command names $p, which the guest cannot see: the guest mounts a tmpfs of its own on $d, over the host's; $where"
done

case $MODE in cost | check | time) ;; *) fail "MODE must be cost, check or time, not '$MODE'" ;; esac
KDIR=$("$ROOT/vm/kbuild.sh" --dir "$VARIANT")
if [ "$BUILT" = 1 ]; then
	# One line from kbuild.sh: missing or stale, and why.
	"$ROOT/vm/kbuild.sh" --check "$VARIANT" >/dev/null || exit 125
elif [ "$DRY" = 0 ]; then
	[ -f "$KDIR/bzImage" ] || fail "no kernel for '$VARIANT': run 'make kernel VARIANT=$VARIANT'"
fi
[ "$DRY" = 0 ] || exit 0

if [ -z "$RUN" ]; then
	RUN=$ROOT/results/vm-run/$(date +%Y%m%dT%H%M%S)-$VARIANT-$$
fi
mkdir -p "$RUN"
RUN=$(cd "$RUN" && pwd)
rm -f "$RUN/status" "$RUN/.rc" "$RUN/output" "$RUN/console.log"
printf '%s\n' "$CMD" >"$RUN/cmd"

# --- accelerator --------------------------------------------------------
# /dev/kvm proves nothing here: a guest under KVM may crawl and die with an
# emulation failure.  A short probe boot decides, once per host boot.
kvm_works() {
	[ -w /dev/kvm ] || { echo "no writable /dev/kvm"; return 1; }
	local stamp
	stamp=$KCACHE/kvm-probe.$(cat /proc/sys/kernel/random/boot_id)
	if [ ! -f "$stamp" ]; then
		local p
		p=$(mktemp -d "$KCACHE/kvm-probe.XXXXXX")
		if timeout -k 5 60 qemu-system-x86_64 -accel kvm -cpu host -m 1G \
			-smp 1 -nodefaults -no-user-config -display none -no-reboot \
			-serial "file:$p/console" -kernel "$KDIR/bzImage" \
			-append "console=ttyS0 panic=-1 init=/bin/true" \
			-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap" \
			-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
			</dev/null >"$p/qemu.log" 2>&1 &&
			grep -q 'Attempted to kill init' "$p/console"; then
			echo "ok" >"$stamp"
		else
			# QEMU's own words when it gave up, else the timeout.
			why=$(grep -m1 -E 'error|Assertion|KVM internal' "$p/qemu.log" || true)
			echo "probe boot under KVM failed: ${why:-no init within 60 s}" >"$stamp"
		fi
		rm -rf "$p"
	fi
	[ "$(cat "$stamp")" = ok ] || { cat "$stamp"; return 1; }
}

ACCEL_NOTE=
if [ "$MODE" = cost ]; then
	ACCEL=tcg
	QACCEL=(-accel tcg -cpu max -smp 1 -icount "shift=0,sleep=off")
	say "accelerator: TCG with -icount shift=0,sleep=off, 1 vCPU (cost mode: 1 guest ns = 1 instruction)"
elif [ "$MODE" = check ]; then
	ACCEL=tcg
	QACCEL=(-accel tcg -cpu max -smp 1 -icount "shift=0,sleep=on")
	say "accelerator: TCG with -icount shift=0,sleep=on, 1 vCPU (check mode: idle time passes as on the host)"
elif why=$(kvm_works); then
	ACCEL=kvm
	QACCEL=(-accel kvm -cpu host -smp 1)
	say "accelerator: KVM (probe boot passed), 1 vCPU, wall-clock time"
else
	ACCEL=tcg
	ACCEL_NOTE="TIME MODE UNDER TCG: figures are emulator speed, not hardware ($why)"
	QACCEL=(-accel tcg -cpu max -smp 1)
	say "accelerator: TCG, because KVM is unusable: $why"
	say "WARNING: $ACCEL_NOTE"
fi

# --- disk and command line ---------------------------------------------
mkdir -p "$KCACHE/disks"
DISK=$KCACHE/disks/ext4-$$.img
STALL_DISK=$KCACHE/disks/stall-$$.img
# Killed or interrupted, the launcher stops its guest and removes its
# disks: nothing is left running (tests/kill-runner.sh).
qpid='' tpid=''
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ -z "$tpid" ] || kill "$tpid" 2>/dev/null || true
	[ -z "$qpid" ] || wait "$qpid" 2>/dev/null || true
	rm -f "$DISK" "$STALL_DISK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
rm -f "$DISK"
truncate -s 2G "$DISK"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DISK"
STALL_DRIVE=()
if [ "$STALL" = 1 ]; then
	truncate -s 1M "$STALL_DISK"
	STALL_DRIVE=(-drive "file=$STALL_DISK,if=virtio,format=raw,throttling.iops-total=1")
fi

CTL_ARGS=()
if [ "$CTL" = 1 ]; then
	rm -f "$RUN/monitor.sock" "$RUN/ctl.sock"
	# shellcheck disable=SC2054 # QEMU's option values hold commas
	CTL_ARGS=(-monitor "unix:$RUN/monitor.sock,server=on,wait=off"
		-chardev "socket,id=ctl,path=$RUN/ctl.sock,server=on,wait=off"
		-device isa-serial,chardev=ctl)
fi

KAPPEND="console=ttyS0 quiet loglevel=3 panic=-1 oops=panic"
KAPPEND+=" root=/dev/root rootfstype=9p ro"
KAPPEND+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose"
KAPPEND+=" init=$ROOT/vm/guest-init sxs.repo=$ROOT sxs.disk=1"
KAPPEND+=" sxs.mode=$MODE sxs.accel=$ACCEL sxs.variant=$VARIANT"
[ -n "$APPEND" ] && KAPPEND+=" $APPEND"

QEMU_VERSION=$(qemu-system-x86_64 --version | head -1)
{
	echo "variant=$VARIANT"
	echo "release=$(cat "$KDIR/release")"
	echo "config_hash=$(cat "$KDIR/config-hash")"
	# Everything the kernel was built from, hashed (vm/kbuild.sh): two runs
	# with the same one ran the same kernel, patches included.
	echo "kernel_inputs=$(cat "$KDIR/inputs" 2>/dev/null)"
	echo "mode=$MODE"
	echo "accel=$ACCEL"
	echo "accel_note=$ACCEL_NOTE"
	echo "qemu=$QEMU_VERSION"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "kernel_append=$APPEND"
	echo "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$RUN/vm.env"
cp "$KDIR/config-diff.txt" "$RUN/config-diff.txt"
say "kernel: $(cat "$KDIR/release") ($KDIR/bzImage), 4 GiB, run dir $RUN"

# --- boot ---------------------------------------------------------------
t0=$(date +%s)
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 "${QACCEL[@]}" -m 4G \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial "file:$RUN/console.log" \
	-kernel "$KDIR/bzImage" -append "$KAPPEND" \
	-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap" \
	-device virtio-9p-pci,fsdev=root,mount_tag=/dev/root \
	-fsdev "local,id=io,path=$RUN,security_model=none" \
	-device virtio-9p-pci,fsdev=io,mount_tag=sxsio \
	-drive "file=$DISK,if=virtio,format=raw,cache=unsafe" "${STALL_DRIVE[@]}" \
	"${CTL_ARGS[@]}" \
	</dev/null >"$RUN/qemu.log" 2>&1 &
qpid=$!
if [ $QUIET = 0 ]; then
	# Stream the command's part of the console while the guest runs.
	touch "$RUN/console.log"
	tail -n +1 -f --pid=$qpid "$RUN/console.log" 2>/dev/null |
		sed -n '/^\[guest\] running:/,$p' &
	tpid=$!
fi
qrc=0
wait $qpid || qrc=$?
qpid=''
[ $QUIET = 1 ] || wait "$tpid" 2>/dev/null || true
tpid=''
secs=$(($(date +%s) - t0))

# What a crashed guest kernel prints.
CRASH_RE='Kernel panic|BUG: |Oops:|general protection fault'
tail_console() {
	grep -m1 -E "$CRASH_RE" "$RUN/console.log" |
		sed 's/^/--- first crash line: /' || true
	echo "--- last lines of $RUN/console.log:"
	tail -n 30 "$RUN/console.log"
}
if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	tail_console >&2
	fail "guest killed after the ${TIMEOUT}s timeout (hung?); console: $RUN/console.log"
fi
if grep -qE "$CRASH_RE" "$RUN/console.log"; then
	tail_console >&2
	fail "guest kernel crashed (see above); console: $RUN/console.log"
fi
[ $qrc = 0 ] || { cat "$RUN/qemu.log" >&2; fail "QEMU exited with status $qrc"; }
[ -f "$RUN/status" ] || { tail_console >&2; fail "guest ended without reporting a status"; }
rc=$(cat "$RUN/status")
say "guest command exit status $rc after ${secs}s (run dir $RUN)"
exit "$rc"
