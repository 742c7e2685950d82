#!/usr/bin/python3
"""Probe overhead: what one BPF probe hit on the getattr path costs.

usage: probes.py RESULTS -o DIR

RESULTS is a results.json (bench/SCHEMA.md) or its summary
(analysis/summarize.py) with the probe study of traces/guest-traces.sh:
the same stat() loop on ext4 (one getattr per call) with nothing
attached (configuration `probe.none`), under bpftrace's counting program
(`probe.KIND`) and under traces/probe_count.c, which loads the same
eight BPF instructions through bpf() at every attach point
(`probe.bpf.KIND`).  kprobe, kretprobe, fentry and fexit attach to
vfs_getattr_nosec, tracepoint and raw_tp to the series'
stat:vfs_getattr_enter.  A hit's cost is the probed stat() minus the
unprobed one, on the same boot.

Writes DIR/probes.png and DIR/probes.svg: one panel per boot that ran
the study, a pair of bars (bpftrace, probe-count) per kind of probe;
kinds a boot did not run (no BTF, no stat:* events on stock; no raw
tracepoint probe in bpftrace 0.17) are marked "not run".  Nothing is
written when RESULTS has no probe study (TRACE=0, QUICK).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import IOA0, TABLES_LINK, fmt, md_table  # noqa: E402

KINDS = ["tracepoint", "raw_tp", "kprobe", "kretprobe", "fentry", "fexit"]
LOADERS = [("bpftrace (@n = count())", "probe.{}"),
           ("probe-count (the same 8 BPF instructions everywhere)", "probe.bpf.{}")]


def hits(doc):
    """{boot: (unprobed stat(), {(loader index, kind): cost of one hit})}
    for every boot (default command line) with a probe.none run."""
    t = sr.table(doc)
    out = {}
    for b in sr.boots(doc):
        base = t.get((b, "probe.none", "stat"))
        if base is None or "[" in b:
            continue
        d = {}
        for li, (_, pat) in enumerate(LOADERS):
            for k in KINDS:
                c = t.get((b, pat.format(k), "stat"))
                if c is not None:
                    d[(li, k)] = c["median"] - base["median"]
        out[b] = (base["median"], d)
    return out


def figures(doc, outdir):
    """The figure, or nothing without a probe study; returns the PNGs made."""
    h = hits(doc)
    if not h:
        return []
    plt = sr.pyplot()
    mode = doc["mode"]
    unit = "instructions" if mode == "cost" else "ns"
    # The boot with every kind first: the one whose bars compare with each other.
    boots = sorted(h, key=lambda b: -len(h[b][1]))
    fig, axs = plt.subplots(1, len(boots), figsize=(4.6 * len(boots) + 0.6, 4.8),
                            sharey=True, squeeze=False)
    top = max([v for _, d in h.values() for v in d.values()] + [1])
    w = 0.38
    for ax, b in zip(axs[0], boots):
        base, d = h[b]
        for li, (name, _) in enumerate(LOADERS):
            for x, k in enumerate(KINDS):
                p = x + (li - 0.5) * w
                v = d.get((li, k))
                if v is None:
                    ax.text(p, top * 0.02, "not run", rotation=90, ha="center", va="bottom",
                            fontsize=7, color="grey")
                    continue
                ax.bar(p, v, width=w, color=f"C{li}", label=name if x == 0 or
                       not any((li, kk) in d for kk in KINDS[:x]) else None)
                ax.text(p, max(v, 0), f"{v:+,.0f}", ha="center", va="bottom", fontsize=7)
        ax.set_xlim(-0.6, len(KINDS) - 0.4)
        ax.set_xticks(range(len(KINDS)))
        ax.set_xticklabels(KINDS, fontsize=8)
        ax.set_title(f"{b}: unprobed stat() {base:,.0f} {unit}", fontsize=9)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.grid(axis="y", alpha=0.3)
        ax.set_xlabel("kind of probe")
    axs[0][0].set_ylabel(f"{unit} added to one stat() (one probe hit)"
                         + (", median" if mode == "time" else ""))
    axs[0][0].set_ylim(top=top * 1.12)
    handles = {}
    for ax in axs[0]:
        for hd, lb in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lb, hd)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=2, fontsize=8,
               bbox_to_anchor=(0.5, -0.06), frameon=False)
    fig.suptitle("Cost of one BPF probe hit on getattr: stat() on ext4 with the probe minus "
                 f"without ({sr.mode_note(mode)})\nkprobe, kretprobe, fentry, fexit on "
                 "vfs_getattr_nosec; tracepoint, raw_tp on stat:vfs_getattr_enter",
                 fontsize=10)
    fig.tight_layout()
    return [sr.save_figure(fig, outdir, "probes")]


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("probes", "Probe overhead")


def section(r, only=None):
    out = []
    for boot in [b for b in r.boots if IOA0 not in b and only in (None, b)]:
        base = r.v(boot, "probe.none", "stat")
        if base is None:
            continue

        def cells(label):
            x = r.v(boot, label, "stat")
            return ["–", "–"] if x is None else [fmt(x), f"{x - base:+,.0f}"]
        rows = [["none", fmt(base), "–", fmt(base), "–"]]
        for p in KINDS:
            bt = cells(f"probe.{p}") if p != "raw_tp" else ["no such probe in bpftrace 0.17", "–"]
            rows.append([p] + bt + cells(f"probe.bpf.{p}"))
        out += [f"{boot}: the same `stat()` loop on ext4, one getattr per call, {r.unit} "
                "per call and the cost of one hit; \"bpftrace\" counts with `@n = count()`, "
                "\"probe-count\" with traces/probe_count.c's eight BPF instructions at "
                "every attach point (– : not run on this kernel):", "",
                md_table(["attach point", "bpftrace: stat()", "one hit",
                          "probe-count: stat()", "one hit"], rows), ""]
    return "\n".join(out).rstrip() or "No probe study in this run (TRACE=0)."


def brief(r):
    """REPORT.md's version: the patched kernel's table; every kernel's in
    the tables file."""
    if r.roles.series not in r.boots:
        return section(r)
    return (section(r, only=r.roles.series).rstrip() +
            f"\n\nThe same on every kernel probed ({r.roles.base}, and btf's fentry and fexit): "
            f"{TABLES_LINK}.")


def main():
    sr.figure_main(__doc__, figures, "no probe study")


if __name__ == "__main__":
    main()
