#!/bin/bash
# bench-quick.sh - `make bench QUICK=1` end to end (stock and patched, every
# file system), then checks on what it wrote: the schema, every
# configuration present, the harness's own overhead subtracted exactly,
# NFS operations counted, the series' effect where it is exact, and the
# system call dispatch count against its measured check.
# Usage: tests/bench-quick.sh RUNDIR
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNDIR=$1
rm -rf "$RUNDIR"
"$ROOT/bench/run.sh" -q 1 -t 0 -o "$RUNDIR" stock patched
# In the guest, time mode under TCG is refused unless flagged.
rc=0
out=$("$ROOT/vm/run.sh" -q -v patched -o "$RUNDIR/refuse-time" -- \
	'build/statx-bench --mode time --cases null') || rc=$?
# 5: EXIT_REFUSE_TCG_TIME (bench/util.h)
[ "$rc" = 5 ] || { echo "time mode under TCG was not refused with status 5 (status $rc): $out"; exit 1; }
echo "refused in the guest: time mode under TCG"
/usr/bin/python3 - "$RUNDIR/results.json" <<'PY'
import sys
sys.path.insert(0, "analysis")
import statx_results as sr
doc = sr.load(sys.argv[1])
bad = []
want = {"floor", "ext4", "tmpfs", "nfs3", "nfs3.actimeo0", "nfs4", "nfs4.actimeo0"}
for v in ("stock", "patched"):
    have = {c["label"] for c in doc["configs"] if c["variant"] == v}
    if want - have:
        bad.append(f"{v}: missing {sorted(want - have)}")
for c in doc["configs"]:
    cases = {x["name"]: x for x in c["cases"]}
    # The empty body through the same loop costs nothing once the
    # harness's overhead is subtracted: exact in cost mode.
    if "null" in cases and abs(cases["null"]["median"]) > 1:
        bad.append(f"{c['variant']} {c['label']}: null case {cases['null']['median']}")
    if c["label"].startswith("nfs"):
        for x in c["cases"]:
            if "nfs_ops_per_call" not in x:
                bad.append(f"{c['label']} {x['name']}: no NFS op counts")
    for x in c["cases"]:
        expect_fail = ((c["variant"] == "stock" and x["name"] in ("statx.fd.null", "fstatat.null"))
                       or x["name"].startswith("nosys."))
        if (x["ret"] < 0) != expect_fail:
            bad.append(f"{c['variant']} {c['label']} {x['name']}: ret {x['ret']} {x['errno']}")
ga = sr.case(doc, "patched", "nfs3.actimeo0", "stat")["nfs_ops_per_call"]["GETATTR"]
print(f"NFS v3 actimeo=0: {ga:.2f} GETATTR per stat()")
if ga <= 0:
    bad.append("NFS v3 with actimeo=0 made no GETATTR for stat()")
for name in ("fstatat.empty", "statx.fd.empty"):
    s = sr.case(doc, "stock", "ext4", name)["median"]
    p = sr.case(doc, "patched", "ext4", name)["median"]
    print(f"ext4 {name}: stock {s:.0f}, patched {p:.0f}")
    if not p < s:
        bad.append(f"patched {name} is not below stock")
# bench/dispatch.py's count of x64_sys_call()'s compare tree against the
# two ENOSYS cases: one handler, two depths; the measured difference is
# the counted one (cost mode is exact).
for v in ("stock", "patched"):
    d = doc.get("dispatch", {}).get(v)
    if not d:
        bad.append(f"{v}: no dispatch counts (bench/dispatch.py)")
        continue
    per = d["per_nr"]
    want = per["134"]["instructions"] - per["174"]["instructions"]
    got = (sr.case(doc, v, "floor", "nosys.134")["median"]
           - sr.case(doc, v, "floor", "nosys.174")["median"])
    print(f"{v}: dispatch newfstat {per['5']['instructions']}, newfstatat "
          f"{per['262']['instructions']}; syscall(134) - syscall(174): counted {want:+d}, "
          f"measured {got:+.1f}")
    if per["134"]["handler"] != per["174"]["handler"] or abs(got - want) > 0.5:
        bad.append(f"{v}: dispatch count {want:+d} against measured {got:+.1f} "
                   f"({per['134']['handler']}, {per['174']['handler']})")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
test -s "$RUNDIR/report/REPORT.md"
test -s "$RUNDIR/report/filesystems.png"
# The run says how far each of its cases is from the committed reference.
/usr/bin/python3 -c '
import json, sys
sys.path.insert(0, "analysis")
import statx_results as sr
run, d = sr.load(sys.argv[1]), json.load(open(sys.argv[2]))
mine = {(r["boot"], r["label"], r["case"]) for r in d["cases"] if r["verdict"] != "missing"}
want = set(sr.table(run))
assert mine == want, f"drift.json lacks {sorted(want - mine)[:5]}"
print("drift:", d["counts"])
' "$RUNDIR/results.json" "$RUNDIR/drift.json"
grep -q '^## Against the reference run' "$RUNDIR/report/REPORT.md"
