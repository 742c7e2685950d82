#!/usr/bin/python3
"""name_mix.py - how long the names real programs pass to the kernel are
(traces/name_lengths.bt in traces/guest-names.sh), and what the small
struct filename gains or loses on them.

Usage: name_mix.py NAMESDIR -o name_lengths.json
  NAMESDIR: what traces/guest-names.sh wrote (names.bt, workloads).

The file holds, per workload, the histogram of name lengths (the NUL not
counted) over the programs that are its own; names are not kept.  A name
cut at the trace's string limit counts as that long ("cut").  The report
weighs each workload's histogram with the per-length change the series
makes to stat() (weighted()).
"""
import argparse
import bisect
import collections
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from md import fmt, md_table  # noqa: E402

NAMES_FILE = HERE / "reference" / "name_lengths.json"
# struct filename's own object holds names of up to this many bytes.
INLINE = 159
# bpftrace's string limit in traces/guest-names.sh, the NUL included.
STRLEN = 200
LINE = re.compile(r"^@n\[(.*?), (.*)\]: (\d+)$")


class NamesError(Exception):
    pass


def parse(ndir):
    ndir = pathlib.Path(ndir)
    bt, wl = ndir / "names.bt", ndir / "workloads"
    if not bt.is_file() or not wl.is_file():
        raise NamesError(f"{ndir}: no names.bt or workloads (traces/guest-names.sh)")
    by = collections.defaultdict(collections.Counter)
    for line in bt.read_text(errors="replace").splitlines():
        m = LINE.match(line)
        if m:
            by[m.group(1)][len(m.group(2).encode())] += int(m.group(3))
    out = []
    for line in wl.read_text().splitlines():
        name, comms, rc, cmd = line.split("|", 3)
        hist = collections.Counter()
        for c in comms.split():
            hist.update(by.get(c, {}))
        if not hist:
            raise NamesError(f"workload {name!r}: no name traced for {comms}")
        out.append({"workload": name, "programs": comms.split(), "status": int(rc),
                    "command": cmd, "names": sum(hist.values()),
                    "inline": sum(v for k, v in hist.items() if k <= INLINE),
                    "longest": max(hist), "cut": hist.get(STRLEN - 1, 0),
                    "hist": {str(k): hist[k] for k in sorted(hist)}})
    return {"schema": 1, "kind": "name_lengths", "inline_max": INLINE,
            "string_limit": STRLEN - 1, "workloads": out}


def load(path=NAMES_FILE):
    path = pathlib.Path(path)
    return json.loads(path.read_text()) if path.is_file() else None


def curve(r, before, after, label="ext4", suffix=""):
    """[(name length, instructions after - before)] from the stat() cases
    by name length (tag namelen: stat itself and stat.nameN), sorted."""
    pts = {}
    for c in r.doc["configs"]:
        if c["variant"] != before or c["label"] != label or \
                (c.get("kernel_append") or "") != suffix:
            continue
        for case in c["cases"]:
            n = case["name"]
            if n != "stat" and not re.fullmatch(r"stat\.name\d+", n):
                continue
            b = r.case(after + (f" [{suffix}]" if suffix else ""), label, n)
            if b is None or case["ret"] < 0 or b["ret"] < 0:
                continue
            pts[case["name_len"]] = b["median"] - case["median"]
    return sorted(pts.items())


def at(points, length):
    """The change at LENGTH, linear between measured lengths, the nearest
    measured one outside them."""
    xs = [x for x, _ in points]
    i = bisect.bisect_left(xs, length)
    if i < len(xs) and xs[i] == length:
        return points[i][1]
    if i == 0:
        return points[0][1]
    if i == len(xs):
        return points[-1][1]
    (x0, y0), (x1, y1) = points[i - 1], points[i]
    return y0 + (y1 - y0) * (length - x0) / (x1 - x0)


def weighted(points, hist):
    """The mean change per name over a histogram {length: count}."""
    n = sum(hist.values())
    return sum(at(points, int(k)) * v for k, v in hist.items()) / n if n else None


def table(r, pairs, doc=None):
    """Markdown: each workload's names and the series' mean change per
    name on each (before, after, title) pair."""
    doc = doc if doc is not None else load()
    if doc is None:
        return "No name-length trace (`make names` writes analysis/reference/name_lengths.json).\n"
    curves = [(t, curve(r, a, b)) for a, b, t in pairs]
    curves = [(t, p) for t, p in curves if len(p) >= 2]
    head = ["workload", "names copied", f"≤ {INLINE} bytes", "longest"] + \
        [f"mean change per name, {t}" for t, _ in curves]
    rows = []
    for w in doc["workloads"]:
        row = [w["workload"], fmt(w["names"]), f"{w['inline'] / w['names'] * 100:.2f}%",
               f"{w['longest']}" + ("+" if w["cut"] else "")]
        for _, p in curves:
            row.append(f"{weighted(p, w['hist']):+,.0f}")
        rows.append(row)
    return md_table(head, rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        doc = parse(a.dir)
    except NamesError as e:
        sys.exit(f"name_mix: {e}")
    pathlib.Path(a.output).write_text(json.dumps(doc, indent=1) + "\n")
    for w in doc["workloads"]:
        print(f"names: {w['workload']}: {w['names']} names, {w['inline']} of at most "
              f"{INLINE} bytes, longest {w['longest']}")


if __name__ == "__main__":
    main()
