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
import events_cost  # noqa: E402
import statx_results as sr  # noqa: E402
from md import IOA0, default_only, fmt, md_table, pct  # noqa: E402
import targets as tg  # noqa: E402

# The calls by descriptor, and the calls by path drawn beside them.
TAGS = ("fd", "anchor")


def cases(doc):
    """The cases the series is shown by (bench/cases.c's fd and anchor tags)."""
    return sr.tagged(doc, *TAGS)


def fd_paths(doc):
    """The descriptor paths read against raw fstat() in their own kernel
    (tag fdpath): the glibc wrapper an application calls first, then the
    raw calls, each in bench/cases.c's order."""
    return sorted(sr.tagged(doc, "fdpath"),
                  key=lambda n: sr.case_info(doc, n)["kind"] != "wrapper")


def pairs(doc):
    """[(base, partials..., series)] per command line: the series' kernels
    (vm/variants.sh) the run has with ext4 cases (a partial series, when it
    ran: the section reads the patches before the last on it), at least
    the base and one other."""
    t = sr.table(doc)
    boots = sr.boots(doc)
    ro = sr.roles(boots)

    def has(b):
        return b in boots and any((b, "ext4", n) in t for n in cases(doc))
    out = []
    for s in boots:
        if ro.base and s.split(" [")[0] == ro.base and has(s):
            append = s[len(ro.base):]
            g = tuple(b + append for b in ro.measured if has(b + append))
            if len(g) > 1:
                out.append(g)
    return out


