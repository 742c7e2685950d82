#!/bin/bash
# guest-bench.sh - runs inside the guest: set up each file system, run the
# harness on it, leave one JSON file per configuration in OUTDIR.
#
# Usage (in the guest): bench/guest-bench.sh OUTDIR VARIANT MODE QUICK [SCOPE]
# Configurations: ext4 (virtio disk), tmpfs, NFS v3 and v4.2 served by the
# guest's own knfsd over 127.0.0.1, with the attribute cache on and off
# (actimeo=0) and, unless QUICK, netem delays of 200 us and 2 ms on lo.
# SCOPE "local" stops after ext4 and tmpfs (bench/run.sh's init_on_alloc=0
# boots: the zeroing is getname()'s, the same on every file system).
# SCOPE "prefix" adds the NFS mounts without an attribute cache (a partial
# series: each patch's own step on ext4, and on NFS where a difference
# between the base and the whole series is bisected).  SCOPE "afs" runs
# the AFS configuration alone: an OpenAFS cell in the guest (vm/afs-lib.sh)
# mounted by kafs, on a kernel that has it (VARIANT=afs); the other scopes
# never run it.
set -eu

OUTDIR=$1 VARIANT=$2 MODE=$3 QUICK=${4:-0} SCOPE=${5:-all}
case $SCOPE in all | local | prefix | afs) ;;
*) echo "guest-bench: SCOPE is all, local, prefix or afs, not $SCOPE" >&2; exit 2 ;;
esac
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=$REPO/build/statx-bench
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
# shellcheck source=../vm/afs-lib.sh
. "$REPO/vm/afs-lib.sh"
mkdir -p "$OUTDIR"

# Facts every configuration records.
INIT_ON_ALLOC=$(grep -o 'init_on_alloc=[01]' /proc/cmdline | cut -d= -f2 || true)
if [ -z "$INIT_ON_ALLOC" ]; then
	INIT_ON_ALLOC=$(zcat /proc/config.gz | grep -q '^CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y' && echo 1 || echo 0)
	INIT_ON_ALLOC="$INIT_ON_ALLOC (config default)"
fi
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
CMDLINE=$(cat /proc/cmdline)

quick=()
[ "$QUICK" = 1 ] && quick=(--quick)
# Time mode under TCG times the emulator: the harness refuses it unless
# asked, and then marks every results file with a warning.
tcg=()
[ "$MODE" = time ] && [ "${ALLOW_TCG_TIME:-0}" = 1 ] && tcg=(--allow-tcg-time)

# The file-system configurations, a line each, in the order they run.
# Adding one is adding a line: the analysis reads labels, file systems
# and the env facts below from the results, never from a list of its own.
#   label    names the configuration in results.json (unique)
#   fs       the harness's --fs check (ext4, tmpfs, nfs, afs)
#   scope    local: every boot but SCOPE=afs; prefix: SCOPE=all and
#            prefix boots; nfs: SCOPE=all boots; full: nor in QUICK runs;
#            afs: SCOPE=afs boots only
#   vers     NFS version (- for a local file system)
#   opts     extra NFS mount options (- for none)
#   netem    delay on lo in microseconds, both ways
CONFIGS='
ext4                      ext4   local  -    -          0
tmpfs                     tmpfs  local  -    -          0
nfs3                      nfs    nfs    3    -          0
nfs3.actimeo0             nfs    prefix 3    actimeo=0  0
nfs3.actimeo0.netem200    nfs    full   3    actimeo=0  200
nfs3.actimeo0.netem2000   nfs    full   3    actimeo=0  2000
nfs4                      nfs    nfs    4.2  -          0
nfs4.actimeo0             nfs    prefix 4.2  actimeo=0  0
nfs4.actimeo0.netem200    nfs    full   4.2  actimeo=0  200
nfs4.actimeo0.netem2000   nfs    full   4.2  actimeo=0  2000
afs                       afs    afs    -    -          0
'

# run_fs LABEL FS DIR NFSMOUNT [ENV...]: one configuration; the harness
# options in the array AFS (empty but for AFS) are added.
AFS=()
# Cost mode: each call's busy time beside its clock (the clock of a call
# that waits on an RPC jumps while the guest idles; the busy time is the
# instructions every part of the guest ran for it).
BUSY=()
[ "$MODE" != cost ] || BUSY=(--busy)
run_fs() {
	local label=$1 fs=$2 dir=$3 nfsmnt=$4
	shift 4
	local extra=("${AFS[@]}")
	# Cases tagged local (name length: getname()'s cost, the same on every
	# file system) run on ext4 and tmpfs, not again on every NFS one.
	[ -n "$nfsmnt" ] && extra+=(--nfs-mount "$nfsmnt" --skip-tags local)
	extra+=("${BUSY[@]}")
	for e in "$@"; do extra+=(--env "$e"); done
	mkdir -p "$dir"
	echo "== $label: $fs on $dir ($(mount_options "$dir"))"
	"$BIN" --dir "$dir" --fs "$fs" --variant "$VARIANT" --mode "$MODE" \
		"${quick[@]}" "${tcg[@]}" --label "$label" --json "$OUTDIR/$label.json" \
		--env "variant=$VARIANT" --env "cpu=$CPU" --env "init_on_alloc=$INIT_ON_ALLOC" \
		--env "kernel_cmdline=$CMDLINE" --env "mount=$(fs_type "$dir") $(mount_options "$dir")" \
		--env "cache_state=hot (files made by the harness, then warmed)" \
		--env "files=1 file, 1 symlink, 3 directories deep" \
		"${extra[@]}"
}

