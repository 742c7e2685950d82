#!/usr/bin/python3
"""NFS over loopback: what each call costs, and the GETATTRs it sends.

usage: nfs.py RESULTS -o DIR

RESULTS is a results.json (bench/SCHEMA.md) or its summary
(analysis/summarize.py).  Writes DIR/nfs.png and DIR/nfs.svg for the
patched boot (else the first one): a row per NFS configuration (nfs3,
nfs4; actimeo0: mounted with actimeo=0, no attribute cache; netemN: a
netem delay of N µs on lo) and in it a bar per call: stat(), statx()
asking for BASIC_STATS and for SIZE, and BASIC_STATS with
AT_STATX_FORCE_SYNC and with AT_STATX_DONT_SYNC.  Left, the call's cost
(log scale); right, the GETATTR RPCs it sends per call (the case's
nfs_ops_per_call).  Nothing is written when RESULTS has no NFS
configuration with these cases on that boot.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import mix  # noqa: E402
import nfs4_sites  # noqa: E402
import nfs_sites  # noqa: E402
import statx_results as sr  # noqa: E402
from md import TABLES_LINK, fmt, md_table  # noqa: E402

TAG = "sync"


def boot(doc):
    """The boot the NFS study is read on: the whole series, else the first
    one."""
    boots = sr.boots(doc)
    return sr.roles(boots).series or boots[0]


def rows(doc):
    """{configuration: [(cost or 0, GETATTRs per call or 0) per case
    tagged sync]} on boot(doc), for every NFS configuration with any of
    them there."""
    b = boot(doc)
    t = sr.table(doc)
    cases = sr.tagged(doc, TAG)
    out = {}
    for lb in sr.fs_labels(doc, fs="nfs"):
        if not any((b, lb, n) in t for n in cases):
            continue
        cs = [t.get((b, lb, n)) or {} for n in cases]
        out[lb] = [(c.get("median") or 0, (c.get("nfs_ops_per_call") or {}).get("GETATTR", 0))
                   for c in cs]
    return out


def figures(doc, outdir):
    """The figure, or nothing without NFS cases; returns the PNGs made.
    A dot per case and configuration, its spread (the 95% interval of the
    median) drawn as a line through it: the cost on a log axis, and the
    GETATTR RPCs per call beside it."""
    r = rows(doc)
    if not r:
        return []
    plt = sr.pyplot()
    unit = doc["configs"][0]["unit"]
    nfs = list(r)
    cases = sr.tagged(doc, TAG)
    t, b = sr.table(doc), boot(doc)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 1.6 + 0.55 * len(nfs)), sharey=True,
                                 gridspec_kw={"width_ratios": [3, 1]})
    markers = "osD^v<>ph*"
    for i, n in enumerate(cases):
        dy = (i - (len(cases) - 1) / 2) * 0.07
        for y, lb in enumerate(nfs):
            c = t.get((b, lb, n))
            if not c or c["ret"] < 0:
                continue
            lo, hi = c.get("ci95") or (c["median"], c["median"])
            a1.plot([lo, hi], [y + dy] * 2, color=f"C{i}", linewidth=1)
            a1.plot(c["median"], y + dy, markers[i % len(markers)], color=f"C{i}",
                    markersize=4, label=n if y == 0 else None)
            a2.plot(r[lb][i][1], y + dy, markers[i % len(markers)], color=f"C{i}", markersize=4)
    a1.set_yticks(range(len(nfs)))
    a1.set_yticklabels(nfs, fontsize=8)
    a1.set_ylim(len(nfs) - 0.5, -0.5)
    a1.set_xscale("log")
    a1.grid(axis="x", which="major", alpha=0.3)
    a2.grid(axis="x", alpha=0.3)
    # Cost mode: the whole guest's busy instructions (--busy), the caller's,
    # knfsd's and the network stack's; an idle wait's clock jump is not in it.
    a1.set_xlabel(("instructions per call (log): the whole guest's, client, knfsd and "
                   "network stack" if doc["mode"] == "cost" else unit + " per call (log)"),
                  fontsize=8)
    a2.set_xlabel("GETATTR RPCs per call", fontsize=8)
    fig.legend(*a1.get_legend_handles_labels(), loc="lower center", ncol=min(len(cases), 5),
               fontsize=7, frameon=False)
    fig.suptitle(f"NFS over loopback, {b} ({sr.mode_note(doc['mode'])}); a line through a "
                 "dot is its spread", fontsize=9)
    fig.tight_layout(rect=(0, 0.08, 1, 0.96))
    return [sr.save_figure(fig, outdir, "nfs")]


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("nfs", "NFS")


def sites_text(r):
    """Where each RPC of a stat() comes from (traces/nfs_getattr_sites.bt),
    per scenario CONFIGURATION+CASE, beside the benchmark's own count."""
    sites = (r.doc.get("nfs_sites") or {})
    variant = boot(r.doc) if boot(r.doc) in sites else next(iter(sites), None)
    if variant is None:
        return ""
    out = [f"Where each RPC comes from ({variant}, traces/nfs_getattr_sites.bt: the stack "
           "and the inode of every GETATTR and ACCESS started during the call; the phase "
           "is read from the series' stat:vfs_getattr_enter/exit events, which bracket "
           "->getattr; for a d_revalidate the inode revalidated is the directory holding "
           "the dentry):", ""]
    for name, site in sites[variant].items():
        label, _, case = name.partition("+")
        bench = (sr.case(r.doc, variant, label, case) or {}).get("nfs_ops_per_call") or {}
        got = nfs_sites.per_call(site, "GETATTR")
        check = ""
        if "GETATTR" in bench:
            check = (f"; the benchmark counted {bench['GETATTR']:.2f} "
                     f"({'the same' if abs(bench['GETATTR'] - got) < 0.005 else '**not the same**'})")
        out += [f"`{case}` on {label}: {got:.2f} GETATTR and {nfs_sites.per_call(site):.2f} "
                f"RPCs per call traced over {site['calls']} calls{check}.", "",
                md_table(["RPC", "inode", "phase", "VFS step", "NFS function", "per call"],
                         [row[:5] + [f"{row[5]:.2f}"] for row in nfs_sites.rows(site)]), ""]
    return "\n".join(out) + "\n"


