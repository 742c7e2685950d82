#!/bin/bash
# afs-bench.sh - the harness on AFS (a QUICK run of bench/guest-bench.sh's
# afs scope in cost mode on the afs variant): the file-server calls it
# records are the ones the callback promise implies.  Behaviour, not
# timing: no threshold on a cost.
# Usage: tests/afs-bench.sh OUTDIR
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?usage: tests/afs-bench.sh OUTDIR}
rm -rf "$OUT"
"$ROOT/vm/run.sh" -q -v afs -m cost -t 2400 -o "$OUT" -- \
	"bench/guest-bench.sh /mnt/io/raw afs cost 1 afs"
/usr/bin/python3 - "$OUT/raw/afs.json" <<'PY'
import json
import sys

doc = json.load(open(sys.argv[1]))
cases = {c["name"]: c for c in doc["cases"]}
bad = []


def ops(name):
    if name not in cases:
        bad.append(f"{name}: not run")
        return {}
    c = cases[name]
    if "afs_ops_per_call" not in c:
        bad.append(f"{name}: no afs_ops_per_call")
        return {}
    return c["afs_ops_per_call"]


# A valid callback: no call to the fileserver, whatever the mask or flag.
for n in ("stat", "fstat", "statx.TYPE", "statx.BASIC_STATS.FORCE_SYNC"):
    o = ops(n)
    if any(v for k, v in o.items() if k != "CallBack"):
        bad.append(f"{n}: file-server calls with a valid callback: {o}")
# After a break: the break arrived, and one FetchStatus brings the status.
for n in ("stale.stat", "stale.statx.TYPE", "stale.statx.BASIC_STATS.FORCE_SYNC"):
    o = ops(n)
    if o.get("FetchStatus") != 1 or o.get("CallBack", 0) < 1:
        bad.append(f"{n}: want 1 FetchStatus after >= 1 CallBack, got {o}")
# DONT_SYNC answers from the cache even after the break.
o = ops("stale.statx.BASIC_STATS.DONT_SYNC")
if o.get("FetchStatus") or o.get("CallBack", 0) < 1:
    bad.append(f"stale.statx.BASIC_STATS.DONT_SYNC: want no FetchStatus after a CallBack, got {o}")
# A symlink this client holds no promise on (made anew before the call):
# lstat() validates it, one FetchStatus (patches/afs patch 2: symlinks get
# afs_getattr(); without it lstat() makes none and answers from the inode).
o = ops("stale.lstat")
if o.get("FetchStatus") != 1:
    bad.append(f"stale.lstat: want 1 FetchStatus for a symlink with no promise, got {o}")
for b in bad:
    print("afs-bench:", b)
sys.exit(1 if bad else 0)
PY
echo "afs-bench: file-server calls as the callback promise implies; a symlink with none validated"
