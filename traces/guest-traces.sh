#!/bin/bash
# guest-traces.sh - runs inside the guest: the traces/ scripts and perf
# profiles for the benchmark's scenarios, and the probe-overhead study.
# Never inside a benchmark case's measured loop, except in the overhead
# study, whose point is to measure the probe.
#
# Usage (in the guest): [PROBES_ONLY=1] traces/guest-traces.sh OUTDIR VARIANT
# Writes OUTDIR/traces/*.txt, OUTDIR/profiles/*.{txt,svg,md} and
# OUTDIR/probes/*.json (the harness's JSON, one per probe kind).
set -eu
OUTDIR=$1 VARIANT=$2
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
S=$REPO/build/stat_n
B=$REPO/build/statx-bench
N=2000
mkdir -p "$OUTDIR/traces" "$OUTDIR/profiles" "$OUTDIR/probes" /mnt/ext4/t
echo data >/mnt/ext4/t/file
start_nfsd
mount_nfs 3 /mnt/nfs3 actimeo=0
mkdir -p /mnt/nfs3/t
echo data >/mnt/nfs3/t/file

# Scenarios: NAME, then the stat_n arguments.
SCENARIOS=(
	"ext4.stat|stat $N /mnt/ext4/t/file"
	"ext4.statx_SIZE|statx $N /mnt/ext4/t/file 0x200"
	"ext4.statx_fd_empty|statx_fd $N /mnt/ext4/t/file 0x7ff"
	"ext4.fstatat_empty|fstatat_fd $N /mnt/ext4/t/file"
	"nfs3.stat|stat 200 /mnt/nfs3/t/file"
	"nfs3.statx_SIZE_DONT_SYNC|statx 200 /mnt/nfs3/t/file 0x200 0x4000"
	"nfs3.statx_FORCE_SYNC|statx 200 /mnt/nfs3/t/file 0x7ff 0x2000"
)

# PROBES_ONLY=1 (a kernel booted for the probe study only, e.g. VARIANT=btf).
if [ "${PROBES_ONLY:-0}" != 1 ]; then
	if [ -e /sys/kernel/tracing/events/stat ]; then
		for sc in "${SCENARIOS[@]}"; do
			name=${sc%%|*}
			read -r -a args <<<"${sc#*|}"
			for script in getattr_latency getattr_masks getattr_callers stat_stages nfs_getattr; do
				# NFS's own events: nothing to see on ext4 (each
				# bpftrace start is seconds under TCG).
				[ "$script" = nfs_getattr ] && [ "${name%%.*}" = ext4 ] && continue
				echo "trace: $script on $name"
				bt "$script.bt" "$OUTDIR/traces/$script.$name.txt" "$S" "${args[@]}"
			done
		done
		# The scripts key by device: name each (vm/guest-lib.sh).
		mount_devices >"$OUTDIR/traces/devices"
		# Where each NFS RPC of a stat() comes from (nfs_getattr_sites.bt,
		# analysis/nfs_sites.py): the benchmark's own lookup, d1/d2/d3/file
		# from a directory on the mount, no attribute cache, the file held
		# open as the harness holds it (on NFSv4 with a read delegation,
		# as the benchmark's NFSv4 cases meet it).  Each
		# is named CONFIGURATION+CASE after the benchmark's, whose GETATTR
		# count (mountstats) the report sets beside the trace's.
		mount_nfs 4.2 /mnt/nfs4 actimeo=0
		for sc in "nfs3.actimeo0+stat|/mnt/nfs3|stat" \
			"nfs3.actimeo0+statx.TYPE|/mnt/nfs3|statx 0x1" \
			"nfs3.actimeo0+statx.SIZE|/mnt/nfs3|statx 0x200" \
			"nfs3.actimeo0+statx.BASIC_STATS.DONT_SYNC|/mnt/nfs3|statx 0x7ff 0x4000" \
			"nfs4.actimeo0+stat|/mnt/nfs4|stat"; do
			IFS='|' read -r name mnt call <<<"$sc"
			read -r -a how <<<"$call"
			echo "trace: nfs_getattr_sites on $name"
			hold=open
			[ "$mnt" = /mnt/nfs4 ] && hold=deleg
			trace_sites "$OUTDIR/traces/nfs_sites.$name.txt" "$mnt/sites-${name%%.*}" "$hold" "${how[@]}"
		done
		umount /mnt/nfs4
	else
		echo "trace: no stat:* events in $VARIANT; bpftrace scripts skipped" |
			tee "$OUTDIR/traces/SKIPPED"
	fi

	# perf: software counters, and call-graph profiles.  cpu-clock is the
	# guest's virtual clock in cost mode: samples follow instructions.
	for sc in "${SCENARIOS[@]}"; do
		name=${sc%%|*}
		read -r -a args <<<"${sc#*|}"
		echo "perf: $name"
		perf stat -e task-clock,context-switches,cpu-migrations,page-faults \
			-o "$OUTDIR/profiles/perf-stat.$name.txt" -- "$S" "${args[@]}"
		# Ten times the calls, so that start-up is a small part of the profile.
		pargs=("${args[@]}")
		pargs[1]=$((args[1] * 10))
		perf record -q -e cpu-clock -F 20000 -g -o /tmp/perf.data -- "$S" "${pargs[@]}" 2>/dev/null
		perf script -i /tmp/perf.data >/tmp/perf.script 2>/dev/null
		/usr/bin/python3 "$REPO/analysis/flamegraph.py" /tmp/perf.script \
			-o "$OUTDIR/profiles/flame.$name.svg" --top "$OUTDIR/profiles/top.$name.md" \
			--title "$VARIANT: $name (cpu-clock; cost mode: samples follow instructions)"
	done
