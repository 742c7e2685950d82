#!/bin/bash
# guest-scale.sh - runs inside the guest: the scaling and workload study
# (the harness's cases tagged scale, bench/cases.c) on ext4, tmpfs and
# NFS v3, then fio's filestat engine on the same files as a peer.
#
# Usage (in the guest): bench/guest-scale.sh OUTDIR VARIANT [QUICK] [PART]
#   QUICK=1: directories of up to 1000 files (else up to 100000; NFS up to
#   10000, its creates are slow under TCG)
#   PART: main (ext4, tmpfs, NFS v3 with its attribute cache, fio),
#   actimeo0 (NFS v3 with actimeo=0, up to 1000 files, one measured pass
#   per point: every statx asks the server, unless AT_STATX_DONT_SYNC), or
#   all (the default: both)
# Output: OUTDIR/scale-<fs>.json (the harness's file, bench/schema.json)
# and OUTDIR/fio-<fs>-<stat_type>.json (fio --output-format=json).
#
# fio 3.33's filestat engine (engines/filestat.c) times one call per file
# open: stat_type=stat is stat(name), lstat is lstat(name), and statx is
# realpath(name) (glibc: getcwd, readlink) then statx(-1, absolute path,
# 0, STATX_ALL): three system calls and a malloc per "statx".
set -eu

OUTDIR=$1 VARIANT=$2 QUICK=${3:-0} PART=${4:-all}
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=$REPO/build/statx-bench
FIO_FILES=1000
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"

release=$(uname -r)
case $release in
*-"$VARIANT") ;;
*) echo "guest-scale: refusing: kernel $release is not variant $VARIANT" >&2; exit 4 ;; # EXIT_REFUSE_KERNEL
esac
[ -x "$BIN" ] || { echo "guest-scale: no $BIN: run 'make -C bench'" >&2; exit 2; }
command -v fio >/dev/null || { echo "guest-scale: no fio in the guest" >&2; exit 2; }
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

mode=$(boot_arg sxs.mode)
[ -n "$mode" ] || { echo "guest-scale: no sxs.mode= on the kernel command line" >&2; exit 2; }

# run_scale LABEL DIR MAX_FILES [ARGS...]: the study on one file system;
# QUICK=1 stops at 1000 files.  Three samples per point (one above 1000
# files): cost mode is exact, the spread shows what is not.
run_scale() {
	local label=$1 dir=$2 max=$3 fs
	shift 3
	[ "$QUICK" = 1 ] && [ "$max" -gt 1000 ] && max=1000
	case $label in nfs*) fs=nfs ;; *) fs=$label ;; esac
	mkdir -p "$dir"
	echo "== scale $label: $dir ($(fs_type "$dir") $(mount_options "$dir"))"
	"$BIN" --dir "$dir" --fs "$fs" --variant "$VARIANT" --mode "$mode" --tags scale \
		--samples 3 --max-files "$max" --label "$label" --json "$OUTDIR/scale-$label.json" \
		--env "variant=$VARIANT" --env "mount=$(fs_type "$dir") $(mount_options "$dir")" \
		--env "cold=sync; echo 3 > /proc/sys/vm/drop_caches before each cold sample" \
		"$@"
}

# run_fio LABEL DIR: one fio job per stat_type on DIR/files/f0..f999,
# the files the harness made (fio lays them out to 4 KiB first).  The clock
# is clock_gettime, so in cost mode fio's latencies are instructions too.
run_fio() {
	local label=$1 dir=$2 type
	for type in stat lstat statx; do
		echo "== fio $label: filestat stat_type=$type, $FIO_FILES files in $dir/files"
		# shellcheck disable=SC2016 # $filenum is fio's, not ours
		(cd "$dir/files" && fio --name="filestat-$label-$type" \
			--ioengine=filestat --stat_type="$type" \
			--nrfiles="$FIO_FILES" --filename_format='f$filenum' \
			--filesize=4k --loops=3 --clocksource=clock_gettime \
			--output-format=json --output="$OUTDIR/fio-$label-$type.json")
		python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["read"]["clat_ns"]
print("fio %s: %d ops, mean %.1f, median %s per op" % (sys.argv[2], j["N"], j["mean"],
      j["percentile"]["50.000000"]))' "$OUTDIR/fio-$label-$type.json" "$label.$type"
	done
}

case $PART in
all | main | actimeo0) ;;
*) echo "guest-scale: PART is all, main or actimeo0, not $PART" >&2; exit 2 ;;
esac
if [ "$PART" != actimeo0 ]; then
	run_scale ext4 /mnt/ext4/scale 100000
	run_scale tmpfs /mnt/tmpfs/scale 100000
fi
start_nfsd
if [ "$PART" != actimeo0 ]; then
	mount_nfs 3 /mnt/nfs3
	run_scale nfs3 /mnt/nfs3/scale 10000 --nfs-mount /mnt/nfs3
	umount /mnt/nfs3
fi
if [ "$PART" != main ]; then
	mount_nfs 3 /mnt/nfs3 actimeo=0
	# One measured pass per point, not three: every call is RPCs here, and
	# this boot was the longest of make bench.
	run_scale nfs3.actimeo0 /mnt/nfs3/scale-actimeo0 1000 --nfs-mount /mnt/nfs3 \
		--samples 1
	umount /mnt/nfs3
fi
if [ "$PART" != actimeo0 ]; then
	run_fio ext4 /mnt/ext4/scale
	run_fio tmpfs /mnt/tmpfs/scale
fi
echo "guest-scale: done ($(find "$OUTDIR" -name "*.json" | wc -l) files in $OUTDIR)"
