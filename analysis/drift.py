#!/usr/bin/python3
"""A run against the reference run, case by case: how far each median is
from the reference's, and which cases moved beyond their known spread.

usage: drift.py RESULTS [--reference SUMMARY] [-o DRIFT.json]

RESULTS is a run's results.json (or its summary); SUMMARY defaults to
analysis/reference/summary.json.  Cases are matched by boot (variant and
kernel command line), configuration label and case name.  A case's known
spread is its 95% interval of the median (ci95, from the harness) in
each run, widened in cost mode by the run-to-run jitter of calls that
allocate a name (JITTER instructions either way; every other local call
repeats to the instruction).  A case moved when the two widened
intervals do not overlap; a difference inside them is not a finding.
A run whose harness wrote no ci_ranks has the earlier rule's intervals
(bench/SCHEMA.md: of 9 samples the 2nd smallest to the largest); when
only one side has them, the summary says so.  Prints a summary and the
moved cases; writes DRIFT.json (default: beside RESULTS) with every
case.  Runs of different modes are not compared.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402

REFERENCE = pathlib.Path(__file__).resolve().parent / "reference" / "summary.json"
# Cost mode: what a call that allocates a name moves between boots
# (REPORT.md, Method); the widening of every interval in instructions.
JITTER = {"cost": 5.0, "time": 0.0}


class ModeMismatch(ValueError):
    pass


def interval(case, mode):
    """The case's known spread: (low, high) around its median."""
    lo, hi = case.get("ci95") or (case["median"], case["median"])
    j = JITTER[mode]
    return min(lo, case["median"]) - j, max(hi, case["median"]) + j


def compare(run, ref):
    """Every case of either document: a dict per case, run order first."""
    if run["mode"] != ref["mode"]:
        raise ModeMismatch(f"run is {run['mode']} mode, reference {ref['mode']} mode")
    mode = run["mode"]
    a, b = sr.table(run), sr.table(ref)
    rows = []
    for key in list(a) + [k for k in b if k not in a]:
        boot, label, name = key
        row = {"boot": boot, "label": label, "case": name}
        if key not in b:
            row.update(verdict="new", median=a[key]["median"])
        elif key not in a:
            row.update(verdict="missing", ref_median=b[key]["median"])
        else:
            m, r = a[key]["median"], b[key]["median"]
            (lo, hi), (rlo, rhi) = interval(a[key], mode), interval(b[key], mode)
            row.update(median=m, ref_median=r, delta=m - r,
                       delta_pct=(m - r) / abs(r) * 100 if r else None,
                       interval=[lo, hi], ref_interval=[rlo, rhi],
                       verdict="same" if m == r else
                       ("within" if lo <= rhi and rlo <= hi else "moved"))
        rows.append(row)
    return rows


def ranked(doc):
    """Are doc's intervals the ranks rule's (its harness wrote ci_ranks)?"""
    return any("ci_ranks" in x for c in doc["configs"] for x in c["cases"])


def rule_note(run, ref):
    """A sentence when the run and the reference took their intervals by
    different rules (bench/SCHEMA.md), else ''."""
    if ranked(run) == ranked(ref):
        return ""
    old = "the reference's" if ranked(run) else "this run's"
    return (f"{old.capitalize()} intervals are the earlier rule's (of 9 samples the 2nd "
            "smallest to the largest, bench/SCHEMA.md); the other's are the symmetric "
            "ranks with exact coverage (of 9, the 2nd to the 8th)")


def counts(rows):
    out = {"cases": len(rows)}
    for v in ("same", "within", "moved", "new", "missing"):
        out[v] = sum(r["verdict"] == v for r in rows)
    out["within_0.1pct"] = sum(r.get("delta_pct") is not None and abs(r["delta_pct"]) <= 0.1
                               for r in rows)
    return out


def moved_lines(rows):
    """One line per moved case, largest relative move first."""
    moved = sorted((r for r in rows if r["verdict"] == "moved"),
                   key=lambda r: -abs(r["delta_pct"] or 0))
    return [f"{r['boot']:28} {r['label']:16} {r['case']:36} "
            f"{r['ref_median']:>12,.1f} -> {r['median']:>12,.1f} ({r['delta_pct']:+.2f}%; "
            f"intervals {r['ref_interval'][0]:,.0f}-{r['ref_interval'][1]:,.0f} and "
            f"{r['interval'][0]:,.0f}-{r['interval'][1]:,.0f})" for r in moved]


def summary_line(c, ref_id):
    return (f"against reference {ref_id}: {c['cases']} cases, {c['same']} identical, "
            f"{c['within']} moved inside their spread, {c['moved']} beyond it; "
            f"{c['new']} new, {c['missing']} missing")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--reference", default=str(REFERENCE))
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    for p in (a.results, a.reference):
        if not pathlib.Path(p).is_file():
            sys.exit(f"drift.py: {p}: no such file")
    run, ref = sr.load(a.results), sr.load(a.reference)
    try:
        rows = compare(run, ref)
    except ModeMismatch as e:
        sys.exit(f"drift.py: not comparable: {e}")
    c = counts(rows)
    out = pathlib.Path(a.output or pathlib.Path(a.results).with_name("drift.json"))
    out.write_text(json.dumps({"run_id": run.get("run_id"), "reference": ref.get("run_id"),
                               "mode": run["mode"], "jitter": JITTER[run["mode"]],
                               "rule_note": rule_note(run, ref),
                               "counts": c, "cases": rows}, indent=1) + "\n")
    print(summary_line(c, ref.get("run_id")))
    if rule_note(run, ref):
        print(f"note: {rule_note(run, ref)}")
    for line in moved_lines(rows):
        print("  moved:", line)
    print(f"drift: {out}")


if __name__ == "__main__":
    main()
