#!/usr/bin/python3
"""NFSv4 delegations and the GETATTRs they save (traces/nfs4-delegation.sh).

usage: delegation.py RUNDIR -o FILE     summarise a guest run (make nfs4-delegation)
       delegation.py FILE               print its REPORT.md paragraph

RUNDIR holds, per phase (path: stat by path, nothing open; fd: the same
stat while the harness holds the file open, and fstat on that
descriptor; both in knfsd's grace period and again after it
(.after_grace); bench: every NFS case with the attribute cache, then
again with actimeo=0 in the same directory, as the benchmark runs them),
the harness's file deleg.PHASE.json (GETATTRs per call from mountstats) and deleg.PHASE.bt
(bpftrace's output of traces/nfs4_delegation.bt: the client's
nfs4_set_delegation and nfs4_delegreturn_exit, knfsd's nfsd_deleg_read),
grace (knfsd's grace period, seconds) and vm.env.  FILE is the summary
(bench/schema.json, delegation): analysis/reference/nfs4_delegation.json.
"""
import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402

PHASES = ("path", "fd", "path.after_grace", "fd.after_grace", "bench")
EVENTS = ("set_delegation", "delegreturn", "nfsd_deleg_read")
DELEGATION_FILE = pathlib.Path(__file__).resolve().parent / "reference" / "nfs4_delegation.json"


def bt_maps(text):
    """The maps bpftrace printed at exit ("@name: N", "@name[key]: N"):
    {name: count}, a keyed map summed over its keys (and kept by key under
    NAME_by_key); a map that never counted is not printed, so it is 0.
    Output without the script's banner (printed by BEGIN once every probe
    is attached) is refused: a script that never ran counted nothing,
    which is not zero."""
    if "Hit Ctrl-C to end." not in text:
        raise SystemExit("bpftrace never attached (its output: "
                         f"{text.strip()[:300]!r}): no count is a count of nothing")
    out = {e: 0 for e in EVENTS}
    for name, key, val in re.findall(r"^@(\w+)(?:\[([^\]]*)\])?: (\d+)$", text, re.M):
        if key:
            out.setdefault(f"{name}_by_key", {})[key] = int(val)
            out[name] = sum(out[f"{name}_by_key"].values())
        else:
            out[name] = int(val)
    return out


def summarise(rundir):
    rundir = pathlib.Path(rundir)
    env = sr.read_env(rundir / "vm.env")
    phases = {}
    for ph in PHASES:
        h = sr.validate(json.loads((rundir / f"deleg.{ph}.json").read_text()), "harness_file")
        phases[ph] = {
            "events": bt_maps((rundir / f"deleg.{ph}.bt").read_text()),
            "getattr_per_call": {c["name"]: c["nfs_ops_per_call"]["GETATTR"] for c in h["cases"]},
            "mount": h["env"].get("mount", ""),
        }
    return {"schema": 1, "kind": "delegation", "release": env.get("release", ""),
            "variant": env.get("variant", ""), "started": env.get("started", ""),
            "grace_s": int((rundir / "grace").read_text()), "phases": phases}


def granted(phase):
    """Did the server grant a read delegation and the client record it?"""
    e = phase["events"]
    return e["nfsd_deleg_read"] > 0 and e["set_delegation"] > 0


def paragraph(d):
    """What the run shows, in words.  A delegation is the explanation only
    if, in every phase that ran fstat(), it made no GETATTR exactly where a
    delegation was granted, and both kinds of phase are there; with no
    delegation anywhere it is refuted."""
    ph = d["phases"]
    g = f"in knfsd's grace period (the first {d['grace_s']} s after it starts)"
    what = {"path": f"stat() by path, nothing open, {g}",
            "fd": f"the same with the file held open, and fstat() on it, {g}",
            "path.after_grace": "stat() by path, nothing open, after the grace period",
            "fd.after_grace": "the same with the file held open, and fstat() on it, after "
                              "the grace period",
            "bench": ("every NFS case of the benchmark, as it runs them (after the grace "
                      "period): first with the attribute cache, then again with `actimeo=0` "
                      "in the same directory (these counts)")}
    parts = []
    for name in (n for n in PHASES if n in ph):
        p = ph[name]
        g = p["getattr_per_call"]
        calls = ", ".join(f"`{c}` {g[c]:.2f}" for c in ("stat", "fstat") if c in g)
        parts.append(f"{what[name]}: GETATTRs per call {calls}; read delegations granted "
                     f"{p['events']['nfsd_deleg_read']}, recorded by the client "
                     f"{p['events']['set_delegation']}")
    measured = [p for p in ph.values() if "fstat" in p["getattr_per_call"]]
    consistent = all((p["getattr_per_call"]["fstat"] == 0) == granted(p) for p in measured)
    with_d = [p for p in measured if granted(p)]
    without = [p for p in measured if not granted(p)]
    if not any(granted(p) for p in ph.values()):
        verdict = ("Refuted: no read delegation was granted in any phase, so a delegation "
                   "does not explain v4's counts")
    elif consistent and with_d and without:
        verdict = ("Confirmed: while the client holds a read delegation it trusts its "
                   "cached attributes of that file, so fstat() makes no GETATTR and stat() "
                   "by path one fewer (the file's own); where none is granted, the counts "
                   "are v3's")
        why = []
        if not any(granted(ph[n]) for n in ("path", "path.after_grace") if n in ph):
            why.append("with nothing open, as in the call-site trace above, none is granted")
        if "fd.after_grace" in ph and granted(ph["fd.after_grace"]) and not granted(ph["fd"]):
            why.append("in knfsd's grace period none is granted either" +
                       ("; run as the benchmark runs its cases, after the grace period, "
                        "the file gets one (5)" if granted(ph["bench"]) else ""))
        if why:
            text = "; ".join(why)
            verdict += ".  " + text[0].upper() + text[1:]
    else:
        verdict = ("Not settled: delegations were granted, but the GETATTR counts do not "
                   "move with them as a delegation would make them")
    return (f"NFSv4.2 with `actimeo=0` ({d['variant']}, {d['release']}, booted "
            f"{d['started']}; `make nfs4-delegation`, traces/nfs4-delegation.sh, "
            "nfsd:nfsd_deleg_read and nfs4:nfs4_set_delegation).  " +
            "; ".join(f"({i}) {x}" for i, x in enumerate(parts, 1)) + f".\n\n{verdict}.\n")


def section(path=DELEGATION_FILE):
    path = pathlib.Path(path)
    if not path.is_file():
        return (f"No delegation run ({path.name} is missing; `make nfs4-delegation` "
                "writes it).\n")
    return paragraph(sr.validate(json.loads(path.read_text()), "delegation"))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    if a.output:
        d = sr.validate(summarise(a.path), "delegation")
        pathlib.Path(a.output).write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
        print(paragraph(d), end="")
    else:
        print(section(a.path), end="")


if __name__ == "__main__":
    main()
