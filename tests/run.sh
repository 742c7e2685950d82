#!/bin/bash
# run.sh - everything `make test` (and so CI) checks, as named steps.
#
# Usage: tests/run.sh [STEP...]   (default: all steps, in order)
# Steps: lint kernels patches kunit boot clock soak afs overlay names traces
#        bench gate analysis
# The behaviour suites boot in check mode (vm/run.sh -m check): a guest
# timeout there is a real one (tests/clock-stall.sh says why).
# Prints one line per check and ends with "N passed, N failed".
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export KCACHE=${KCACHE:-$HOME/.cache/statx-study}
PY=/usr/bin/python3
LOG=$ROOT/results/test
mkdir -p "$LOG"
passed=0 failed=0
failures=()
T0=$(date +%s)

ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); failures+=("$*"); echo "not ok - $*"; }
check() { # check NAME COMMAND...: one test, its output in results/test/
	local name=$1 log
	shift
	log=$LOG/$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log
	if "$@" >"$log" 2>&1; then
		ok "$name"
	else
		not_ok "$name (log: ${log#"$ROOT"/})"
		tail -n 15 "$log" | sed 's/^/#   /'
	fi
}
step() { echo "# step $1 ($(($(date +%s) - T0)) s)"; }

# vm NAME DIR VARIANT COMMAND: a guest command as a test (check mode);
# its run directory is results/test/vm/DIR.
vm() {
	check "$1" vm/run.sh -q -m check -v "$3" -o "$LOG/vm/$2" -- "$4"
}

