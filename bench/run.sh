#!/bin/bash
# run.sh - the benchmark run: boot each variant, run every file-system
# configuration in it, merge the results, write figures and a report.
#
# Usage: bench/run.sh [-q 0|1] [-t 0|1] [-g 0|1] [-m cost|time] [-j N] [-o RUNDIR]
#                     [-x 'VARIANT...'] [VARIANT...]
#   VARIANT... defaults to the kernels the tables compare, in order
#   (vm/variants.sh measured: the base, the partial series, the series)
#   -q 1   QUICK: main masks only, no netem, Debian's default command line,
#          no conformance suite, no scaling study
#   -t 0   skip traces and profiles (traces/guest-traces.sh)
#   -g 1   the regression gate's run (bench/compare.sh): the benchmark
#          boots alone (with -q 0 their init_on_alloc=0 boots too), no
#          scaling study, real clients or conformance suite
#   -m     cost (default) or time; under TCG (KVM unusable) time mode is
#          refused unless ALLOW_TCG_TIME=1 is in the environment, and then
#          every results file carries a warning
#   -j N   guests at once (cost mode: one per core, at most one per 5 GiB
#          of free memory; time mode: always 1)
#   -x     kernels of another base set beside these (make bench: 6.12's
#          base, partial series and series, vm/variants.sh measured
#          6.12): the benchmark on every file system (a partial series:
#          ext4 and tmpfs), with -q 0 init_on_alloc=0, with traces the
#          instruction mix, and the conformance suite (not on a partial)
# Without -q 1 each variant also boots with init_on_alloc=0 (ext4 and
# tmpfs: the zeroing it turns off is getname()'s, on every file system).
# (fentry and fexit on the btf kernel: make probes.)  Then the
# conformance suite on each variant but the partial series, the scaling
# study and (with traces) the real clients on the whole series, the
# name lengths of real programs on the base kernel, and AFS (the afs
# variant: the guest's OpenAFS cell).
# Results: results/<run-id>/ (results/latest points at the newest).
#
# Every boot is a job; in cost mode jobs run side by side, since a cost
# mode figure counts guest instructions and does not depend on what else
# the host runs (two boots agree exactly: tests/boot-determinism.sh).  A
# time mode figure does, so time mode runs one guest at a time.
set -eu -o pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0 TRACE=1 GATE=0 MODE=cost RUNDIR='' JOBS='' BESIDE=''
while getopts q:t:g:m:j:o:x: opt; do
	case $opt in
	x) BESIDE=$OPTARG ;;
	q) QUICK=$OPTARG ;;
	g) GATE=$OPTARG ;;
	t) TRACE=$OPTARG ;;
	m) MODE=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	o) RUNDIR=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
# shellcheck disable=SC2046 # a list of variant names, one word each
[ $# -gt 0 ] || set -- $("$ROOT/vm/variants.sh" measured)
PY=/usr/bin/python3

if [ "$MODE" = time ]; then
	if [ -n "$JOBS" ] && [ "$JOBS" != 1 ]; then
		echo "run.sh: time mode measures wall-clock time: one guest at a time, not -j $JOBS" >&2
		exit 2
	fi
	JOBS=1
elif [ -z "$JOBS" ]; then
	JOBS=$("$ROOT/vm/jobs.sh")
fi
case $JOBS in '' | *[!0-9]* | 0) echo "run.sh: -j wants a positive number" >&2; exit 2 ;; esac

id=$(date -u +%Y%m%dT%H%M%SZ)-$MODE
[ "$QUICK" = 1 ] && id=$id-quick
RUNDIR=${RUNDIR:-$ROOT/results/$id}
mkdir -p "$RUNDIR"
RUNDIR=$(cd "$RUNDIR" && pwd)
t0=$(date +%s)

# --- the jobs -------------------------------------------------------------
# A job is one guest boot: a name, a kind, a variant, a kernel command-line
# addition, a timeout, a run directory, a guest command, and a weight (the
# seconds it took here, 2026-12-03, two guests side by side): the heaviest
# start first, so that the last to finish are light ones.  A failed
# "bench" job fails the run; any other kind is reported as a warning (its
# absence shows in the report).  Output of "bench" and "traces" jobs is
# streamed, each line tagged with its job; the others only report.
J_NAME=() J_KIND=() J_VAR=() J_APP=() J_TMO=() J_OUT=() J_CMD=() J_WT=()
add_job() {
	J_WT+=("$1") J_NAME+=("$2") J_KIND+=("$3") J_VAR+=("$4") J_APP+=("$5")
	J_TMO+=("$6") J_OUT+=("$7") J_CMD+=("$8")
}