fi

# Probe-overhead study: the same stat() loop under each kind of probe on
# the getattr path; the harness's per-call figure minus the unprobed one
# is the cost of one probe hit (one getattr per stat()).  Each kind twice:
# bpftrace's program, and build/probe-count's (traces/probe_count.c: the
# same eight BPF instructions whatever the attach point).
probe() { # probe NAME [COMMAND...]: the loop with COMMAND's probe attached
	local name=$1 pid=
	shift
	if [ $# -gt 0 ]; then
		"$@" >"$OUTDIR/probes/$name.txt" 2>&1 &
		pid=$!
		if ! wait_banner "$OUTDIR/probes/$name.txt" "$pid" '^Hit Ctrl-C|^attached'; then
			echo "probe $name: could not attach:"
			cat "$OUTDIR/probes/$name.txt"
			kill -INT "$pid" 2>/dev/null || true
			wait "$pid" || true
			return 0
		fi
	fi
	echo "probe: $name"
	(cd /mnt/ext4/t && "$B" --dir /mnt/ext4/t --fs ext4 --mode cost --cases stat,fstat \
		--label "probe.$name" --env "probe=$name" --env "variant=$VARIANT" \
		--json "$OUTDIR/probes/$name.json")
	if [ -n "$pid" ]; then
		kill -INT "$pid"
		wait "$pid" || true
	fi
}
# (exec: started in the background, the function's subshell must be
# bpftrace itself, or the SIGINT that ends it would stop at the shell.)
bt_count() { exec bpftrace -e "BEGIN { printf(\"Hit Ctrl-C\\n\"); } $1"; }
P=$REPO/build/probe-count
F=vfs_getattr_nosec
probe none
if [ -e /sys/kernel/tracing/events/stat ]; then
	probe tracepoint bt_count 'tracepoint:stat:vfs_getattr_enter { @n = count(); }'
	probe bpf.tracepoint "$P" tracepoint stat:vfs_getattr_enter
	probe bpf.raw_tp "$P" raw_tp vfs_getattr_enter
fi
probe kprobe bt_count "kprobe:$F { @n = count(); }"
probe kretprobe bt_count "kretprobe:$F { @n = count(); }"
probe bpf.kprobe "$P" kprobe "$F"
probe bpf.kretprobe "$P" kretprobe "$F"
if [ -e /sys/kernel/btf/vmlinux ]; then
	probe fentry bt_count "kfunc:$F { @n = count(); }"
	probe fexit bt_count "kretfunc:$F { @n = count(); }"
	probe bpf.fentry "$P" fentry "$F"
	probe bpf.fexit "$P" fexit "$F"
else
	echo "fentry/fexit need BTF, which this config leaves out (VARIANT=btf has it)" |
		tee "$OUTDIR/probes/NO_BTF"
fi
[ "${PROBES_ONLY:-0}" = 1 ] && { echo "guest-traces: done (probes only)"; exit 0; }
umount /mnt/nfs3
echo "guest-traces: done"
