#!/usr/bin/python3
"""Reduce a run's results.json to the small summary that backs REPORT.md.

usage: summarize.py RESULTS.json -o SUMMARY.json

Same schema as results.json (bench/SCHEMA.md), with each case's samples
cut to median, min and max (cost mode; exact counts need no more) or kept
(time mode, where the report's confidence intervals need them).  No raw
traces, no console logs.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results  # noqa: E402


def summarize(doc):
    out = {k: v for k, v in doc.items() if k != "configs"}
    out["summary"] = True
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
            s = case["samples"]
            case["n"] = len(s)
            case["min"] = min(s)
            case["max"] = max(s)
            if c["mode"] == "cost":
                case["samples"] = [case["median"]]
            cases.append(case)
        c["cases"] = cases
        out["configs"].append(c)
    return statx_results.validate(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    doc = summarize(statx_results.load(a.results))
    pathlib.Path(a.output).write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n")
    print(f"summary: {a.output}")


if __name__ == "__main__":
    main()
