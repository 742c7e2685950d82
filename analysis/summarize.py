#!/usr/bin/python3
"""Reduce a run's results.json to the small summary that backs REPORT.md.

usage: summarize.py RESULTS.json -o SUMMARY.json

Same schema as results.json (bench/SCHEMA.md), with each case's samples
cut to median, min and max (cost mode; exact counts need no more) or kept
(time mode, where the report's confidence intervals need them).  Either
way a case keeps its interval of the median: the two order statistics
(ci95), their ranks among the samples and their coverage (ci_ranks,
ci_level), checked against the samples before they are cut.  The
clock's figures (clock_*) only where they differ from the busy time's (a
call that idled); of each kernel's dispatch, the system calls the
analysis reads.  No raw
traces, no console logs.  Written compact, keys sorted, a line per
top-level section, configuration and case (a diff shows the cases that
changed).
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import series  # noqa: E402
import statx_results  # noqa: E402


def check_interval(case):
    """Refuse a case whose ci95 is not the pair of its samples' order
    statistics at ci_ranks (a harness from before ci_ranks wrote neither,
    and its ci95 is kept as it stands): what the summary keeps of the
    interval must say the same as the samples it cuts."""
    ranks = case.get("ci_ranks")
    if ranks is None:
        return
    s = sorted(case["samples"])
    lo, hi = ranks
    if not 1 <= lo <= hi == len(s) + 1 - lo or [s[lo - 1], s[hi - 1]] != case["ci95"]:
        raise ValueError(f"case {case['name']}: ci95 {case['ci95']} is not the order "
                         f"statistics {ranks} of its {len(s)} samples")


def summarize(doc):
    out = {k: v for k, v in doc.items() if k != "configs"}
    out["summary"] = True
    # Each kernel's dispatch: the numbers the analysis reads, not all ~450.
    if out.get("dispatch"):
        keep = {str(n) for n in series.DISPATCH_NRS}
        out["dispatch"] = {k: {**d, "per_nr": {n: x for n, x in d["per_nr"].items() if n in keep}}
                           for k, d in out["dispatch"].items()}
    out["configs"] = []
    seen_diffs = set()
    for c in doc["configs"]:
        c = dict(c)
        # The config diff is the same for every configuration of a boot:
        # keep its first copy only.
        diff = c.get("config_diff", "")
        c["config_diff"] = "" if diff in seen_diffs else diff
        seen_diffs.add(diff)
        cases = []
        for case in c["cases"]:
            case = dict(case)
            check_interval(case)
            s = case["samples"]
            idle = case.get("clock_samples") not in (None, s)
            case["n"] = len(s)
            case["min"] = min(s)
            case["max"] = max(s)
            if c["mode"] == "cost":
                case["samples"] = [case["median"]]
                if "clock_samples" in case:
                    case["clock_samples"] = [case["clock_median"]]
                # Where nothing idled the clock is the busy time, sample for
                # sample (tests/checks.py holds results.json to it): kept
                # only where it differs.
                if not idle:
                    for k in ("clock_median", "clock_samples", "clock_ci95"):
                        case.pop(k, None)
            cases.append(case)
        c["cases"] = cases
        out["configs"].append(c)
    return statx_results.validate(out)


def dumps(doc):
    """DOC as compact JSON, keys sorted (a configuration's cases last):
    each top-level section, each configuration and each of its cases
    starts a line."""
    def j(x):
        return json.dumps(x, separators=(",", ":"), sort_keys=True)

    def config(c):
        head = j({k: v for k, v in c.items() if k != "cases"})
        return (head[:-1] + ("," if head != "{}" else "") + '"cases":[\n'
                + ",\n".join(j(x) for x in c["cases"]) + "]}")
    parts = [j(k) + ":" + ("[\n" + ",\n".join(config(c) for c in v) + "]"
                           if k == "configs" else j(v))
             for k, v in sorted(doc.items())]
    return "{" + ",\n".join(parts) + "}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        doc = summarize(statx_results.load(a.results))
    except ValueError as e:
        sys.exit(f"summarize.py: {a.results}: {e}")
    pathlib.Path(a.output).write_text(dumps(doc))
    print(f"summary: {a.output}")


if __name__ == "__main__":
    main()
