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
# analysis/clients.py, and per configuration the bpftrace session they
# were split from (<config>.{session.bt,warm,order}).  Needs the series' events (the patched kernel).
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

# client PASS CONFIG N COMM MNT LABEL COMMAND...: PASS "warm" runs COMMAND
# once unmeasured (translation, dcache, attribute cache) and notes its pid;
# "measure" runs it under perf stat, with the RPC counts around it (LABEL:
# how the report names it).
client() {
	local pass=$1 cfg=$2 n=$3 comm=$4 mnt=$5 label=$6 base
	shift 6
	base=$OUT/$cfg.$n
	if [ "$pass" = warm ]; then
		"$@" >/dev/null 2>&1 &
		echo $! >>"$OUT/$cfg.warm"
		wait $! || true
		return 0
	fi
	printf '%s\n' "$label" >"$base.cmd"
	echo "$n $comm" >>"$OUT/$cfg.order"
	{ [ -n "$mnt" ] && rpcs "$mnt"; } >"$base.rpc" || true
	perf stat -x, -e task-clock -o "$base.perf" -- "$@" >/dev/null 2>&1 || true
	{ [ -n "$mnt" ] && rpcs "$mnt"; } >>"$base.rpc" || true
	echo "client $cfg $n: $label: $(sed -n 's/^\([0-9.]*\),msec,task-clock.*/\1 ms/p' "$base.perf")"
}

# run_clients CONFIG DIR MNT: every client, each warmed just before it is
# measured, in one bpftrace session (traces/client_calls.bt -: one start
# instead of six); analysis/clients.py --split gives each run its calls.
run_clients() {
	local cfg=$1 dir=$2 mnt=$3 files pass pid
	make_tree "$dir"
	files=("$dir"/f*)
	printf 'files=%s\nmount=%s\n' "$FILES" "$(fs_type "$dir") $(mount_options "$dir")" \
		>"$OUT/$cfg.env"
	mount_devices >>"$OUT/devices"
	: >"$OUT/$cfg.warm"
	: >"$OUT/$cfg.order"
	bpftrace -I "$REPO/traces/include" "$REPO/traces/client_calls.bt" - >"$OUT/$cfg.session.bt" 2>&1 &
	pid=$!
	wait_banner "$OUT/$cfg.session.bt" "$pid" ||
		echo "guest-clients: client_calls.bt did not attach; see $OUT/$cfg.session.bt"
	for pass in warm measure; do
		client $pass "$cfg" 1 ls "$mnt" "ls -l DIR" ls -l "$dir"
	done
	for pass in warm measure; do
		client $pass "$cfg" 2 ls "$mnt" "ls --color=always DIR" ls --color=always "$dir"
	done
	for pass in warm measure; do
		client $pass "$cfg" 3 stat "$mnt" "stat --cached=always DIR/f*" \
			stat --cached=always "${files[@]}"
	done
	for pass in warm measure; do
		client $pass "$cfg" 4 stat "$mnt" "stat --cached=never DIR/f*" \
			stat --cached=never "${files[@]}"
	done
	for pass in warm measure; do
		client $pass "$cfg" 5 find "$mnt" "find DIR -printf '%s %m %p\\n'" \
			find "$dir" -printf '%s %m %p\n'
	done
	for pass in warm measure; do
		client $pass "$cfg" 6 du "$mnt" "du -s DIR" du -s "$dir"
	done
	kill -INT "$pid"
	wait "$pid" || true
	python3 "$REPO/analysis/clients.py" "$OUT" --split "$cfg" ||
		echo "guest-clients: WARNING: $cfg: the session's calls could not be told apart"
}

run_clients ext4 /mnt/ext4/clients ""
start_nfsd
mount_nfs 3 /mnt/nfs3
run_clients nfs3 /mnt/nfs3/clients /mnt/nfs3
mount_nfs 3 /mnt/nfs3 actimeo=0
run_clients nfs3.actimeo0 /mnt/nfs3/clients /mnt/nfs3
umount /mnt/nfs3
echo "guest-clients: done"
