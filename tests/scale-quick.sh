#!/bin/bash
# scale-quick.sh - the scaling study's quick run in a patched guest
# (bench/guest-scale.sh QUICK=1: directories of up to 1000 files), then
# checks on what it wrote: every file system's depth, directory-size and
# ls -l points, fio's three stat types, and merge.py/report.py taking it.
# Usage: tests/scale-quick.sh RUNDIR
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNDIR=$1
rm -rf "$RUNDIR"
mkdir -p "$RUNDIR"
"$ROOT/vm/run.sh" -q -v patched -t 1800 -o "$RUNDIR/scale/patched" -- \
	"bench/guest-scale.sh /mnt/io patched 1"
/usr/bin/python3 - "$RUNDIR/scale/patched" <<'PY'
import sys
sys.path.insert(0, "analysis")
import scale
(r,) = scale.load(sys.argv[1:])
bad = []
for fs in ("ext4", "tmpfs", "nfs3"):
    doc = r["scale"].get(fs)
    if not doc:
        bad.append(f"no scale-{fs}.json")
        continue
    depth = doc["depth"]["series"]["stat"]["points"]
    if len(depth) != 16 or not depth[15]["median"] > depth[0]["median"] > 0:
        bad.append(f"{fs}: depth 16 does not cost more than depth 1")
    ns = [f["n"] for f in doc["files"]]
    if ns != [10, 100, 1000]:
        bad.append(f"{fs}: directory sizes {ns}")
    for f in doc["files"]:
        for way in scale.LS_WAYS:
            if not f["ls"][way]["hot"]["cpu_median"] > 0:
                bad.append(f"{fs}: ls {way} at {f['n']} has no figure")
    print(f"{fs}: stat depth 1 {depth[0]['median']:.0f}, depth 16 {depth[15]['median']:.0f}")
for fs in ("ext4", "tmpfs"):
    for t in scale.FIO_TYPES:
        if (fs, t) not in r["fio"]:
            bad.append(f"no fio {fs} {t}")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
# The merged results and the report take it (merge.py needs a guest run:
# the bench step's quick run, which tests/run.sh makes just before this).
if [ ! -d "$ROOT/results/test/quick/guest" ]; then
	echo "FAIL: no quick bench run to merge the scaling study into" \
		"(tests/bench-quick.sh writes results/test/quick/)"
	exit 1
fi
cp -r "$ROOT/results/test/quick/guest" "$RUNDIR/"
/usr/bin/python3 "$ROOT/analysis/merge.py" "$RUNDIR" -o "$RUNDIR/results.json"
/usr/bin/python3 "$ROOT/analysis/report.py" "$RUNDIR/results.json" -o "$RUNDIR/report"
grep -q '^### patched' "$RUNDIR/report/REPORT.md"
test -s "$RUNDIR/report/scale/depth.png"
echo "merged and reported: $RUNDIR/report/REPORT.md"
