#!/usr/bin/python3
"""Which GETATTR of an NFSv4 stat() a read delegation spares, per kernel
(traces/nfs4-sites.sh; make nfs4-sites).

usage: nfs4_sites.py RUNDIR... -o FILE    summarise guest runs, one per kernel
       nfs4_sites.py [FILE]               print the finding

Each RUNDIR holds vm.env and nfs_sites.closed.txt / nfs_sites.deleg.txt:
the call-site trace (traces/nfs_getattr_sites.bt) of 20 stat() calls by
path on NFSv4.2 with actimeo=0, with no descriptor open on the file, then
with one held open and a read delegation held for it (as the benchmark's
harness holds it).  The summary keeps each state's rows
(analysis/nfs_sites.py), the rows the delegation spares (in "closed",
not in "deleg"), and, for each kernel after the first, the rows of the
delegated state it spares against the first kernel.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import nfs_sites  # noqa: E402
import statx_results as sr  # noqa: E402

SITES_FILE = pathlib.Path(__file__).resolve().parent / "reference" / "nfs4_sites.json"
STATES = ("closed", "deleg")


def key(row):
    """A row without its count: RPC, component, phase, step, function."""
    return tuple(row[:5])


def spared(before, after):
    """Rows of BEFORE (per call) that AFTER has fewer of: [row..., less]."""
    a = {key(r): r[5] for r in after}
    out = []
    for r in before:
        d = r[5] - a.get(key(r), 0)
        if d > 0.005:
            out.append(list(key(r)) + [round(d, 2)])
    return out


def summarise(rundirs):
    kernels = {}
    for d in map(pathlib.Path, rundirs):
        env = sr.read_env(d / "vm.env")
        states = {}
        for s in STATES:
            f = d / f"nfs_sites.{s}.txt"
            if not f.is_file():
                raise SystemExit(f"{f}: missing (make nfs4-sites writes it)")
            try:
                site = nfs_sites.parse(f.read_text())
            except ValueError as e:
                raise SystemExit(f"{f}: {e}")
            if site["calls_traced"] < site["calls"]:
                raise SystemExit(f"{f}: {site['calls_traced']} calls traced of {site['calls']}")
            states[s] = {"getattr_per_call": round(nfs_sites.per_call(site, "GETATTR"), 2),
                         "rpcs_per_call": round(nfs_sites.per_call(site), 2),
                         "rows": [r[:5] + [round(r[5], 2)] for r in nfs_sites.rows(site)]}
        kernels[env.get("variant", d.name)] = {
            "release": env.get("release", "?"),
            "started": env.get("started", ""), "states": states,
            "spared_by_delegation": spared(states["closed"]["rows"], states["deleg"]["rows"])}
    names = list(kernels)
    first = kernels[names[0]]["states"]["deleg"]["rows"]
    for n in names[1:]:
        k = kernels[n]
        k["against"] = names[0]
        k["spared_against_first"] = spared(first, k["states"]["deleg"]["rows"])
        k["added_against_first"] = spared(k["states"]["deleg"]["rows"], first)
    return {"schema": 1, "kind": "nfs4_sites", "kernels": kernels}


def load(path=SITES_FILE):
    path = pathlib.Path(path)
    return json.loads(path.read_text()) if path.is_file() else None


def describe(rows):
    """Rows as words: count, RPC, component, the step that asked (in the
    path walk, its VFS step) and the NFS function that sent it."""
    def where(r):
        return f"{r[3]} in the path walk" if r[2] == "path walk" else r[2]
    return "; ".join(f"{r[5]:g} {r[0]} of {r[1]} from {where(r)} ({r[4]})" for r in rows) or "none"


def short(rows):
    """Rows in a few words: each RPC by its component and the step that
    sent it."""
    def where(r):
        return r[3].split(" (")[0] if r[2] == "path walk" else r[2]
    return " and ".join(f"{r[1]}'s {r[0]} from {where(r)}" for r in rows) or "nothing"


def finding_brief(d):
    """The same in one sentence per kernel, for REPORT.md."""
    out = []
    for n, k in d["kernels"].items():
        c, o = k["states"]["closed"], k["states"]["deleg"]
        out.append(f"{n}: {c['getattr_per_call']:g} GETATTRs closed, {o['getattr_per_call']:g} "
                   f"delegated (it spares {short(k['spared_by_delegation'])})")
    return ("The trace above held the file closed; held open with knfsd's read "
            "delegation, as in the benchmark, stat() by path makes: "
            + "; ".join(out) + " (make nfs4-sites: analysis/reference/nfs4_sites.json).")


def finding(d):
    """The paragraph REPORT.md's NFS section carries."""
    out = []
    for n, k in d["kernels"].items():
        c, o = k["states"]["closed"], k["states"]["deleg"]
        out.append(f"On {n} ({k['release']}), stat() by path makes {c['getattr_per_call']:g} "
                   f"GETATTRs per call with no descriptor open on the file and "
                   f"{o['getattr_per_call']:g} with one held open and knfsd's read delegation "
                   f"for it, as the benchmark holds it; the delegation spares "
                   f"{describe(k['spared_by_delegation'])}.")
        if "against" in k:
            out.append(f"With the delegation, {n} spares against {k['against']}: "
                       f"{describe(k['spared_against_first'])}; and adds: "
                       f"{describe(k['added_against_first'])}.")
    return "  ".join(out) + " (make nfs4-sites: analysis/reference/nfs4_sites.json.)"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    if a.output:
        if not a.paths:
            ap.error("RUNDIR... with -o")
        d = summarise(a.paths)
        pathlib.Path(a.output).write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
    else:
        d = load(a.paths[0] if a.paths else SITES_FILE)
        if d is None:
            sys.exit("no nfs4_sites.json: make nfs4-sites writes it")
    print(finding(d))


if __name__ == "__main__":
    main()
