#!/bin/bash
# kill-runner.sh - a launcher killed mid-run leaves nothing behind:
# vm/run.sh and bench/run.sh, sent SIGTERM while their guest runs, stop
# its QEMU and remove its disk, and bench/run.sh writes no results.json.
# Usage: tests/kill-runner.sh [DIR]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-$ROOT/results/test/kill-runner}
export KCACHE=${KCACHE:-$HOME/.cache/statx-study}
rm -rf "$DIR"
mkdir -p "$DIR"
fail() { echo "FAIL: $*"; exit 1; }

# qemus PATTERN: QEMU processes whose command line holds PATTERN.
qemus() { pgrep -f "qemu-system-x86_64.*$1" || true; }

# kill_when_running NAME PID PATTERN: once a QEMU with PATTERN runs (at
# most 300 s), SIGTERM PID and wait for it; then no such QEMU may be left.
kill_when_running() {
	local name=$1 pid=$2 pat=$3 _ rc=0
	for _ in $(seq 300); do
		[ -n "$(qemus "$pat")" ] && break
		kill -0 "$pid" 2>/dev/null || fail "$name ended before its guest started"
		sleep 1
	done
	[ -n "$(qemus "$pat")" ] || fail "$name: no guest within 300 s"
	sleep 3
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" != 0 ] || fail "$name: killed, it exited 0"
	for _ in $(seq 20); do
		[ -z "$(qemus "$pat")" ] && break
		sleep 0.5
	done
	[ -z "$(qemus "$pat")" ] || fail "$name: QEMU still running after the kill: $(qemus "$pat")"
	echo "ok: $name: killed with status $rc, no QEMU left"
}

"$ROOT/vm/run.sh" -q -m check -v stock -o "$DIR/vm" -- 'sleep 600' >"$DIR/vm.log" 2>&1 &
pid=$!
kill_when_running vm/run.sh "$pid" "$DIR/vm/"
[ ! -e "$KCACHE/disks/ext4-$pid.img" ] || fail "vm/run.sh: its disk $KCACHE/disks/ext4-$pid.img is left"
echo "ok: vm/run.sh: its disk is gone"

"$ROOT/bench/run.sh" -q 1 -t 0 -o "$DIR/bench" stock >"$DIR/bench.log" 2>&1 &
pid=$!
kill_when_running bench/run.sh "$pid" "$DIR/bench/"
[ ! -e "$DIR/bench/results.json" ] || fail "bench/run.sh: results.json written by a killed run"
echo "ok: bench/run.sh: no results.json"
