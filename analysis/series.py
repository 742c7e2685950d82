#!/usr/bin/python3
"""The patch series on ext4: stock against patched, call by call.

usage: series.py RESULTS -o DIR

RESULTS is a results.json (bench/SCHEMA.md) or its summary
(analysis/summarize.py).  Writes DIR/series.png and DIR/series.svg: one
panel per kernel command line that booted both stock and patched
(Debian's default, init_on_alloc=0), a pair of bars per case on ext4: the
calls on a descriptor the series makes cheaper (fstat(), newfstatat() and
statx() with an empty or a NULL name, statx() on an O_PATH descriptor,
glibc's fstat()), then stat(), statx(BASIC_STATS) and statx(SIZE) by path.
A call that fails (stock's EFAULT for the NULL name) is hatched and
named; in time mode each bar carries its median's 95% interval (the
case's ci95).  A kernel has the colour it has in fs_masks.py's figure.
Nothing is written without a stock and patched pair with ext4 cases.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402

# The calls by descriptor, and the calls by path drawn beside them.
TAGS = ("fd", "anchor")


def cases(doc):
    """The cases the series is shown by (bench/cases.c's fd and anchor tags)."""
    return sr.tagged(doc, *TAGS)


def pairs(doc):
    """[(stock boot, patched boot)] per command line, both with ext4 cases."""
    t = sr.table(doc)
    boots = sr.boots(doc)

    def has(b):
        return any((b, "ext4", n) in t for n in cases(doc))
    out = [(s, s.replace("stock", "patched")) for s in boots if s.startswith("stock")]
    return [(s, p) for s, p in out if p in boots and has(s) and has(p)]


def figures(doc, outdir):
    """The figure, or nothing without a stock and patched pair; returns the
    PNGs made."""
    ps = pairs(doc)
    if not ps:
        return []
    plt = sr.pyplot()
    unit = doc["configs"][0]["unit"]
    fig, axes = plt.subplots(1, len(ps), figsize=(6 * len(ps), 4), squeeze=False)
    for ax, (s, p) in zip(axes[0], ps):
        sr.case_bars(ax, doc, (s, p), "ext4", cases(doc))
        ax.set_yticklabels(cases(doc), fontsize=8)
        ax.set_xlabel(unit + " per call", fontsize=8)
        ax.set_xlim(right=ax.get_xlim()[1] * 1.15)
        ax.legend(fontsize=8)
        ax.set_title(s.replace("stock", "stock vs patched") or "default", fontsize=10)
    fig.suptitle(f"The patch series on ext4 ({sr.mode_note(doc['mode'])})", fontsize=11)
    fig.tight_layout()
    return [sr.save_figure(fig, outdir, "series")]


def main():
    sr.figure_main(__doc__, figures, "no stock and patched pair on ext4")


if __name__ == "__main__":
    main()
