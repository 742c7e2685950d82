#!/usr/bin/python3
"""A writer's stat: what each call costs after a write, and what it sends.

usage: dirty.py RESULTS -o DIR

RESULTS is a results.json (bench/SCHEMA.md) or its summary
(analysis/summarize.py).  Each `dirty.*` case writes one 4 KiB page of a
file (pwrite) and then makes its call; `dirty.write` is the pwrite alone.
Writes DIR/dirty.png and DIR/dirty.svg, for the patched boot (else the
last one): per configuration and call, the call's cost beyond the pwrite
(log scale), and on NFS the WRITE RPCs and the bytes written to the
server per call (mountstats, an untimed pass).  stat() and a statx() mask
with MTIME or CTIME must flush the page to learn them; SIZE, TYPE|MODE
and DONT_SYNC need not.  Nothing is written when RESULTS has no dirty.*
cases (a QUICK run).

In cost mode a figure is the call's busy time, the instructions the whole
guest ran for it (the harness's --busy; analysis/merge.py): a wait for the
server or a writeback timer, which jumps cost mode's clock to the next
timer deadline, is not in it.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import TABLES_LINK, fmt, md_table  # noqa: E402

# What asks for mtime or ctime (a mask naming them, or stat()'s all)
# without AT_STATX_DONT_SYNC: on NFS the dirty page is flushed first.
TIMES = 0x40 | 0x80
DONT_SYNC = 0x4000


def must_flush(case):
    return (not case["mask"] or case["mask"] & TIMES) and not case["flags"] & DONT_SYNC


def cases(doc):
    """The cases tagged dirty but not base, and the base (the write alone)."""
    base = sr.tagged(doc, "base")
    return sr.tagged(doc, "dirty", without=("base",)), (base[0] if base else None)


def colours(doc, names):
    """Warm colours for the calls that must flush, cool ones for the rest."""
    plt = sr.pyplot()
    flush = [n for n in names if must_flush(sr.case_info(doc, n))]
    rest = [n for n in names if n not in flush]
    out = {}
    for group, cmap in ((flush, plt.cm.YlOrRd), (rest, plt.cm.GnBu)):
        for i, n in enumerate(group):
            out[n] = cmap(0.9 - 0.55 * i / max(1, len(group) - 1))
    return out


def boot(doc):
    """The boot the study is read on: the whole series, else the last one."""
    boots = sr.boots(doc)
    return sr.roles(boots).series or boots[-1]


def points(doc):
    """{label: {case: (beyond the write, WRITE RPCs or None, bytes or None,
    (low, high) of the call's interval beyond the write's median)}} for
    every configuration with the base case, in fs_configs order."""
    b = boot(doc)
    t = sr.table(doc)
    names, base = cases(doc)
    labels = [lb for lb in sr.fs_labels(doc) if (b, lb, base) in t]
    out = {}
    for lb in labels:
        w = t[(b, lb, base)]["median"]
        out[lb] = {}
        for n in names:
            c = t.get((b, lb, n))
            if c is None:
                continue
            ops = c.get("nfs_ops_per_call") or {}
            lo, hi = c.get("ci95") or (c["median"], c["median"])
            out[lb][n] = (c["median"] - w, ops.get("WRITE"), ops.get("WRITE_BYTES"),
                          (lo - w, hi - w))
    return out


def figures(doc, outdir):
    """The figure, or nothing without dirty.* cases; returns the PNGs made."""
    pts = points(doc)
    if not pts:
        return []
    plt = sr.pyplot()
    mode = doc["mode"]
    labels = list(pts)
    names = list(dict.fromkeys(n for lb in labels for n in pts[lb]))
    colour = colours(doc, names)
    xs = range(len(labels))
    w = 0.8 / len(names)
    fig, (a1, a2, a3) = plt.subplots(3, 1, figsize=(max(8.0, 1.15 * len(labels) + 2), 10.5),
                                     sharex=True, gridspec_kw={"height_ratios": [2.2, 1, 1]})
    for i, n in enumerate(names):
        pos = [x - 0.4 + (i + 0.5) * w for x in xs]
        cost = [pts[lb].get(n, (None,))[0] for lb in labels]
        a1.bar([p for p, c in zip(pos, cost) if c and c > 0], [c for c in cost if c and c > 0],
               width=w, color=colour[n], label=n.replace("dirty.", ""))
        # The spread: a line from the interval's low end to its high end,
        # above zero (the axis is a log one).
        for p, lb in zip(pos, labels):
            v = pts[lb].get(n)
            if v and v[0] > 0:
                lo, hi = max(v[3][0], v[0] / 100), v[3][1]
                a1.plot([p, p], [lo, hi], color="black", linewidth=0.8)
        for p, c in zip(pos, cost):
            if c is not None and c <= 0:
                a1.text(p, 1, "≤0", ha="center", va="bottom", fontsize=6, rotation=90)
        for ax, k in ((a2, 1), (a3, 2)):
            ys = [pts[lb].get(n, (None, None, None))[k] for lb in labels]
            ax.bar([p for p, y in zip(pos, ys) if y is not None],
                   [y for y in ys if y is not None], width=w, color=colour[n])
            for p, y in zip(pos, ys):
                if y == 0:
                    ax.text(p, 0, "0", ha="center", va="bottom", fontsize=7, color=colour[n])
    for x, lb in zip(xs, labels):
        if all(v[1] is None for v in pts[lb].values()):
            for ax in (a2, a3):
                ax.text(x, 0.5, "local:\nno RPCs", ha="center", va="center", fontsize=8,
                        color="grey", transform=ax.get_xaxis_transform())
    a1.set_yscale("log")
    a1.grid(axis="y", which="major", alpha=0.3)
    if mode == "cost":
        a1.set_ylabel("instructions per call beyond the pwrite (log)\n"
                      "the whole guest's busy time; a line: its spread", fontsize=9)
    else:
        a1.set_ylabel("ns per call beyond the pwrite, median (log)", fontsize=9)
    a1.legend(title="call after the write (red, brown: want a fresh mtime, so the page is "
                    "flushed first; blue, green: do not)", fontsize=8, title_fontsize=8, ncol=4,
              loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    a2.set_ylabel("NFS WRITE RPCs\nper call", fontsize=9)
    a3.set_ylabel("bytes written to\nthe server per call", fontsize=9)
    for ax in (a2, a3):
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", alpha=0.3)
    a3.set_xticks(list(xs))
    a3.set_xticklabels(labels, rotation=30, ha="right", fontsize=9)
    a3.set_xlabel("configuration (actimeo0: no attribute cache; "
                  "netemN: a netem delay of N µs on lo)", fontsize=9)
    fig.suptitle(f"A writer's stat: one 4 KiB pwrite, then the call, {boot(doc)} "
                 f"({sr.mode_note(mode)})", fontsize=11, y=1.0)
    fig.tight_layout()
    return [sr.save_figure(fig, outdir, "dirty")]


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("dirty", "A writer's stat")


def section(r):
    bt = boot(r.doc)
    names, base = cases(r.doc)
    labels = [lb for lb in sr.fs_labels(r.doc) if r.case(bt, lb, base)]
    if not labels:
        return "No dirty-page cases in these results.\n"
    out = [f"A writer's stat: each call dirties one 4 KiB page of a file (pwrite) and then "
           f"asks; the table gives the call's cost beyond `{base}` (the pwrite "
           f"alone), {r.unit} per call, on {bt}, with the NFS WRITE RPCs and bytes "
           "written to the server per call.  In cost mode the figures are the whole "
           "guest's busy instructions: a wait for the server or a writeback timer, which "
           "jumps cost mode's clock, is left out."
           + ("" if all("filled" in c.get("tags", []) for lb in labels for c in
                        [r.case(bt, lb, n) for n in names + [base]] if c) else
              "  **These figures predate the fix of 2026-12-06:** the run's harness let "
              "each case's first 256 calls grow the file, a new page each (4 KiB zeroed "
              "with init_on_alloc=1), and a median fell on either side of that change with "
              "the calls per sample; its local figures are not a steady writer's.  The "
              "next reference run replaces them (cases tagged `filled`)."), ""]
    rows = []
    for lb in labels:
        w = r.v(bt, lb, base)
        for n in names:
            c = r.case(bt, lb, n)
            if not c:
                continue
            ops = c.get("nfs_ops_per_call") or {}
            rows.append([lb, n.replace("dirty.", ""), fmt(w), fmt(c["median"] - w),
                         f"{ops['WRITE']:.2f}" if "WRITE" in ops else "-",
                         fmt(ops["WRITE_BYTES"]) if "WRITE_BYTES" in ops else "-"])
    out += [md_table(["config", "call after the write", "pwrite alone", "call beyond it",
                      "WRITE RPCs", "bytes written"], rows)]
    return "\n".join(out) + "\n"


def brief(r):
    """REPORT.md's version: what the table holds and where it is."""
    full = section(r)
    intro = full.split("\n\n")[0]
    return intro + f"\n\nThe table, per configuration and call: {TABLES_LINK}."


def main():
    sr.figure_main(__doc__, figures, "no dirty.* cases")


if __name__ == "__main__":
    main()