lint() {
	step lint
	check "shellcheck: every shell script" \
		shellcheck -x -P SCRIPTDIR vm/*.sh vm/guest-init bench/*.sh tests/*.sh tests/guest/*.sh traces/*.sh .ci/run
	check "pyflakes: every Python file" $PY -m pyflakes analysis tests bench traces
	check "C: bench builds with -Wall -Wextra -Werror" make -s -B -C bench
}

patches() {
	step patches
	check "patches: series applies in order to fresh linux-source-6.1, checkpatch --strict clean, each patch compiles" \
		tests/check-patches.sh
	check "patches: the 6.12 series applies to fresh linux-source-6.12, checkpatch --strict clean, each patch compiles" \
		tests/check-patches.sh 6.12
	check "patches: the AFS patch applies, checkpatch --strict clean, compiles with kafs's flags" \
		tests/check-patches.sh afs
	check "patches: the AFS patch for 6.12 applies to fresh linux-source-6.12, checkpatch --strict clean, compiles with the 6.12 tree's flags" \
		tests/check-patches.sh afs-6.12
}

# up_to_date VARIANT...: vm/kbuild.sh --check passes on each.
up_to_date() {
	local v
	for v in "$@"; do vm/kbuild.sh --check "$v" || return; done
}

kernels() {
	step kernels
	for v in stock patched debug; do
		check "kernel $v builds" vm/kbuild.sh "$v"
	done
	check "kernel: make kernel with nothing to do rebuilds nothing" tests/kernel-noop.sh
	check "kernel: vm/kbuild.sh --check finds stock, patched and debug, just built, up to date" \
		up_to_date stock patched debug
	check "tests/guest builds against the tree's kselftest_harness.h" \
		make -s -B -C tests/guest KSELFTEST="$(tests/kselftest-dir.sh)"
	check "make: a bad argument to any target is one clear line and a failure, no traceback" \
		tests/bad-args.sh
}

boot() {
	step boot
	for v in stock patched; do
		vm "boot $v: uname -r names the variant" "uname-$v" "$v" "uname -r | grep -- '-$v\$'"
	done
	check "boot: a failing guest command fails with its status" tests/boot-status.sh
	check "boot: a hung guest is killed by the timeout, with a message" tests/boot-fail.sh hang
	check "boot: a guest panic is an error, with the console's tail" tests/boot-fail.sh panic
	check "boot: cost mode gives the same instruction counts in two boots" tests/boot-determinism.sh
	check "boot: vm/run.sh and bench/run.sh killed mid-run leave no QEMU, no disk, no results.json" \
		tests/kill-runner.sh "$LOG/kill-runner"
}

clock() {
	step clock
	check "clock: a test waiting on the host passes in check mode, and cost mode's idle clock jump kills it (the conformance timeouts)" \
		tests/clock-stall.sh "$LOG/clock-stall"
}

# Two boots of each kernel, each running the series tests and the
# conformance suite on ext4, tmpfs, NFS v3 and v4.2 (fuzz of 100000 calls,
# NFS 10000); then stock against patched on the first boots.
soak() {
	step soak
	rm -rf "$LOG/soak"
	check "soak: 2 boots each of stock and patched, series tests and conformance suite, no failure" \
		tests/soak.sh -n 2 -o "$LOG/soak" stock patched
	check "series: stock and patched differ only where the series intends" \
		tests/series-diff.sh "$LOG/soak/stock/1/series.tap" "$LOG/soak/patched/1/series.tap"
	check "series: the lookup-free paths leave no audit PATH record and return fstat()'s result on NFS after a server-side replace; stock's lookup does" \
		tests/behaviour.sh "$LOG/behaviour"
	check "conformance: stock and patched differ only where the series intends" \
		$PY analysis/conformance.py --diff "$LOG/soak/stock/1/conformance.tap" \
		"$LOG/soak/patched/1/conformance.tap"
}

# The series' KUnit test of struct filename, in each base's UML build
# (vm/uml.sh: a source copy and a build directory of their own per base).
kunit() {
	step kunit
	check "kunit: the struct filename test (patch 4) passes every case as UML, on 6.1's and 6.12's series, and the statx_timing suite runs every case and sweep there" \
		tests/kunit.sh patched patched-6.12
}

# The result events' (dev, ino) on a stacked filesystem: the overlay
# variant (the series with overlayfs, from the built base tree).  The
# whole series suite runs, through tests/guest/run.sh, which mounts the
# NFS file systems its fixtures need: 6.1's kselftest harness runs a
# test's body even when its fixture's setup skipped.
overlay_kernel() {
	check "kernel overlay builds (the whole series with overlayfs)" vm/kbuild.sh overlay
}
overlay() {
	step overlay
	[ "$PREBUILT" = 1 ] || overlay_kernel
	vm "overlay: both result events of a statx() of a lower-layer file carry the (dev, ino) stat() reports" \
		overlay overlay tests/guest/run.sh
	check "overlay: the test ran on the overlay, not skipped" \
		grep -q '^ok [0-9]* global.overlay_result_events_join$' "$LOG/vm/overlay/output"
}

# The guest's OpenAFS cell (vm/afs-lib.sh) on the afs variant, whose
# tree starts as a copy of the built base tree (vm/kbuild.sh).
afs_kernel() {
	check "kernel afs builds (the whole series with kafs, RxRPC and veth)" vm/kbuild.sh afs
}
afs() {
	step afs
	[ "$PREBUILT" = 1 ] || afs_kernel
	vm "afs: kafs mounts the guest's OpenAFS cell; the conformance suite passes on it, each skip with its reason" \
		conformance-afs afs "tests/guest/conformance.sh 2000"
	check "afs: the suite's AFS tests ran on the cell" \
		grep -q '^ok [0-9]* conf.afs.fields_regular_file$' "$LOG/vm/conformance-afs/output"
	vm "afs: a server that cannot start is one named error; a callback break, DONT_SYNC's stale answer; a dead fileserver fails a stat within a bound" \
		afs-faults afs tests/guest/afs-faults.sh
	check "afs: the harness records no file-server call with a valid callback, one FetchStatus after a break, and for lstat() of a symlink it holds no promise on" \
		tests/afs-bench.sh "$LOG/afs-bench"
}

traces() {
	step traces
	vm "traces: every bpftrace script counts N events for N calls" traces-patched patched \
		tests/guest/traces-test.sh
	vm "traces: name_lengths.bt counts each name as often as it was passed, a long one cut at its limit" \
		names-trace-stock stock tests/guest/names-trace-test.sh
}

names() {
	step names
	check "names: mixed name lengths, renames and event switching under KASAN, KFENCE, lockdep (debug, audit=1): no splat" \
		vm/run.sh -q -m check -v debug -a audit=1 -t 2400 -o "$LOG/vm/names-debug" -- \
		"tests/guest/names-stress.sh 5000 1"
	check "names: a KASAN report in the kernel log fails the stress run" \
		tests/names-inject.sh "$LOG/vm/names-inject"
}

bench() {
	step bench
	check "bench: harness refuses a setup that would lie" tests/bench-refusal.sh
	check "bench: time mode adds rounds until its 95% interval meets the target, or stops at the limit" \
		tests/bench-timemode.sh
	check "bench: the host calibration runs (user space, on the host) and writes every sequence" \
		tests/hostcal.sh
	check "bench: each call's instruction mix (QEMU's exec log) equals the clock around that call and cost mode's count in the same boot, and the model weighs it" \
		tests/mix.sh "$LOG/mix"
	check "bench: QUICK run in the guest (stock and patched)" tests/bench-quick.sh "$LOG/quick"
	check "bench: quick scaling study in the guest (depth, directory size, ls -l, fio), merged and drawn" \
		tests/scale-quick.sh "$LOG/scale"
}

gate() {
	step gate
	check "gate: make compare passes stock->patched and catches a slowed cp_statx()" \
		tests/gate.sh "$LOG/gate"
}

analysis() {
	step analysis
	check "analysis: pytest (schema, statistics, verdicts, figures, report)" \
		$PY -m pytest -q -p no:cacheprovider tests/analysis
	check "REPORT.md is what make report-reference gives from analysis/reference" \
		$PY analysis/report.py analysis/reference/summary.json --check REPORT.md \
			--config-diff analysis/reference/config-diff.txt --tables analysis/reference/tables.md
	# A reader's report: its long tables live in analysis/reference/tables.md.
	check "REPORT.md is under 800 lines" test "$(wc -l <REPORT.md)" -lt 800
}

ALL=(lint kernels patches kunit boot clock soak afs overlay names traces bench gate analysis)
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=("${ALL[@]}")
for s in "${steps[@]}"; do
	case " ${ALL[*]} " in
	*" $s "*) ;;
	*) echo "run.sh: no step '$s' (steps: ${ALL[*]})" >&2; exit 2 ;;
	esac
done
# Two lanes: the steps below boot one guest at a time, in check mode,
# and leave the second core idle, so names (the debug kernel's stress
# run, the longest) runs beside afs, overlay and traces.  No build runs
# beside a guest: afs's and overlay's kernels are built first, alone.
# Each lane's lines are printed, and counted, when both are done.
LANE_A=(names)
LANE_B=(afs overlay traces)
PREBUILT=0
selected() { # selected STEP...: those of them that were asked for, in order
	local s
	for s in "$@"; do
		case " ${steps[*]} " in *" $s "*) echo "$s" ;; esac
	done
}
replay() { # replay FILE: its lines, counted as this shell's checks
	local line
	while IFS= read -r line; do
		echo "$line"
		case $line in
		"ok - "*) passed=$((passed + 1)) ;;
		"not ok - "*) failed=$((failed + 1)); failures+=("${line#not ok - }") ;;
		esac
	done <"$1"
}
lanes() {
	local a b pa pb ra rb
	mapfile -t a < <(selected "${LANE_A[@]}")
	mapfile -t b < <(selected "${LANE_B[@]}")
	echo "# lanes: ${a[*]} | ${b[*]} ($(($(date +%s) - T0)) s)"
	case " ${b[*]} " in *" afs "*) afs_kernel ;; esac
	case " ${b[*]} " in *" overlay "*) overlay_kernel ;; esac
	PREBUILT=1
	(for s in "${a[@]}"; do "$s"; done) >"$LOG/lane-a.out" 2>&1 &
	pa=$!
	(for s in "${b[@]}"; do "$s"; done) >"$LOG/lane-b.out" 2>&1 &
	pb=$!
	ra=0 rb=0
	wait "$pa" || ra=$?
	wait "$pb" || rb=$?
	replay "$LOG/lane-a.out"
	replay "$LOG/lane-b.out"
	# A lane that died part way would lose its later checks unseen.
	[ "$ra" = 0 ] || not_ok "lane ${a[*]} ended with status $ra, its later checks unrun"
	[ "$rb" = 0 ] || not_ok "lane ${b[*]} ended with status $rb, its later checks unrun"
	PREBUILT=0
}
laned=0
if [ -n "$(selected "${LANE_A[@]}")" ] && [ -n "$(selected "${LANE_B[@]}")" ]; then
	laned=1
fi
for s in "${steps[@]}"; do
	case " ${LANE_A[*]} ${LANE_B[*]} " in
	*" $s "*)
		if [ "$laned" = 1 ]; then
			laned=2
			lanes
			continue
		fi
		[ "$laned" = 2 ] && continue
		;;
	esac
	"$s"
done

echo "# took $(($(date +%s) - T0)) s"
for f in "${failures[@]}"; do echo "# FAILED: $f"; done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
