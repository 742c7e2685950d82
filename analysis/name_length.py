#!/usr/bin/python3
"""The struct filename patch: what stat() by path costs by the length of
the name.

usage: name_length.py RESULTS -o DIR

RESULTS is a results.json (bench/SCHEMA.md) or its summary
(analysis/summarize.py).  Case stat.nameN makes stat() on ext4 through a
name of N bytes, "d1/d2/d3/file" padded with slashes after d1, so that
every length looks up the same components; `stat` is the 13-byte name.
Writes DIR/filename.png and DIR/filename.svg: one line per boot with the
cases (dashed for init_on_alloc=0), 13 to 4095 bytes a step each (earlier
kernels wide and pale under later ones, so that equal lines show), and a
mark at 160 bytes, the first length the patch's small struct filename
object cannot hold.  Nothing is written when RESULTS has no name-length
cases (a QUICK run).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import IOA0, default_only, fmt, md_table, pct  # noqa: E402
import targets as tg  # noqa: E402

CALL = "newfstatat(path)"


def lengths(doc):
    """[(name length, case)]: the stat() cases tagged namelen that succeed,
    by the length of the name each passed (the harness's name_len)."""
    out = []
    for n in sr.tagged(doc, "namelen"):
        c = sr.case_info(doc, n)
        if c["call"] == CALL and c["ret"] >= 0:
            out.append((c["name_len"], n))
    return sorted(out)


def drawn(doc):
    """The kernels the figure draws: the base, the struct filename patch's
    kernels before and with it, the whole series, and each other base's two
    (6.12); the other prefixes leave names alone and would only crowd it."""
    ro = sr.roles(doc)
    fn = sr.patch_number("filename")
    keep = [ro.base, sr.with_patches(ro, fn - 1), sr.with_patches(ro, fn), ro.series] + [
        k for pair in sr.other_bases(doc).values() for k in pair]
    return {k for k in keep if k}


def lines(doc):
    """{boot: [median or None per lengths()]} for every drawn kernel's boot
    with more than one of them on ext4, in the order of the boots."""
    t = sr.table(doc)
    ls = lengths(doc)
    keep = drawn(doc)
    out = {}
    for b in sr.boots(doc):
        if keep and b.split(" [")[0] not in keep:
            continue
        ys = [(t.get((b, "ext4", c)) or {}).get("median") for _, c in ls]
        if sum(y is not None for y in ys) > 1:
            out[b] = ys
    return out


def figures(doc, outdir):
    """The figure, or nothing without name-length cases; returns the PNGs made."""
    ls = lines(doc)
    if not ls:
        return []
    plt = sr.pyplot()
    unit = doc["configs"][0]["unit"]
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [n for n, _ in lengths(doc)]
    # One step per length, evenly spaced: 159 and 160 are one byte apart
    # and the point of the figure.  Lines that coincide (the patches before
    # the struct filename one leave names alone, so stock and its
    # baseline agree) stay visible: the earlier ones wide and pale under
    # the later ones.
    kernels = list(dict.fromkeys(b.split(" [")[0] for b in ls))
    for b, ys in ls.items():
        k = kernels.index(b.split(" [")[0])
        ax.plot(range(len(xs)), ys, marker="os^Dv"[k % 5], markersize=max(3, 9 - 2 * k),
                linewidth=max(1.2, 5 - 1.8 * k), alpha=min(1.0, 0.45 + 0.25 * k),
                linestyle="--" if sr.IOA0 in b else "-", color=sr.kernel_colour(doc, b),
                label=b)
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([str(x) for x in xs], fontsize=8)
    if 159 in xs and 160 in xs:
        mid = xs.index(159) + 0.5
        ax.axvline(mid, color="grey", linewidth=0.8)
        ax.text(mid + 0.05, ax.get_ylim()[1] * 0.97,
                f"160 and up: patch {sr.patch_number('filename')}'s small object\n"
                "is full, a PATH_MAX buffer too", fontsize=7, va="top")
    ax.set_xlabel("name length in bytes, one step per case (d1/d2/d3/file padded with "
                  "slashes)", fontsize=8)
    ax.set_ylabel(unit + " per stat()", fontsize=8)
    ax.legend(fontsize=7)
    fig.suptitle(f"stat() on ext4 by name length ({sr.mode_note(doc['mode'])})", fontsize=11)
    return [sr.save_figure(fig, outdir, "filename")]


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("filename", f"Patch {sr.patch_number('filename')}: a small struct filename")


def section(r, suffixes=("", f" [{IOA0}]")):
    """The struct filename patch: its kernel against the one just without
    it (the patch alone) and against the base; the targets on the whole
    series."""
    out = []
    ro = r.roles
    fn = sr.patch_number("filename")
    before, with_ = sr.with_patches(ro, fn - 1), sr.with_patches(ro, fn) or ro.series
    have3 = before is not None
    if not ro.base or not ro.series or not with_:
        return "No base kernel and whole series in these results.\n"
    for suffix in suffixes:
        s, p3, p = ro.base + suffix, (before or "") + suffix, with_ + suffix
        whole = ro.series + suffix
        if s not in r.boots or p not in r.boots or all(
                r.v(s, "ext4", n) is None for n in sr.tagged(r.doc, "local")):
            continue
        cols = [s] + ([p3] if have3 else []) + [p]
        rows, slower = [], []
        for name in sr.tagged(r.doc, "namelen"):
            vals = [r.v(b, "ext4", name) for b in cols]
            if None in vals:
                continue
            ca = r.case(s, "ext4", name) or {}
            note = f" ({ca['errno']})" if ca.get("ret", 0) < 0 else ""
            row = [f"`{name}`"] + [fmt(v) + note for v in vals]
            if have3:
                row.append(pct(vals[-1], vals[-2]))
            row.append(pct(vals[-1], vals[0]))
            rows.append(row)
            if (vals[-1] - vals[0]) / vals[0] > tg.NO_CASE_SLOWER:
                slower.append(f"`{name}` {pct(vals[-1], vals[0])}")
        head = (["case"] + cols + ([f"patch {fn} alone"] if have3 else []) +
                [f"{with_} vs {ro.base}"])
        out += [f"ext4, {'Debian default' if not suffix else IOA0}:", "", md_table(head, rows), ""]
        a, b = r.v(s, "ext4", "stat"), r.v(whole, "ext4", "stat")
        checks = [f"`stat` by path costs {b / a * 100:.1f}% of {ro.base} "
                  f"(target ≤ {tg.pct(tg.STAT_BY_PATH_AT_MOST)} on Debian's default: "
                  f"{'met' if b / a <= tg.STAT_BY_PATH_AT_MOST else '**not met**'})" if not suffix else
                  f"`stat` by path costs {b / a * 100:.1f}% of {ro.base} with {IOA0} (no target)"]
        checks.append(f"cases more than {tg.pct(tg.NO_CASE_SLOWER)} slower than {ro.base}: " +
                      (", ".join(slower) + " (target none: **not met**)" if slower
                       else "none (target none: met)"))
        out += ["- " + c for c in checks] + [""]
    env = (sr.config(r.doc, ro.series, "floor") or {}).get("env", {})
    env_s = (sr.config(r.doc, ro.base, "floor") or {}).get("env", {})
    mem = [(k, env_s.get(k) or env.get(k)) for k in ("slab_names_cache", "slab_filename_cache")]
    if any(v for _, v in mem):
        out.append("Memory per name (SLUB's object size as the guest reports it, "
                   "/sys/kernel/slab/*/slab_size): " +
                   "; ".join(f"{k.replace('slab_', '')} {v} bytes" for k, v in mem if v) +
                   f". Stock takes one names_cache object per name; patch {fn} one filename_cache "
                   "object, plus a names_cache object for a name of 160 bytes or more.")
    return "\n".join(out).rstrip() or "No name-length cases in this run (QUICK)."


def brief(r):
    """REPORT.md's version: Debian's default command line; with {IOA0}
    in the tables file."""
    return default_only(section, r)


def main():
    sr.figure_main(__doc__, figures, "no name-length cases")


if __name__ == "__main__":
    main()