# What one name costs in memory: the slab objects getname() takes (SLUB's
# size per object, metadata included; filename_cache exists with patch 4).
slab=()
for cache in names_cache filename_cache; do
	f=/sys/kernel/slab/$cache/slab_size
	[ -r "$f" ] && slab+=(--env "slab_$cache=$(cat "$f")")
done

# The user-space calibration and the syscall floor need no file.
"$BIN" --mode "$MODE" --variant "$VARIANT" --label floor --json "$OUTDIR/floor.json" \
	--env "variant=$VARIANT" --env "cpu=$CPU" --env "init_on_alloc=$INIT_ON_ALLOC" \
	"${slab[@]}" "${tcg[@]}" "${BUSY[@]}"

# What the system call number costs: x64_sys_call()'s compare tree, read
# from the running kernel (bench/dispatch.py).  A report input, not a case:
# its failure is a warning.  DISPATCH=0 leaves it out (bench/run.sh's
# second boot of a kernel, with init_on_alloc=0: the same code).
if [ "${DISPATCH:-1}" = 1 ]; then
	python3 "$REPO/bench/dispatch.py" -o "$OUTDIR/dispatch.json" ||
		echo "guest-bench: WARNING: bench/dispatch.py failed; no dispatch counts"
fi

nfsd=0 mounted='' mnt='' n=0
while read -r label fs scope vers opts netem; do
	[ -n "$label" ] || continue
	[ "$SCOPE" = local ] && [ "$scope" != local ] && continue
	{ [ "$SCOPE" = prefix ] && [ "$scope" != local ] && [ "$scope" != prefix ]; } && continue
	[ "$QUICK" = 1 ] && [ "$scope" = full ] && continue
	{ [ "$SCOPE" = afs ] && [ "$scope" != afs ]; } && continue
	{ [ "$SCOPE" != afs ] && [ "$scope" = afs ]; } && continue
	if [ "$fs" = afs ]; then
		start_afs_cell
		afs_hist_on
		# The stale cases: the peer client appends to the file (the
		# harness names it in $STATX_BENCH_FILE), which breaks this
		# client's callback on it.
		# shellcheck disable=SC2016 # expanded by the peer's shell
		# The symlink's: the harness makes it anew (--stale-symlink).
		AFS=(--afs-ops --skip-tags local --stale-symlink
			--stale-cmd "$(afs_peer_cmd 'echo x >>"bench/$STATX_BENCH_FILE"')")
		servers="afs_servers=OpenAFS $(dpkg-query -W -f='${Version}' openafs-fileserver 2>/dev/null) (demand-attach), NoAuth, in the guest"
		run_fs "$label" afs "$AFS_MNT/bench" "" "afs_cell=$AFS_CELL" "$servers"
		AFS=()
	elif [ "$fs" != nfs ]; then
		run_fs "$label" "$fs" "/mnt/$fs/bench" "" "netem_us=$netem"
	else
		[ "$nfsd" = 1 ] || { start_nfsd; nfsd=1; }
		[ "$opts" = - ] && opts=''
		actimeo=default
		case ,$opts, in *,actimeo=*) actimeo=${opts#*actimeo=} actimeo=${actimeo%%,*} ;; esac
		# Mounted again when the version or the options change; one
		# version's mount is gone before the next one's.
		if [ "$mounted" != "$vers $opts" ]; then
			[ "${mnt:-}" ] && [ "$mnt" != "/mnt/nfs${vers%%.*}" ] && umount "$mnt"
			mnt=/mnt/nfs${vers%%.*}
			mount_nfs "$vers" "$mnt" "$opts"
			mounted="$vers $opts"
		fi
		set_netem "$netem"
		run_fs "$label" nfs "$mnt/bench-nfs${vers%%.*}" "$mnt" \
			"actimeo=$actimeo" "netem_us=$netem" "nfs_vers=$vers" \
			"nfsd_grace=ended before the mount (knfsd's v4 and lockd's)"
	fi
	n=$((n + 1))
done <<<"$CONFIGS"
if [ -n "$mnt" ]; then
	set_netem 0
	umount "$mnt"
fi
echo "guest-bench: done, $n configurations ($(find "$OUTDIR" -name "*.json" | wc -l) files in $OUTDIR)"
