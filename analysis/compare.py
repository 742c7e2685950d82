#!/usr/bin/python3
"""The regression gate: one variant against another, case by case.

usage: compare.py RESULTS --base VARIANT --new VARIANT [--threshold PCT]
                  [--labels L1,L2] [--alpha A] [-o TABLE.md]

Prints a table (configuration, case, base, new, delta, verdict) and exits
1 when any case regresses.  Cost mode: counts are exact, a delta above
--threshold percent (default: analysis/targets.py's GATE_THRESHOLD) is a
regression.  Time mode: a case
regresses when a Mann-Whitney U test on the two sets of samples rejects
"same distribution" at --alpha (default 0.01) and the medians' delta is
above the threshold.  Calibration and floor cases measure user space and
the harness, not the kernel path, and are left out; so are failed calls
(their cost is an error path's).
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
import targets as tg  # noqa: E402


def compare(doc, base, new, threshold, labels=None, alpha=0.01):
    rows = []
    for c in doc["configs"]:
        if c["variant"] != base or (labels and c["label"] not in labels):
            continue
        cn = sr.config(doc, new, c["label"], c.get("kernel_append") or "")
        if cn is None:
            continue
        newcases = {x["name"]: x for x in cn["cases"]}
        for b in c["cases"]:
            n = newcases.get(b["name"])
            if n is None or b["kind"] in ("calibration", "floor"):
                continue
            if b["ret"] < 0 or n["ret"] < 0:
                rows.append((sr.boot_name(c).replace(base, "", 1).strip() or "default",
                             c["label"], b["name"], b["median"], n["median"], None,
                             "skipped (fails: %s/%s)" % (b["errno"] or "ok", n["errno"] or "ok")))
                continue
            delta, v = sr.verdict(b, n, c["mode"], threshold, alpha)
            rows.append((sr.boot_name(c).replace(base, "", 1).strip() or "default",
                         c["label"], b["name"], b["median"], n["median"], delta, v))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--threshold", type=float, default=tg.GATE_THRESHOLD * 100)
    ap.add_argument("--alpha", type=float, default=0.01)
    ap.add_argument("--labels", default="")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    doc = sr.load(a.results)
    labels = set(a.labels.split(",")) if a.labels else None
    rows = compare(doc, a.base, a.new, a.threshold, labels, a.alpha)
    if not rows:
        sys.exit(f"compare: no cases common to {a.base} and {a.new}")
    unit = doc["configs"][0]["unit"]
    lines = [f"{a.base} -> {a.new}, {doc['mode']} mode ({unit}), threshold {a.threshold}%",
             f"{'boot':10} {'config':16} {'case':30} {'base':>12} {'new':>12} {'delta':>9}  verdict"]
    for boot, label, name, b, n, d, v in rows:
        ds = "" if d is None else f"{d:+.2f}%"
        lines.append(f"{boot[:10]:10} {label[:16]:16} {name[:30]:30} {b:12.1f} {n:12.1f} {ds:>9}  {v}")
    reg = [r for r in rows if r[6] == "regressed"]
    lines.append(f"{len(rows)} cases: {len(reg)} regressed, "
                 f"{sum(r[6] == 'improved' for r in rows)} improved, "
                 f"{sum(r[6] == 'ok' for r in rows)} within {a.threshold}%")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.output:
        pathlib.Path(a.output).write_text(text)
    sys.exit(1 if reg else 0)


if __name__ == "__main__":
    main()
