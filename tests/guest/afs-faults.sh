#!/bin/bash
# afs-faults.sh - runs inside the guest (VARIANT=afs, check mode): the
# AFS cell's failures are bounded and named.  TAP on stdout.
#  1. A server that cannot start (the ptserver's UDP port already taken):
#     start_afs_cell fails with one error that names the ptserver, and the
#     tail of its log; stop_afs_cell leaves nothing behind.
#  2. Callbacks, on the fresh cell: with a valid one, neither stat nor
#     FORCE_SYNC asks the fileserver; the peer client's write breaks it,
#     DONT_SYNC still answers from the cache, and the next stat fetches
#     the new status.
#  3. A dead fileserver (SIGKILL, its volserver too): a stat that must ask
#     it (caches dropped) fails within DEAD_BOUND host seconds instead of
#     hanging; after a restart the same stat succeeds.
set -u
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
# shellcheck source=../../vm/afs-lib.sh
. "$REPO/vm/afs-lib.sh"
DEAD_BOUND=${DEAD_BOUND:-120}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
say() { echo "# $*"; }

echo "TAP version 13"
echo "1..8"

# 1. The ptserver's port, held by another socket on every address.
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7002))
sys.stdout.write("bound\n"); sys.stdout.flush()
time.sleep(3600)' >/run/holder.out 2>&1 &
holder=$!
wait_banner /run/holder.out "$holder" '^bound' || say "the port holder did not start"
err=$(AFS_WAIT=60 start_afs_cell 2>&1 >/dev/null)
rc=$?
kill "$holder" 2>/dev/null
printf "%s\n" "$err" | while IFS= read -r l; do say "$l"; done
if [ "$rc" != 0 ] && echo "$err" | grep -q '^afs: error: ptserver exited before' &&
	echo "$err" | grep -q "last lines of ptserver's log" &&
	[ "$(echo "$err" | grep -c '^afs: error:')" = 1 ]; then
	ok "a ptserver that cannot bind its port: start_afs_cell fails with one error naming it, and its log"
else
	not_ok "a ptserver that cannot bind its port (status $rc)"
fi
stop_afs_cell
if ! ip link show veth0 >/dev/null 2>&1 && ! mountpoint -q "$AFS_SRV" &&
	! pgrep -f "$AFS_LIB/" >/dev/null; then
	ok "stop_afs_cell leaves no server, mount or veth behind"
else
	not_ok "stop_afs_cell left something: $(pgrep -a -f "$AFS_LIB/"; ip -br link show veth0 2>&1)"
fi

# The cell, fresh.
if ! start_afs_cell; then
	not_ok "the cell starts after a failed start"
	echo "# the rest needs the cell"
	exit 1
fi
ok "the cell starts after a failed start"
f=$AFS_MNT/faults
mkdir -p "$f" && echo hello >"$f/file"
afs_hist_on
# fetches: FS.FetchStatus calls kafs made (the afs_make_fs_call hist
# trigger, op 132); breaks: CB.CallBack calls it was sent (op 204).  Other
# calls (the servers' probes of each other and of kafs) are left out.
count_op() { # count_op EVENT OP
	awk -v op="$2" '$1 == "{" && $2 == "op:" && $3 == op { n += $NF } END { print n + 0 }' \
		"/sys/kernel/tracing/events/afs/$1/hist"
}
fetches() { count_op afs_make_fs_call 132; }
breaks() { count_op afs_cb_call 204; }
# coreutils stat: --cached=never is AT_STATX_FORCE_SYNC, always DONT_SYNC.
size() { stat --cached="$1" -c %s "$f/file"; }
size default >/dev/null
fs0=$(fetches)
size0=$(size default)
forced=$(size never)
fs1=$(fetches)
say "valid callback: stat and FORCE_SYNC stat: $((fs1 - fs0)) FetchStatus (sizes $size0, $forced)"
if [ "$fs1" = "$fs0" ] && [ "$forced" = "$size0" ]; then
	ok "with a valid callback neither stat nor FORCE_SYNC fetches the status (the promise stands for the server)"
else
	not_ok "with a valid callback: $((fs1 - fs0)) FetchStatus calls"
fi
cb0=$(breaks)
afs_peer "echo more >>faults/file"
cb1=$(breaks)
stale=$(size always)
fs2=$(fetches)
fresh=$(size default)
fs3=$(fetches)
say "peer write: $((cb1 - cb0)) CB.CallBack; DONT_SYNC: size $stale, $((fs2 - fs1)) FetchStatus; stat: size $fresh, $((fs3 - fs2)) FetchStatus"
# DONT_SYNC reaches ->getattr only: the path walk may still revalidate
# (the FetchStatus count is printed, not checked).
if [ "$cb1" -gt "$cb0" ] && [ "$stale" = "$size0" ]; then
	ok "the peer's write breaks the callback; DONT_SYNC still answers from the cache"
else
	not_ok "after the peer's write: $((cb1 - cb0)) CB.CallBack; DONT_SYNC size $stale (was $size0), $((fs2 - fs1)) FetchStatus"
fi
if [ $((fs3 - fs2)) -ge 1 ] && [ "$fresh" = $((size0 + 5)) ]; then
	ok "after the break a stat fetches the status and sees the new size"
else
	not_ok "after the break: $((fs3 - fs2)) FetchStatus, size $fresh (want $((size0 + 5)))"
fi

# 2. A dead fileserver.
want=$(stat -c %s "$f/file")
afs_stop davolserver
pid=$(cat /run/afs/dafileserver.pid)
kill -9 "$pid"
sync
echo 3 >/proc/sys/vm/drop_caches
t0=$(host_seconds)
out=$(timeout $((DEAD_BOUND + 60)) stat -c %s "$f/file" 2>&1)
rc=$?
secs=$(($(host_seconds) - t0))
say "stat with the fileserver dead: status $rc after $secs host s: $out"
if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$secs" -le "$DEAD_BOUND" ]; then
	ok "a stat the dead fileserver must answer fails within $DEAD_BOUND host seconds ($secs s)"
else
	not_ok "a stat the dead fileserver must answer: status $rc after $secs host seconds"
fi
afs_fileserver_start
t0=$(host_seconds)
while ! out=$(stat -c %s "$f/file" 2>&1) && [ $(($(host_seconds) - t0)) -le "$DEAD_BOUND" ]; do
	sleep 1
done
say "after the restart: $out, $(($(host_seconds) - t0)) host s"
if [ "$out" = "$want" ]; then
	ok "after the fileserver restarts, the same stat succeeds"
else
	not_ok "after the fileserver restarts, the stat still fails: $out"
fi

# 3. A callback break from the peer client.
stop_afs_cell
[ "$failed" = 0 ]
