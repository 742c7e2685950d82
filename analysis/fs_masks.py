#!/usr/bin/python3
"""stat() against statx() masks, per file system.

usage: fs_masks.py RESULTS -o DIR

RESULTS is a results.json (bench/SCHEMA.md) or its summary
(analysis/summarize.py).  Writes DIR/filesystems.png and
DIR/filesystems.svg: one panel per file system configuration (ext4,
tmpfs, nfs3, nfs4; .actimeo0: NFS without an attribute cache), one bar
per kernel (a colour each) and call: stat(), statx() by path asking for
BASIC_STATS, TYPE, SIZE, and BASIC_STATS with AT_STATX_DONT_SYNC, then by
descriptor fstat(), newfstatat(fd, "", AT_EMPTY_PATH) and statx(fd, NULL).
A call that fails (stock's EFAULT for the NULL name) is hatched and
named.  A panel whose bars span more than 20 times (a GETATTR round trip
beside fstat()) is on a log scale.  In time mode each bar carries its
median's 95% interval (the case's ci95).  Boots with init_on_alloc=0 are
left out (series.py draws them).  Nothing is written when RESULTS has
none of these configurations and cases.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import IOA0, TABLES_LINK, fmt, md_table  # noqa: E402

TAG = "mask"


def panels(doc):
    """(configurations, boots, cases) to draw: every file-system
    configuration without a netem delay, the default-command-line boots
    with a case tagged mask on them (btf runs the probe study only, and
    gets no bar), and those cases."""
    t = sr.table(doc)
    cases = sr.tagged(doc, TAG)
    labels = sr.fs_labels(doc, netem=0)
    boots = [b for b in sr.boots(doc) if sr.IOA0 not in b
             and any((b, lb, n) in t for lb in labels for n in cases)]
    return labels, boots, cases


def figures(doc, outdir):
    """The figure, or nothing without its cases; returns the PNGs made."""
    labels, boots, cases = panels(doc)
    if not labels or not boots:
        return []
    plt = sr.pyplot()
    unit = doc["configs"][0]["unit"]
    ncols = min(3, len(labels))
    nrows = -(-len(labels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols + 1.6, 3.9 * nrows),
                             sharey=True, squeeze=False)
    for ax in axes.flat[len(labels):]:
        ax.set_visible(False)
    for k, (ax, label) in enumerate(zip(axes.flat, labels)):
        vals = sr.case_bars(ax, doc, boots, label, cases)
        ax.set_yticklabels(cases, fontsize=8)
        ax.tick_params(axis="y", labelleft=k % ncols == 0)
        ax.set_title(label, fontsize=10)
        # fstat() next to a GETATTR round trip (actimeo=0): orders of magnitude.
        log = vals and max(vals) / min(vals) > 20
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(unit + " per call" + (" (log)" if log else ""), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_xlim(right=ax.get_xlim()[1] * (3 if log else 1.25))
    fig.suptitle(f"stat() against statx() masks, per file system ({sr.mode_note(doc['mode'])})",
                 fontsize=11)
    fig.tight_layout()
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="lower center",
               ncol=len(boots), fontsize=9, bbox_to_anchor=(0.5, -0.04), frameon=False)
    return [sr.save_figure(fig, outdir, "filesystems")]


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("filesystems", "Per file system")


def section(r):
    out = []
    main = sr.tagged(r.doc, "main")
    for c in sr.fs_configs(r.doc):
        if int(c["env"].get("netem_us") or 0):
            continue
        label, rows, on_nfs = c["label"], [], c["fs"] == "nfs"
        # The boots that ran this configuration (btf runs the probe study
        # only, the partial series ext4 and tmpfs only); RPCs from the whole
        # series.
        boots = [b for b in r.boots if IOA0 not in b
                 and any(r.v(b, label, n) is not None for n in main)]
        rpc_boot = r.roles.series if r.roles.series in boots else boots[-1]
        for name in main:
            vals = [r.v(b, label, name) for b in boots]
            if all(v is None for v in vals):
                continue
            row = [f"`{name}`"] + [fmt(v) + ("" if (r.case(b, label, name) or {}).get("ret", 0) >= 0
                                             else f" ({r.case(b, label, name)['errno']})")
                                   for v, b in zip(vals, boots)]
            if on_nfs:
                ops = (r.case(rpc_boot, label, name) or {}).get("nfs_ops_per_call", {})
                row.append(fmt(ops.get("GETATTR"), 2))
            rows.append(row)
        head = ["case"] + boots + ([f"GETATTR/call ({rpc_boot})"] if on_nfs else [])
        out += [f"**{label}**", "", md_table(head, rows), ""]
    return "\n".join(out).rstrip()


def brief(r):
    """REPORT.md's version: the cases tagged mask, one column per
    configuration without a netem delay, stock → patched in each cell;
    the full tables go to the tables file."""
    labels = sr.fs_labels(r.doc, netem=0)
    base, new = r.roles.base, r.roles.series
    rows = []
    for name in sr.tagged(r.doc, TAG):
        cells = []
        for lb in labels:
            a, b = r.case(base, lb, name), r.case(new, lb, name)
            if not a or not b:
                cells.append("–")
                continue
            cells.append(f"{fmt(a['median'])}{' (' + a['errno'] + ')' if a['ret'] < 0 else ''}"
                         f" → {fmt(b['median'])}")
        if any(c != "–" for c in cells):
            rows.append([f"`{name}`"] + cells)
    if not rows:
        return section(r)
    return (f"{base} → {new}, {r.unit} per call, the cases tagged `{TAG}`; every case on every "
            f"configuration{''.join(f', {p} included' for p in r.roles.partials)}, with its "
            f"GETATTR count: {TABLES_LINK}.\n\n"
            + md_table(["case"] + labels, rows))


def main():
    sr.figure_main(__doc__, figures, "no per-file-system cases")


if __name__ == "__main__":
    main()
