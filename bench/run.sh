#!/bin/bash
# run.sh - the benchmark run: boot each variant, run every file-system
# configuration in it, merge the results, write figures and a report.
#
# Usage: bench/run.sh [-q 0|1] [-t 0|1] [-m cost|time] [-o RUNDIR] VARIANT...
#   -q 1   QUICK: main masks only, no netem, Debian's default command line,
#          no conformance suite, no scaling study
#   -t 0   skip traces and profiles (traces/guest-traces.sh)
#   -m     cost (default) or time
# Without -q 1 each variant also boots with init_on_alloc=0.
# With traces, the btf variant's probe study (fentry/fexit).  Then the
# conformance suite on each variant but series3, the scaling study and
# (with traces) the real clients on patched.
# Results: results/<run-id>/ (results/latest points at the newest).
set -eu -o pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0 TRACE=1 MODE=cost RUNDIR=
while getopts q:t:m:o: opt; do
	case $opt in
	q) QUICK=$OPTARG ;;
	t) TRACE=$OPTARG ;;
	m) MODE=$OPTARG ;;
	o) RUNDIR=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d' >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- stock series3 patched
PY=/usr/bin/python3

id=$(date -u +%Y%m%dT%H%M%SZ)-$MODE
[ "$QUICK" = 1 ] && id=$id-quick
RUNDIR=${RUNDIR:-$ROOT/results/$id}
mkdir -p "$RUNDIR"
RUNDIR=$(cd "$RUNDIR" && pwd)
t0=$(date +%s)

appends=("")
[ "$QUICK" = 1 ] || appends+=("init_on_alloc=0")
n=$(($# * ${#appends[@]}))
i=0
for v in "$@"; do
	for a in "${appends[@]}"; do
		i=$((i + 1))
		tag=$v${a:+.ioa0}
		echo "[bench] boot $i/$n: $v${a:+ with $a}"
		"$ROOT/vm/run.sh" -q -v "$v" -m "$MODE" ${a:+-a "$a"} -t 3000 \
			-o "$RUNDIR/guest/$tag" -- \
			"bench/guest-bench.sh /mnt/io/raw $v $MODE $QUICK" |
			sed -u 's/^/  /'
		grep -h '^case \|^harness\|^==' "$RUNDIR/guest/$tag/output" >"$RUNDIR/guest/$tag/cases.txt" || true
		# Traces for the kernels users compare: stock and the whole series.
		if [ "$TRACE" = 1 ] && [ -z "$a" ] && [ "$v" != series3 ] &&
			[ -x "$ROOT/traces/guest-traces.sh" ]; then
			echo "[bench] traces and profiles: $v"
			"$ROOT/vm/run.sh" -q -v "$v" -m "$MODE" -t 3000 -o "$RUNDIR/traces/$v" -- \
				"traces/guest-traces.sh /mnt/io $v" | sed -u 's/^/  /' ||
				echo "[bench] WARNING: traces for $v failed: $RUNDIR/traces/$v/output"
		fi
	done
done

# fentry and fexit need BTF: the btf variant (the whole series with
# Debian's debug info and BTF) is booted for the probe study alone.
if [ "$TRACE" = 1 ] && [ -f "$("$ROOT/vm/kbuild.sh" --dir btf)/bzImage" ]; then
	echo "[bench] probe study with BTF: btf"
	"$ROOT/vm/run.sh" -q -v btf -m "$MODE" -t 3000 -o "$RUNDIR/traces/btf" -- \
		"PROBES_ONLY=1 traces/guest-traces.sh /mnt/io btf" | sed -u 's/^/  /' ||
		echo "[bench] WARNING: the probe study on btf failed: $RUNDIR/traces/btf/output"
fi

# The conformance suite on the kernels users compare: pass/fail/skip
# counts go into results.json (tests/guest/conformance.sh).
for v in "$@"; do
	[ "$v" = series3 ] || [ "$QUICK" = 1 ] && continue
	echo "[bench] conformance suite: $v"
	"$ROOT/vm/run.sh" -q -v "$v" -m "$MODE" -t 2400 -o "$RUNDIR/conformance/$v" -- \
		tests/guest/conformance.sh >/dev/null ||
		echo "[bench] WARNING: conformance failures on $v: $RUNDIR/conformance/$v/output"
	grep -E '^# (Totals|FAILED)|^not ok' "$RUNDIR/conformance/$v/output" | sed 's/^/  /' || true
done

# The scaling and workload study (path depth, directory size, cold and
# hot, ls -l, fio's filestat as a peer) on one kernel: the whole series.
sv=patched
case " $* " in *" patched "*) ;; *) sv=${*: -1} ;; esac
if [ "$QUICK" != 1 ]; then
	echo "[bench] scaling study: $sv"
	"$ROOT/vm/run.sh" -q -v "$sv" -m "$MODE" -t 3000 -o "$RUNDIR/scale/$sv" -- \
		"bench/guest-scale.sh /mnt/io $sv" >/dev/null ||
		echo "[bench] WARNING: scaling study failed: $RUNDIR/scale/$sv/output"
fi

# Real clients (ls -l, ls --color, stat --cached, find, du): their calls
# and masks from the series' events, their cost, their RPCs.
if [ "$QUICK" != 1 ] && [ "$TRACE" = 1 ]; then
	echo "[bench] real clients: $sv"
	"$ROOT/vm/run.sh" -q -v "$sv" -m "$MODE" -t 3000 -o "$RUNDIR/clients/$sv" -- \
		"bench/guest-clients.sh /mnt/io" >/dev/null ||
		echo "[bench] WARNING: real clients failed: $RUNDIR/clients/$sv/output"
fi

$PY "$ROOT/analysis/merge.py" "$RUNDIR" -o "$RUNDIR/results.json"
if [ "$(dirname "$RUNDIR")" = "$ROOT/results" ]; then
	ln -sfn "$(basename "$RUNDIR")" "$ROOT/results/latest"
fi
$PY "$ROOT/analysis/report.py" "$RUNDIR/results.json" -o "$RUNDIR/report"
echo "[bench] done in $(($(date +%s) - t0)) s"
echo "[bench] results: $RUNDIR/results.json"
echo "[bench] report:  $RUNDIR/report/REPORT.md (figures beside it)"