def delegation_text(path=nfs4_sites.SITES_FILE, brief=False):
    """Why NFSv4 counts fewer GETATTRs than its trace with no file open,
    and 6.12 fewer than 6.1: the read delegation the benchmark's open file
    holds, traced with and without it (make nfs4-sites)."""
    d = nfs4_sites.load(path)
    if d is None:
        return ""
    return ("**NFSv4 and the read delegation:** " +
            (nfs4_sites.finding_brief(d) if brief else nfs4_sites.finding(d)))


def flush_text(r, doc=None, label="nfs3", a="statx.SIZE", b="statx.MTIME", top=6):
    """What asking for MTIME adds to a statx() of a clean NFS file with
    the attribute cache on, function by function, from the instruction
    mix: nfs_getattr() flushes the file's dirty pages before it answers
    for the times (the server owns them), and with none dirty the flush
    still runs its checks."""
    doc = doc if doc is not None else mix.load_mix()
    if doc is None:
        return ""
    out = []
    for v in dict.fromkeys(x for x in (r.roles.base, boot(r.doc)) if x):
        ma, mb = mix._get(doc, (v, a), label), mix._get(doc, (v, b), label)
        if not ma or not mb:
            continue
        fa, fb = dict(map(tuple, ma["functions"])), dict(map(tuple, mb["functions"]))
        diff = sorted(((f, fb.get(f, 0) - fa.get(f, 0)) for f in set(fa) | set(fb)),
                      key=lambda x: (-abs(x[1]), x[0]))
        diff = [(f, d) for f, d in diff if d][:top]
        out.append(f"{v}: {fmt(ma['total'])} → {fmt(mb['total'])} ({mb['total'] - ma['total']:+,}), "
                   + ", ".join(f"`{f}` {d:+,}" for f, d in diff))
    if not out:
        return ""
    return (f"`{b}` against `{a}` on {label} (attribute cache on, a file nobody writes), "
            "instructions of one call from the instruction mix (`make mix`), the functions "
            "that differ most: " + "; ".join(out) + ".")


def section(r, deleg=True):
    bt = boot(r.doc)
    labels = sr.fs_labels(r.doc, fs="nfs")
    names = sr.tagged(r.doc, TAG)
    rows = []
    for label in labels:
        c = sr.config(r.doc, bt, label)
        for name in names:
            x = r.case(bt, label, name)
            if x is None:
                continue
            ops = x.get("nfs_ops_per_call", {})
            rows.append([label, c["env"].get("actimeo", ""), c["env"].get("netem_us", ""),
                         f"`{name}`", fmt(x["median"]), fmt(ops.get("GETATTR"), 2),
                         fmt(ops.get("LOOKUP"), 2), fmt(ops.get("ACCESS"), 2)])
    return (f"Boot: {bt}.\n\n" +
            md_table(["mount", "actimeo", "netem µs", "case", r.unit.split()[0],
                      "GETATTR/call", "LOOKUP/call", "ACCESS/call"], rows) +
            ("\n\n" + flush_text(r) if flush_text(r) else "") +
            ("\n\n" + sites_text(r) if sites_text(r) else "") +
            ("\n" + delegation_text() + "\n" if deleg and delegation_text() else ""))


def brief(r):
    """REPORT.md's version: the counts without an attribute cache and
    without a netem delay, what MTIME adds to a statx() and where each RPC
    of stat() comes from; the rest goes to the tables file."""
    full = section(r, deleg=False)
    bt = boot(r.doc)
    keep = set(sr.fs_labels(r.doc, fs="nfs", actimeo="0", netem=0))
    lines = [x for x in full.splitlines()
             if not x.startswith("| nfs") or x.split(" | ")[0][2:] in keep]
    text = "\n".join(lines)
    # Of the attribution, stat() only, and its table once: a mount whose
    # table is the first one's keeps its count line.
    parts = text.split("\n\n`")
    head, rest = parts[0], parts[1:]
    kept, tables = [], []
    for x in rest:
        if x.startswith("statx.MTIME` against"):
            kept.append(x)
        elif x.startswith("stat` on "):
            line, _, table = x.rstrip().partition("\n\n")
            if table and table in tables:
                kept.append(line + " Where each comes from: as on the mount above.")
            else:
                tables.append(table)
                kept.append(x)
    deleg = delegation_text(brief=True)
    return ((head + "".join("\n\n`" + x for x in kept)).rstrip() +
            (f"\n\n{deleg}" if deleg else "") +
            f"\n\nBoot {bt}; the mounts with the attribute cache, the netem ones and the "
            "other calls' attribution: "
            f"{TABLES_LINK}.")


def main():
    sr.figure_main(__doc__, figures, "no NFS cases")


if __name__ == "__main__":
    main()