# The scaling study and the real clients run on one kernel: the whole series.
sv=${*: -1}
for v in "$@"; do
	role=$("$ROOT/vm/variants.sh" role "$v")
	[ "$role" = series ] && sv=$v
done
tcg=ALLOW_TCG_TIME=${ALLOW_TCG_TIME:-0}

for v in "$@"; do
	# A partial series (seriesK: patches 1..K) gives patch K its own numbers
	# (against 1..K-1) on ext4 and tmpfs, and on the NFS mounts without an
	# attribute cache, where a difference between the base and the whole
	# series is bisected to a patch (or to none).
	role=$("$ROOT/vm/variants.sh" role "$v")
	if [ "$role" = partial ]; then
		add_job 80 "bench $v" bench "$v" "" 3000 "$RUNDIR/guest/$v" \
			"$tcg bench/guest-bench.sh /mnt/io/raw $v $MODE $QUICK prefix"
	else
		add_job $((QUICK == 1 ? 30 : 200)) "bench $v" bench "$v" "" 3000 "$RUNDIR/guest/$v" \
			"$tcg bench/guest-bench.sh /mnt/io/raw $v $MODE $QUICK"
	fi
	# The headline calls' instruction mix (traces/mix.py: QEMU's exec log
	# of one call, beside cost mode's count of the same boot), on every
	# kernel: each patch's message weighs its own pair of kernels.
	if [ "$TRACE" = 1 ]; then
		add_job 90 "mix $v" mix "$v" "" 1800 "$RUNDIR/mix/$v" ""
	fi
	# Traces for the kernels users compare: the base and the whole series.
	if [ "$TRACE" = 1 ] && [ "$role" != partial ] && [ -x "$ROOT/traces/guest-traces.sh" ]; then
		w=460
		[ "$role" = base ] && w=120	# no stat:* events: no bpftrace scripts
		add_job "$w" "traces $v" traces "$v" "" 3000 \
			"$RUNDIR/traces/$v" "traces/guest-traces.sh /mnt/io $v"
	fi
done
# Another base's kernels (-x): what its base and its series do with the
# same cases, in the same run.  Not in the gate's run, which compares the
# two kernels it is given.
[ "$GATE" = 1 ] && BESIDE=''
# Its partial series, as 6.1's, boots for ext4, tmpfs and the NFS mounts
# without an attribute cache: the numbers of each patch's own message.
for v in $BESIDE; do
	if [ "$("$ROOT/vm/variants.sh" role "$v")" = partial ]; then
		add_job 80 "bench $v" bench "$v" "" 3000 "$RUNDIR/guest/$v" \
			"$tcg bench/guest-bench.sh /mnt/io/raw $v $MODE $QUICK prefix"
	else
		add_job $((QUICK == 1 ? 30 : 200)) "bench $v" bench "$v" "" 3000 "$RUNDIR/guest/$v" \
			"$tcg bench/guest-bench.sh /mnt/io/raw $v $MODE $QUICK"
		[ "$QUICK" = 1 ] || add_job 50 "conformance $v" conformance "$v" "" 2400 \
			"$RUNDIR/conformance/$v" tests/guest/conformance.sh
	fi
	if [ "$QUICK" != 1 ]; then
		add_job 50 "bench $v init_on_alloc=0" bench "$v" init_on_alloc=0 3000 \
			"$RUNDIR/guest/$v.ioa0" "$tcg DISPATCH=0 bench/guest-bench.sh /mnt/io/raw $v $MODE $QUICK local"
	fi
	if [ "$TRACE" = 1 ]; then
		add_job 90 "mix $v" mix "$v" "" 1800 "$RUNDIR/mix/$v" ""
	fi
