#!/usr/bin/python3
"""Earlier runs kept beside the reference, and how far each is from it.

usage: runs.py SUMMARY -o FILE      keep a run: its cases' medians and
                                    intervals, compactly (analysis/reference/runs/)

A kept run holds, per case, its boot, configuration label, name, median
and 95% interval (every run kept so far predates ci_ranks: its interval
is the earlier rule's, bench/SCHEMA.md), and per kernel the config hash
it was built from.  The report compares each kept run built from the
same configs with the reference case by case (analysis/drift.py's rule:
a case moved when the two intervals, widened by the jitter of calls that
allocate a name, do not overlap): the run-to-run spread between separate
boots, days and machines.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import drift  # noqa: E402
import statx_results as sr  # noqa: E402
from md import TABLES_LINK, fmt, md_table  # noqa: E402

RUNS = pathlib.Path(__file__).resolve().parent / "reference" / "runs"


def compact(doc):
    """The kept form of a results document or summary."""
    cases = []
    for c in doc["configs"]:
        for x in c["cases"]:
            lo, hi = x.get("ci95") or (x["median"], x["median"])
            cases.append([sr.boot_name(c), c["label"], x["name"], x["median"], lo, hi])
    hashes = {c["variant"]: c["vm"].get("config_hash", "") for c in doc["configs"]}
    inputs = {c["variant"]: c["vm"]["kernel_inputs"] for c in doc["configs"]
              if c["vm"].get("kernel_inputs")}
    return {"schema": 1, "kind": "run", "run_id": doc.get("run_id", "?"), "mode": doc["mode"],
            "config_hashes": hashes, **({"kernel_inputs": inputs} if inputs else {}),
            "cases": cases}


def as_doc(run):
    """A kept run as the table drift.compare reads: {(boot, label, name): case}."""
    return {(b, lb, n): {"median": m, "ci95": [lo, hi]} for b, lb, n, m, lo, hi in run["cases"]}


def compare(ref, run, variants=None):
    """Counts of one kept run against the reference document: identical,
    inside the spread, beyond it, in all and for the local cases (not NFS,
    not a writer's dirty page), and the local case that moved most; only
    the boots of VARIANTS when given."""
    if run["mode"] != ref["mode"]:
        raise drift.ModeMismatch(f"run {run['run_id']} is {run['mode']} mode")
    a, b = sr.table(ref), as_doc(run)
    out = {"same": 0, "within": 0, "moved": 0, "local_moved": 0, "local": 0,
           "largest": None, "moved_cases": []}
    for key in sorted(set(a) & set(b)):
        boot, label, name = key
        if variants is not None and boot.split(" [")[0] not in variants:
            continue
        x, y = a[key], b[key]
        (lo, hi), (rlo, rhi) = drift.interval(x, ref["mode"]), drift.interval(y, ref["mode"])
        v = ("same" if x["median"] == y["median"] else
             "within" if lo <= rhi and rlo <= hi else "moved")
        out[v] += 1
        local = not label.startswith("nfs") and "dirty" not in x.get("tags", [])
        if v == "moved":
            out["moved_cases"].append(f"{boot} {label} {name}")
        if local:
            out["local"] += 1
            out["local_moved"] += v == "moved"
            d = abs(x["median"] - y["median"])
            if out["largest"] is None or d > out["largest"][0]:
                out["largest"] = (d, f"{boot} {label} `{name}`")
    return out


def kept_runs(path=RUNS):
    """Every kept run, each checked against bench/schema.json's run."""
    return [sr.validate(json.loads(p.read_text()), "run")
            for p in sorted(pathlib.Path(path).glob("*.json"))]


def section(r, path=RUNS, last=None):
    """The run-to-run spread: each kept run built from the reference's
    configs against the reference; LAST: only the newest LAST of them, the
    others named in a line."""
    mine = {c["variant"]: c["vm"].get("config_hash", "") for c in r.doc["configs"]}
    rows, other = [], []
    for run in kept_runs(path):
        if any(mine.get(v) != h for v, h in run["config_hashes"].items()):
            other.append(run["run_id"])
            continue
        # The series' kernels change with the patches, which the config
        # hash does not see: only the base kernel is the same in every run.
        c = compare(r.doc, run, {r.roles.base})
        d, where = c["largest"] or (0, "–")
        rows.append([f"`{run['run_id']}`", fmt(c["same"]), fmt(c["within"]), fmt(c["moved"]),
                     f"{c['local_moved']} of {fmt(c['local'])}", f"{fmt(d, 1)} ({where})"])
    if not rows:
        return "No earlier run kept in analysis/reference/runs/ with these configs.\n"
    older = len(rows) - last if last and len(rows) > last else 0
    rows = rows[older:]
    out = [f"The reference `{r.doc.get('run_id', '?')}` against the runs kept in "
           f"`analysis/reference/runs/`, on the base kernel ({r.roles.base}), the one every "
           "run built from the same source: cases with the same median, moved inside both "
           "intervals (widened by a name's allocator jitter), beyond them; the local ones "
           "(not NFS, no dirty page) beyond, and the largest local change.", "",
           md_table(["run", "identical", "inside the spread", "beyond", "local beyond",
                     "largest local change"], rows)]
    if older:
        out += ["", f"Earlier kept runs ({fmt(older)}): {TABLES_LINK}."]
    if other:
        out += ["", "Kept but built from other configs, not compared: " +
                ", ".join(f"`{x}`" for x in other) + "."]
    return "\n".join(out) + "\n"


def brief(r):
    """REPORT.md's version: the newest three kept runs."""
    return section(r, last=3)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("summary")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    # Read as JSON: a run kept from before the harness wrote tags has none,
    # and its kept form does not need them.
    run = sr.validate(compact(json.loads(pathlib.Path(a.summary).read_text())), "run")
    pathlib.Path(a.output).write_text(json.dumps(run, separators=(",", ":")) + "\n")
    print(f"runs: {run['run_id']}, {len(run['cases'])} cases -> {a.output}")


if __name__ == "__main__":
    main()
