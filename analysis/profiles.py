#!/usr/bin/python3
"""The profiles' conclusion: which kernel functions take a different share
of a call's samples before and after the series.

usage: profiles.py RESULTS         print the section

merge.py keeps each profile's top-symbol table (traces/guest-traces.sh's
profiles/top.<scenario>.md, written by flamegraph.py) as
profiles[variant][scenario] = {"samples", "symbols": [{symbol, self,
total}]}.  In cost mode perf's cpu-clock follows the guest's virtual
clock, so a share is a share of the instructions the call ran.
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import Report, md_table  # noqa: E402

ROW = re.compile(r"^\| `([^`]+)` \| ([\d.]+) \| ([\d.]+) \|$")
SAMPLES = re.compile(r"^(\d+) samples\.$")
# The scenarios the section compares, with the flame graphs REPORT.md links.
FIGURES = "analysis/reference/figures"


def parse_top(text):
    """A top.<scenario>.md as {"samples", "symbols"}; ValueError without
    its sample count."""
    symbols, samples = [], None
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            symbols.append({"symbol": m.group(1), "self": float(m.group(2)),
                            "total": float(m.group(3))})
        m = SAMPLES.match(line)
        if m:
            samples = int(m.group(1))
    if samples is None:
        raise ValueError("no 'N samples.' line")
    return {"samples": samples, "symbols": symbols}


def changes(before, after, n=5):
    """The N symbols whose own samples (self share times the profile's
    samples) moved most: [(symbol, before %, after %, before samples,
    after samples)]; a symbol missing from a top table counts as 0."""
    a = {s["symbol"]: s["self"] for s in before["symbols"]}
    b = {s["symbol"]: s["self"] for s in after["symbols"]}

    def n_of(share, prof):
        return share / 100 * prof["samples"]
    keys = sorted(set(a) | set(b), key=lambda k: (-abs(n_of(b.get(k, 0), after) -
                                                       n_of(a.get(k, 0), before)), k))
    return [(k, a.get(k, 0.0), b.get(k, 0.0), n_of(a.get(k, 0), before),
             n_of(b.get(k, 0), after)) for k in keys[:n]]


# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("profiles", "Profiles")


def section(r, only=None):
    """Per scenario both stock and patched were profiled in: the functions
    whose own samples moved most (a sample is a fixed number of guest
    instructions in cost mode, so samples compare across kernels where
    shares would not), and the flame graphs."""
    prof = r.doc.get("profiles") or {}
    ro = sr.roles(sorted(prof))
    b, n = ro.base, ro.series
    if not b or not n:
        return "No profiles of the base kernel and the whole series in these results (traces off).\n"
    out = []
    for sc in prof[b]:
        if sc not in prof[n] or (only and sc not in only):
            continue
        s, p = prof[b][sc], prof[n][sc]
        rows = [[f"`{k}`", f"{x:.1f}", f"{y:.1f}", f"{nx:,.0f} → {ny:,.0f}"]
                for k, x, y, nx, ny in changes(s, p)]
        out += [f"`{sc}` ({s['samples']:,} and {p['samples']:,} samples; "
                f"[{b}]({FIGURES}/{b}.flame.{sc}.svg), "
                f"[{n}]({FIGURES}/{n}.flame.{sc}.svg)):", "",
                md_table(["function (self)", f"{b} %", f"{n} %", "its samples"], rows),
                ""]
    return "\n".join(out) or "No scenario profiled on both kernels.\n"


def brief(r):
    """REPORT.md's version: glibc's fstat() (newfstatat(fd, "")), the path
    the series changes most; every scenario in the tables file."""
    from md import TABLES_LINK
    return (section(r, only=("ext4.fstatat_empty",)).rstrip() +
            f"\n\nEvery profiled scenario: {TABLES_LINK}.")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(section(Report(sr.load(sys.argv[1]))))


if __name__ == "__main__":
    main()
