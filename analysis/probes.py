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

Writes DIR/probes.png and DIR/probes.svg: one panel, a pair of bars
(bpftrace, probe-count) per kind of probe, from the whole series' boot;
a kind only another boot ran (btf's fentry and fexit) is drawn
hatched and named; kinds no boot ran (no raw tracepoint probe in
bpftrace 0.17) are marked "not run".  Nothing is
written when RESULTS has no probe study (TRACE=0, QUICK).

fentry and fexit need BTF, which Debian's config with our fragment
leaves out: the btf kernel (its own tree, about 30 min cold) runs them,
in `make probes`, not in `make bench`.  Its configurations are kept in
analysis/reference/probes.json (`probes.py keep RESULTS -o FILE`), and
a run with a probe study but no btf boot is read with them beside it
(with_study(): the run they came from is named wherever they are shown).
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import IOA0, TABLES_LINK, fmt, md_table  # noqa: E402

# The kernel with BTF, booted for the probe study alone, and where its
# configurations are kept between its runs (make probes).
STUDY = "btf"
STUDY_FILE = pathlib.Path(__file__).resolve().parent / "reference" / "probes.json"
KINDS = ["tracepoint", "raw_tp", "kprobe", "kretprobe", "fentry", "fexit"]
LOADERS = [("bpftrace (@n = count())", "probe.{}"),
           ("probe-count (the same 8 BPF instructions everywhere)", "probe.bpf.{}")]


def keep(doc):
    """The STUDY kernel's configurations of a results document (make
    probes), cut as summarize.py cuts a reference run, as a document of
    their own; refused without them."""
    import summarize
    configs = [c for c in doc["configs"] if c["variant"] == STUDY]
    if not any(c["label"] == "probe.none" for c in configs):
        raise SystemExit(f"probes.py: run {doc.get('run_id', '?')} has no probe study "
                         f"on the {STUDY} kernel")
    out = {"schema": doc["schema"], "run_id": doc.get("run_id", ""), "mode": doc["mode"],
           "configs": configs}
    # A reference summary is cut already (its samples are the median).
    return sr.validate(dict(out, summary=True) if doc.get("summary")
                       else summarize.summarize(out))


def with_study(doc, path=STUDY_FILE):
    """DOC with the kept STUDY configurations beside its own, when it has
    a probe study (the labels probe.*) but no boot of STUDY and the kept
    ones were counted in the same mode; the run they came from is then
    DOC["probe_study"].  Otherwise DOC itself."""
    labels = {c["label"] for c in doc["configs"]}
    if ("probe.none" not in labels or any(c["variant"] == STUDY for c in doc["configs"])
            or not pathlib.Path(path).is_file()):
        return doc
    kept = sr.validate(json.loads(pathlib.Path(path).read_text()))
    if kept["mode"] != doc["mode"]:
        return doc
    return dict(doc, configs=doc["configs"] + kept["configs"], probe_study=kept["run_id"])


def study_note(doc, form=" ({})"):
    """Where the STUDY kernel's figures come from, in FORM, for a text
    that shows them: '' when from this run itself."""
    rid = doc.get("probe_study")
    return form.format(f"`make probes`, run {rid}") if rid else ""


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
    """The figure, or nothing without a probe study; returns the PNGs made.
    A panel per loader (bpftrace's program, probe-count's fixed one), so
    that bars are compared across attach points within a panel, never one
    loader's against the other's; each kind from the whole series' boot
    (else the boot with the most kinds), a kind it did not run from the
    next boot that did (btf's fentry and fexit), hatched and named under
    its bar."""
    h = hits(doc)
    if not h:
        return []
    plt = sr.pyplot()
    mode = doc["mode"]
    unit = "instructions" if mode == "cost" else "ns"
    # The whole series first (the kernel REPORT.md's table reads), then
    # the boots with the most kinds.
    series = sr.roles(sr.boots(doc)).series
    boots = sorted(h, key=lambda b: (b != series, -len(h[b][1])))
    main = boots[0]
    src = {}
    for b in boots:
        for key, v in h[b][1].items():
            src.setdefault(key, (v, b))
    others = sorted({b for _, b in src.values()} - {main})
    fig, axes = plt.subplots(1, len(LOADERS), figsize=(4.4 * len(LOADERS), 4.6), sharey=True,
                             squeeze=False)
    top = max([v for v, _ in src.values()] + [1])
    for li, ((name, _), ax) in enumerate(zip(LOADERS, axes[0])):
        for x, k in enumerate(KINDS):
            if (li, k) not in src:
                ax.text(x, top * 0.02, "not run", rotation=90, ha="center", va="bottom",
                        fontsize=7, color="grey")
                continue
            v, b = src[(li, k)]
            ax.bar(x, v, width=0.6, color=f"C{li}", hatch="//" if b != main else None)
            ax.text(x, max(v, 0), f"{v:+,.0f}", ha="center", va="bottom", fontsize=7)
        ax.set_xlim(-0.6, len(KINDS) - 0.4)
        ax.set_xticks(range(len(KINDS)))
        ax.set_xticklabels([k + "".join(f"\n({b})" for b in others
                                        if src.get((li, k), (0, main))[1] == b)
                            for k in KINDS], fontsize=8)
        ax.set_title(name, fontsize=9)
        ax.axhline(0, color="black", linewidth=0.6)
        ax.grid(axis="y", alpha=0.3)
        ax.set_xlabel("kind of probe", fontsize=8)
    axes[0][0].set_ylabel(f"{unit} added to one stat() (one probe hit)"
                          + (", median" if mode == "time" else ""), fontsize=8)
    axes[0][0].set_ylim(top=top * 1.12)
    fig.suptitle("Cost of one BPF probe hit on getattr: stat() on ext4 with the probe minus "
                 f"without ({sr.mode_note(mode)})\nkprobe, kretprobe, fentry, fexit on "
                 "vfs_getattr_nosec; tracepoint, raw_tp on stat:vfs_getattr_enter.  "
                 f"{main}: unprobed stat() {h[main][0]:,.0f} {unit}" +
                 "".join(f"; hatched: {b}{study_note(doc) if b == STUDY else ''}, "
                         f"unprobed {h[b][0]:,.0f}" for b in others), fontsize=8)
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
        note = study_note(r.doc) if boot == STUDY else ""
        out += [f"{boot}{note}: the same `stat()` loop on ext4, one getattr per call, {r.unit} "
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
            f"\n\nThe same on every kernel probed ({r.roles.base}, and {STUDY}'s fentry and "
            f"fexit{study_note(r.doc, ', from {}')}): {TABLES_LINK}.")


def main():
    if sys.argv[1:2] == ["keep"]:
        import argparse
        ap = argparse.ArgumentParser(prog="probes.py keep", description=keep.__doc__)
        ap.add_argument("results")
        ap.add_argument("-o", "--output", required=True)
        a = ap.parse_args(sys.argv[2:])
        out = keep(sr.load(a.results))
        pathlib.Path(a.output).write_text(json.dumps(out, indent=1) + "\n")
        print(f"probes: {len(out['configs'])} configurations of {STUDY} -> {a.output}")
        return
    sr.figure_main(__doc__, lambda doc, o: figures(with_study(doc), o), "no probe study")


if __name__ == "__main__":
    main()