done
if [ "$QUICK" != 1 ]; then
	# Path depth, directory size, cold and hot, ls -l, fio's filestat; then
	# the ls -l passes on NFS without an attribute cache (DONT_SYNC).
	if [ "$GATE" != 1 ]; then
		add_job 400 "scaling $sv" scale "$sv" "" 3000 "$RUNDIR/scale/$sv" \
			"bench/guest-scale.sh /mnt/io $sv 0 main"
		add_job 250 "scaling $sv actimeo=0" scale "$sv" "" 3000 "$RUNDIR/scale/$sv.actimeo0" \
			"bench/guest-scale.sh /mnt/io $sv 0 actimeo0"
	fi
	for v in "$@"; do
		add_job 50 "bench $v init_on_alloc=0" bench "$v" init_on_alloc=0 3000 \
			"$RUNDIR/guest/$v.ioa0" "$tcg DISPATCH=0 bench/guest-bench.sh /mnt/io/raw $v $MODE $QUICK local"
	done
	# How long the names real programs pass are (find, ls -lR, du, git,
	# a compile, python imports), traced on the base kernel, whose first
	# copy takes the whole name (traces/guest-names.sh).
	if [ "$TRACE" = 1 ] && [ "$GATE" != 1 ]; then
		for v in "$@"; do
			[ "$("$ROOT/vm/variants.sh" role "$v")" = base ] || continue
			add_job 180 "names $v" names "$v" "" 2400 "$RUNDIR/names" \
				"traces/guest-names.sh /mnt/io"
			break
		done
	fi
	# ls -l, ls --color, stat --cached, find, du: their calls and masks
	# from the series' events, their cost, their RPCs.
	if [ "$TRACE" = 1 ] && [ "$GATE" != 1 ]; then
		add_job 145 "clients $sv" clients "$sv" "" 3000 "$RUNDIR/clients/$sv" \
			"bench/guest-clients.sh /mnt/io"
	fi
	# AFS: the guest's OpenAFS cell, mounted by kafs on the afs variant
	# (the whole series with kafs, RxRPC and veth built in): every case
	# with its file-server calls and the call after a callback break,
	# then the conformance suite on it (RUNDIR/afs: analysis/afs.py).
	# afs0 is the same without patches/afs (kafs's statx result mask).
	if [ "$GATE" != 1 ]; then
		for v in afs afs0; do
			d=$RUNDIR/afs
			[ "$v" = afs ] || d=$RUNDIR/afs/$v
			add_job 60 "$v" afs "$v" "" 3000 "$d" \
				"$tcg bench/guest-bench.sh /mnt/io/raw $v $MODE 0 afs"
			add_job 50 "conformance $v" conformance "$v" "" 2400 "$d/conformance" \
				tests/guest/conformance.sh
		done
	fi
	# The conformance suite on the kernels users compare: pass/fail/skip
	# counts go into results.json (tests/guest/conformance.sh).
	for v in "$@"; do
		[ "$GATE" = 1 ] && break
		[ "$("$ROOT/vm/variants.sh" role "$v")" = partial ] && continue
		add_job 50 "conformance $v" conformance "$v" "" 2400 "$RUNDIR/conformance/$v" \
			tests/guest/conformance.sh
	done
fi
# fentry and fexit need BTF, and the btf kernel its own tree (about 30
# min cold): `make probes` runs them, and the report reads them from
# analysis/reference/probes.json (analysis/probes.py).
mapfile -t ORDER < <(for k in "${!J_NAME[@]}"; do echo "${J_WT[k]} $k"; done |
	sort -k1,1nr -k2,2n | cut -d' ' -f2)

N=${#J_NAME[@]}
echo "[bench] $N guest boots, $JOBS at a time ($MODE mode), results in $RUNDIR"

# run_job K: boot job K; its status is the guest command's.  The
# conformance suite measures nothing and its tests have timeouts: in cost
# mode it boots in check mode, where a guest timeout is a real one.
run_job() {
	local k=$1 tag="${J_NAME[$1]}" mode=$MODE
	local app=()
	[ -n "${J_APP[k]}" ] && app=(-a "${J_APP[k]}")
	[ "${J_KIND[k]}" = conformance ] && [ "$MODE" = cost ] && mode=check
	case ${J_KIND[k]} in
	mix)
		# A host program steers this guest through QEMU's monitor.
		mkdir -p "$(dirname "${J_OUT[k]}")"
		$PY "$ROOT/traces/mix.py" run --timeout "${J_TMO[k]}" "${J_VAR[k]}" "${J_OUT[k]}" \
			>"${J_OUT[k]}.log" 2>&1
		;;
	bench | traces)
		"$ROOT/vm/run.sh" -q -v "${J_VAR[k]}" -m "$mode" "${app[@]}" -t "${J_TMO[k]}" \
			-o "${J_OUT[k]}" -- "${J_CMD[k]}" 2>&1 | sed -u "s/^/  [$tag] /"
		;;
	*)
		"$ROOT/vm/run.sh" -q -v "${J_VAR[k]}" -m "$mode" "${app[@]}" -t "${J_TMO[k]}" \
			-o "${J_OUT[k]}" -- "${J_CMD[k]}" >/dev/null 2>&1
		;;
	esac
}

