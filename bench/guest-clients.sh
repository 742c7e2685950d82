#!/bin/bash
# guest-clients.sh - runs inside the guest: real clients (coreutils 9.1's
# ls -l, ls --color=always, stat --cached=always|never, findutils' find
# -printf, du) over one directory tree on ext4 and on NFS v3 (attribute
# cache on, and actimeo=0).  For each: the stat-family calls it makes and
# their masks and flags, what getattr is asked (traces/client_calls.bt on
# the series' events), its CPU time (perf stat task-clock: in cost mode,
# instructions, waits left out) and the NFS RPCs it causes.
#
# Usage (in the guest): bench/guest-clients.sh OUTDIR [FILES]
# Output: OUTDIR/clients/<config>.<n>.{cmd,bt,perf,rpc}, read by
# analysis/clients.py.  Needs the series' events (the patched kernel).
set -eu
OUTDIR=$1 FILES=${2:-100}
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
[ -e /sys/kernel/tracing/events/stat ] ||
	{ echo "guest-clients: no stat:* events: needs the series" >&2; exit 2; }
OUT=$OUTDIR/clients
mkdir -p "$OUT"

# make_tree DIR: FILES files of a few bytes, a directory, a symlink.
make_tree() {
	rm -rf "$1"
	mkdir -p "$1/sub"
	for i in $(seq 0 $((FILES - 1))); do echo "$i" >"$1/f$i"; done
	ln -s f0 "$1/link"
}

RPC_OPS="GETATTR LOOKUP ACCESS READDIR READDIRPLUS"
rpcs() { # rpcs MNT: the RPC counts, one line
	local op line=
	for op in $RPC_OPS; do line+="$op=$(nfs_ops "$1" "$op") "; done
	echo "$line"
}

# client CONFIG N COMM MNT LABEL COMMAND...: one measured run of COMMAND
# (LABEL: how the report names it).
client() {
	local cfg=$1 n=$2 comm=$3 mnt=$4 label=$5 base pid
	shift 5
	base=$OUT/$cfg.$n
	printf '%s\n' "$label" >"$base.cmd"
	"$@" >/dev/null 2>&1 || true	# warm: translation, dcache, attribute cache
	bpftrace -I "$REPO/traces/include" "$REPO/traces/client_calls.bt" "$comm" >"$base.bt" 2>&1 &
	pid=$!
	wait_banner "$base.bt" "$pid" || true
	{ [ -n "$mnt" ] && rpcs "$mnt"; } >"$base.rpc" || true
	perf stat -x, -e task-clock -o "$base.perf" -- "$@" >/dev/null 2>&1 || true
	{ [ -n "$mnt" ] && rpcs "$mnt"; } >>"$base.rpc" || true
	kill -INT "$pid"
	wait "$pid" || true
	echo "client $cfg $n: $label: $(sed -n 's/^\([0-9.]*\),msec,task-clock.*/\1 ms/p' "$base.perf")"
}

run_clients() { # run_clients CONFIG DIR MNT
	local cfg=$1 dir=$2 mnt=$3 files
	make_tree "$dir"
	files=("$dir"/f*)
	printf 'files=%s\nmount=%s\n' "$FILES" "$(fs_type "$dir") $(mount_options "$dir")" \
		>"$OUT/$cfg.env"
	client "$cfg" 1 ls "$mnt" "ls -l DIR" ls -l "$dir"
	client "$cfg" 2 ls "$mnt" "ls --color=always DIR" ls --color=always "$dir"
	client "$cfg" 3 stat "$mnt" "stat --cached=always DIR/f*" stat --cached=always "${files[@]}"
	client "$cfg" 4 stat "$mnt" "stat --cached=never DIR/f*" stat --cached=never "${files[@]}"
	client "$cfg" 5 find "$mnt" "find DIR -printf '%s %m %p\\n'" find "$dir" -printf '%s %m %p\n'
	client "$cfg" 6 du "$mnt" "du -s DIR" du -s "$dir"
}

run_clients ext4 /mnt/ext4/clients ""
start_nfsd
mount_nfs 3 /mnt/nfs3
run_clients nfs3 /mnt/nfs3/clients /mnt/nfs3
mount_nfs 3 /mnt/nfs3 actimeo=0
run_clients nfs3.actimeo0 /mnt/nfs3/clients /mnt/nfs3
umount /mnt/nfs3
echo "guest-clients: done"