def figures(doc, outdir):
    """The figure, or nothing without a stock and patched pair; returns the
    PNGs made."""
    ps = pairs(doc)
    if not ps:
        return []
    plt = sr.pyplot()
    unit = doc["configs"][0]["unit"]
    names = cases(doc)
    fig, axes = plt.subplots(1, len(ps), figsize=(6.5 * len(ps), 1.0 + 0.55 * len(names)),
                             squeeze=False, sharey=True)
    for ax, g in zip(axes[0], ps):
        sr.case_bars(ax, doc, g, "ext4", names)
        ax.set_yticklabels(names, fontsize=8)
        ax.set_xlabel(unit + " per call", fontsize=8)
        ax.set_xlim(right=ax.get_xlim()[1] * 1.3)
        append = g[0][len(g[0].split(" [")[0]):].strip(" []")
        ax.set_title(append or "Debian's default (init_on_alloc=1)", fontsize=9)
    # One legend for both panels: the kernels, in the series' order.
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, [x.split(" [")[0] for x in labels], loc="lower center",
               ncol=len(labels), fontsize=8, frameon=False)
    fig.suptitle(f"The patch series on ext4 ({sr.mode_note(doc['mode'])})", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    return [sr.save_figure(fig, outdir, "series")]


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("series", "The patch series")


def section(r, suffixes=("", f" [{IOA0}]")):
    """The series before its struct filename patch, on the partial series
    that stops just before it when the run has it (that patch changes every
    call by name, so a kernel with it cannot show the others' effect); the
    events' patch against the kernel without it."""
    out = []
    ro = r.roles
    fn = sr.patch_number("filename")
    p3 = (sr.with_patches(ro, fn - 1) if fn else None) or ro.last_partial or ro.series
    if not ro.base or not p3:
        return "No base kernel and series in these results.\n"
    for suffix in suffixes:
        s, p = ro.base + suffix, p3 + suffix
        if s not in r.boots or p not in r.boots:
            continue
        rows = []
        for name in cases(r.doc):
            a, b = r.v(s, "ext4", name), r.v(p, "ext4", name)
            ca = r.case(s, "ext4", name) or {}
            failed = ca.get("ret", 0) < 0
            note = f" ({ca['errno']})" if failed else ""
            rows.append([f"`{name}`", fmt(a) + note, fmt(b),
                         f"works ({ro.base} fails)" if failed else pct(b, a)])
        out += [f"ext4, {'Debian default' if not suffix else IOA0}:", "",
                md_table(["case", s, p, "change"], rows), ""]
        fst = r.v(p, "ext4", "fstat")
        copy = None
        if r.v(p, "ext4", "statx.BASIC_STATS") and r.v(p, "ext4", "stat"):
            copy = r.v(p, "ext4", "statx.BASIC_STATS") - r.v(p, "ext4", "stat")
        checks = []

        def met(ok):
            return "met" if ok else "**not met**"

        # The events' patch against the kernel just without it, on the
        # cases tagged with it (pN), those by path first.
        k = sr.patch_number("events")
        ev, ev0 = sr.with_patches(ro, k), sr.with_patches(ro, k - 1) if k else None
        # Boot by boot where make events-cost measured these two kernels:
        # one pair of boots cannot part the events from a by-path call's
        # move between boots.
        ec = events_cost.load(EVENTS_COST)
        paired = bool(ev and ev0 and ec and (ec["before"], ec["after"]) == (ev0, ev))
        if paired and not suffix:
            line = events_cost.verdict_line(ec, sorted(sr.tagged(r.doc, f"p{k}")),
                                            tg.EVENTS_OFF_INSTRUCTIONS)
            if line:
                checks.append(f"patch {k} ({ev0} → {ev}), events compiled in and disabled, "
                              + line)
        for name in sorted(sr.tagged(r.doc, f"p{k}") if ev and ev0 and not paired else [],
                           key=lambda n: "fd" in sr.case_info(r.doc, n)["tags"]):
            a, b = r.v(ev0 + suffix, "ext4", name), r.v(ev + suffix, "ext4", name)
            if a and b:
                checks.append(f"patch {k} ({ev0} → {ev}), events compiled in and "
                              "disabled: "
                              f"`{name}` {b - a:+,.0f} "
                              f"({pct(b, a)}; target ≤ +{tg.EVENTS_OFF_INSTRUCTIONS} "
                              f"instructions: {met(b - a <= tg.EVENTS_OFF_INSTRUCTIONS)})")
        if fst and r.v(p, "ext4", "fstatat.empty"):
            e = r.v(p, "ext4", "fstatat.empty")
            checks.append(f"{p3} `fstatat.empty` (glibc's fstat) is {pct(e, fst)} "
                          f"from raw `fstat` (target within {tg.pct(tg.FD_PATH_WITHIN)}: "
                          f"{met(abs(e - fst) / fst <= tg.FD_PATH_WITHIN)})")
        if fst and copy is not None:
            for name in ("statx.fd.null", "statx.fd.empty"):
                x = r.v(p, "ext4", name)
                if x:
                    want = fst + copy
                    checks.append(f"{p3} `{name}` is {pct(x, want)} from raw `fstat` "
                                  f"plus the copy-out difference {copy:,.0f} "
                                  f"(target within {tg.pct(tg.FD_PATH_WITHIN)}: "
                                  f"{met(abs(x - want) / want <= tg.FD_PATH_WITHIN)})")
        out += ["- " + c for c in checks] + [""]
    out += dispatch_lines(r, p3)
    return "\n".join(out).rstrip()


# make events-cost's summary (the events' cost boot by boot), read where it
# measured the kernels the report compares.
EVENTS_COST = events_cost.EVENTS_COST_FILE

# x86-64 numbers of the calls the series compares.
NR = {"newfstat": 5, "newfstatat": 262, "statx": 332}
# The numbers whose dispatch the analysis reads: NR's and the two ENOSYS
# cases' (nosys.134, nosys.174); the summary keeps only these.
NOSYS = ("134", "174")
DISPATCH_NRS = (*NR.values(), *map(int, NOSYS))


def syscall(case):
    """The system call a case's record makes, by its handler's name (NR's
    keys): the one its call names ("fstat(fd)" is x86-64's newfstat); for
    glibc's stat(), lstat() and fstat() (kind wrapper) newfstatat, which
    every glibc since 2.33 calls (bench/cases.c; the guest's is env.glibc)."""
    if case["kind"] == "wrapper":
        return "newfstatat"
    call = case["call"].split("(")[0]
    return "newfstat" if call == "fstat" else call


def dispatch_lines(r, variant):
    """What the system call number costs (bench/dispatch.py), checked
    against the two ENOSYS cases, and the fd targets without it."""
    d = (r.doc.get("dispatch") or {}).get(variant)
    if not d:
        return []
    cost = {k: d["per_nr"][str(n)]["instructions"] for k, n in NR.items()}
    out = [f"System call dispatch: `x64_sys_call()` (the 2024 branch-history fix's "
           f"switch, a tree of compares) takes {cost['newfstat']} instructions to reach "
           f"newfstat (5), {cost['newfstatat']} newfstatat (262) and {cost['statx']} statx "
           f"(332) in the running {variant} kernel (bench/dispatch.py, counted in its code "
           f"through /proc/kcore)."]
    m134, m174 = r.v(variant, "floor", "nosys.134"), r.v(variant, "floor", "nosys.174")
    if m134 is not None and m174 is not None:
        a, b = (d["per_nr"][n] for n in NOSYS)
        p = a["instructions"] - b["instructions"]
        same = a["handler"] == b["handler"]
        out[-1] += (f"  Measured check: syscall(134) and syscall(174) both reach "
                    f"{'the same handler' if same else 'different handlers'} and cost "
                    f"{fmt(m134)} and {fmt(m174)}, {m134 - m174:+,.0f} apart; the count "
                    f"says {p:+d}.")
    fst = r.v(variant, "ext4", "fstat")
    e = r.v(variant, "ext4", "fstatat.empty")
    sx, st = r.v(variant, "ext4", "statx.BASIC_STATS"), r.v(variant, "ext4", "stat")
    rows = []
    if fst and e:
        ea = e - (cost["newfstatat"] - cost["newfstat"])
        rows.append(f"`fstatat.empty` {fmt(ea)}: {pct(ea, fst)} from raw `fstat` "
                    f"({'within' if abs(ea - fst) / fst <= tg.FD_PATH_WITHIN else 'not within'} "
                    f"{tg.pct(tg.FD_PATH_WITHIN)})")
    if fst and sx and st:
        want = fst + (sx - st) - (cost["statx"] - cost["newfstatat"])
        for name in ("statx.fd.null", "statx.fd.empty"):
            x = r.v(variant, "ext4", name)
            if x:
                xa = x - (cost["statx"] - cost["newfstat"])
                rows.append(f"`{name}` {fmt(xa)}: {pct(xa, want)} from `fstat` plus the "
                            f"copy-out difference ({fmt(want)}; "
                            f"{'within' if abs(xa - want) / want <= tg.FD_PATH_WITHIN else 'not within'} "
                            f"{tg.pct(tg.FD_PATH_WITHIN)})")
    if rows:
        out += ["", f"The same targets with each call's dispatch taken out (what fs/stat.c "
                f"adds, not the literal targets above), {variant}, ext4, Debian default:", ""]
        out += ["- " + x for x in rows]
    return out + [""]


def brief(r):
    """REPORT.md's version: Debian's default command line; with {IOA0}
    in the tables file."""
    return default_only(section, r)


def main():
    sr.figure_main(__doc__, figures, "no stock and patched pair on ext4")


if __name__ == "__main__":
    main()