# finish K STATUS SECONDS: what a job leaves behind, and its verdict.
finish() {
	local k=$1 rc=$2 secs=$3 out="${J_OUT[$1]}"
	case ${J_KIND[k]} in
	bench)
		grep -h '^case \|^harness\|^==' "$out/output" >"$out/cases.txt" 2>/dev/null || true
		;;
	conformance)
		grep -E '^# (Totals|FAILED)|^not ok' "$out/output" 2>/dev/null |
			sed "s/^/  [${J_NAME[k]}] /" || true
		;;
	esac
	if [ "$rc" = 0 ]; then
		echo "[bench] done $((done_n + 1))/$N: ${J_NAME[k]} (${secs} s)"
	elif [ "${J_KIND[k]}" = bench ]; then
		echo "[bench] FAILED: ${J_NAME[k]} (status $rc): $out/output" >&2
		# 5: the harness's refusal of time mode under TCG (bench/util.h)
		if [ "$rc" = 5 ]; then
			echo "[bench] KVM is unusable here; to time the emulator anyway (flagged in" \
				"every result): ALLOW_TCG_TIME=1" >&2
		fi
		failed=1
	else
		echo "[bench] WARNING: ${J_NAME[k]} failed (status $rc): $out/output"
	fi
	done_n=$((done_n + 1))
}

declare -A running=() started=()
# Killed or interrupted, the run stops its guests (each vm/run.sh stops
# its own QEMU) and writes no results.json.
# shellcheck disable=SC2317 # run by the trap
stop_jobs() {
	local p
	for p in "${!running[@]}"; do
		pkill -TERM -P "$p" 2>/dev/null || true
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}
trap stop_jobs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
next=0 done_n=0 failed=0
while [ "$next" -lt "$N" ] || [ ${#running[@]} -gt 0 ]; do
	# After a failed benchmark boot, start nothing new.
	while [ "$failed" = 0 ] && [ "$next" -lt "$N" ] && [ ${#running[@]} -lt "$JOBS" ]; do
		k=${ORDER[next]}
		echo "[bench] start $((next + 1))/$N: ${J_NAME[k]}"
		run_job "$k" &
		running[$!]=$k
		started[$!]=$(date +%s)
		next=$((next + 1))
	done
	[ ${#running[@]} -gt 0 ] || break
	pid='' rc=0
	wait -n -p pid "${!running[@]}" || rc=$?
	finish "${running[$pid]}" "$rc" $(($(date +%s) - ${started[$pid]}))
	unset "running[$pid]" "started[$pid]"
done
trap - EXIT
if [ "$failed" != 0 ]; then
	echo "[bench] a benchmark boot failed: no results.json for $RUNDIR" >&2
	exit 1
fi

$PY "$ROOT/analysis/merge.py" "$RUNDIR" -o "$RUNDIR/results.json"
if [ "$(dirname "$RUNDIR")" = "$ROOT/results" ]; then
	ln -sfn "$(basename "$RUNDIR")" "$ROOT/results/latest"
fi
# How far each case is from the committed reference run, and which moved
# beyond their known spread (RUNDIR/drift.json; the report lists them).
$PY "$ROOT/analysis/drift.py" "$RUNDIR/results.json" -o "$RUNDIR/drift.json" |
	sed 's/^/[bench] /' || echo "[bench] WARNING: no comparison with the reference" >&2
if [ -d "$RUNDIR/mix" ]; then
	$PY "$ROOT/analysis/mix.py" "$RUNDIR/mix" -o "$RUNDIR/mix.json" | sed 's/^/[bench] /' ||
		echo "[bench] WARNING: no instruction mix (analysis/mix.py failed)" >&2
fi
if [ -d "$RUNDIR/afs" ]; then
	$PY "$ROOT/analysis/afs.py" "$RUNDIR/afs" -o "$RUNDIR/afs.json" | sed 's/^/[bench] /' ||
		echo "[bench] WARNING: no AFS summary (analysis/afs.py failed)" >&2
fi
if [ -d "$RUNDIR/names" ]; then
	$PY "$ROOT/analysis/name_mix.py" "$RUNDIR/names" -o "$RUNDIR/name_lengths.json" |
		sed 's/^/[bench] /' || echo "[bench] WARNING: no name lengths (analysis/name_mix.py failed)" >&2
fi
$PY "$ROOT/analysis/report.py" "$RUNDIR/results.json" -o "$RUNDIR/report"
echo "[bench] done in $(($(date +%s) - t0)) s"
echo "[bench] results: $RUNDIR/results.json"
echo "[bench] report:  $RUNDIR/report/REPORT.md (figures beside it)"
