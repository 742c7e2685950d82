#!/usr/bin/python3
"""Figures and report sections from one results file: the driver.

Each section lives beside its figure, in the figure's module (fs_masks.py,
series.py, name_length.py, conformance.py, scale.py, dirty.py, clients.py,
nfs.py, probes.py, bases.py: SECTION and section(r)); this file keeps the findings,
the setup and the calibration, and puts the sections together.  Numbers,
changes and tables are written by md.py, thresholds come from targets.py,
mask names from statx_results.py.

usage: report.py RESULTS [-o DIR]                 a run's own report:
                                                  DIR/REPORT.md, DIR/*.png|svg
       report.py SUMMARY --update REPORT.md [--figures DIR]
                                                  rewrite REPORT.md's
                                                  generated sections
       report.py SUMMARY --check REPORT.md        exit 1 unless REPORT.md's
                                                  generated sections are
                                                  what SUMMARY gives

RESULTS is a results.json (bench/SCHEMA.md) or its summary
(analysis/summarize.py).  A generated section of REPORT.md sits between
"<!-- generated:NAME -->" and "<!-- end:NAME -->"; the text around them is
written by hand and holds no measured number.
"""
import argparse
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import afs  # noqa: E402
import bases  # noqa: E402
import clients  # noqa: E402
import conformance  # noqa: E402
import dirty  # noqa: E402
import compare  # noqa: E402
import drift  # noqa: E402
import fs_masks  # noqa: E402
import mix  # noqa: E402
import name_length  # noqa: E402
import nfs  # noqa: E402
import probes  # noqa: E402
import profiles  # noqa: E402
import behaviour  # noqa: E402
import delegation  # noqa: E402
import runs  # noqa: E402
import captions  # noqa: E402
import scale  # noqa: E402
import series  # noqa: E402
import uml_timing  # noqa: E402
import statx_results as sr  # noqa: E402

from md import IOA0, Report, fmt, md_table, pct  # noqa: E402


# --- sections ----------------------------------------------------------------

# Each local call's measured run-to-run move (analysis/reference/drift/).
SPREADS = compare.spreads()

def sec_setup(r):
    rows = []
    for b in r.boots:
        c = next(c for c in r.doc["configs"] if sr.boot_name(c) == b)
        vm, env = c["vm"], c["env"]
        rows.append([b, vm.get("release", ""), vm.get("config_hash", ""),
                     vm.get("mode", ""), vm.get("accel", "") +
                     (" **" + vm["accel_note"] + "**" if vm.get("accel_note") else ""),
                     env.get("init_on_alloc", ""), env.get("glibc", "")])
    out = [f"Run `{r.doc.get('run_id', '?')}`; figures are {r.unit_text()}.", "",
           md_table(["boot", "kernel", "config hash", "mode", "accelerator",
                     "init_on_alloc", "glibc"], rows), ""]
    c0 = r.doc["configs"][0]
    out += [f"QEMU: {c0['vm'].get('qemu', '?')}; host CPU: {c0['vm'].get('host_cpu', '?')}; "
            f"guest CPU model: {c0['env'].get('cpu', '?')}.", ""]
    out += mount_table(r)
    diff = [line for line in c0.get("config_diff", "").splitlines() if line.strip()]
    if diff:
        ours = [x for x in diff if PATH_OPTIONS.match(x)]
        counted = [x for x in diff if x.startswith("#")]
        out += [f"Kernel options that differ from Debian's cloud-amd64 config "
                f"(`scripts/diffconfig`): {len(diff) - len(counted)} options, "
                f"{'; '.join(x.lstrip('# ') for x in counted)}, all in "
                f"[{CONFIG_DIFF_FILE}]({CONFIG_DIFF_FILE}) for every kernel. Those of the "
                "subsystems on the measured path (NFS, SUNRPC, FS-Cache, ext4, tmpfs, 9p, "
                "slab, init_on_alloc, tracing, BPF, debug info, mitigations, preemption; "
                "`-` removed, `+` added, `a -> b` changed): " +
                ", ".join(f"`{x}`" for x in ours) + "."]
    return "\n".join(out)


# The whole config diff lives beside REPORT.md; the report lists the options
# of the subsystems a measured call goes through.
CONFIG_DIFF_FILE = "analysis/reference/config-diff.txt"
PATH_OPTIONS = re.compile(
    r"^[-+]?(NFS|SUNRPC|LOCKD|FSCACHE|NETFS|EXT4|JBD2|TMPFS|SHMEM|INIT_ON_|SLUB|"
    r"HARDENED_USERCOPY|AUDIT|SECURITY|FTRACE|TRACEPOINTS|KPROBES|BPF|DEBUG_INFO|"
    r"RETPOLINE|RETHUNK|PAGE_TABLE_ISOLATION|SPECULATION|MITIGATION|RANDOMIZE_KSTACK|"
    r"STACKPROTECTOR|FORTIFY|PREEMPT|KASAN|LOCKDEP|PROVE_LOCKING|9P|NET_9P|OVERLAY)")
# Mount options that only say where the server is.
MOUNT_NOISE = re.compile(r"^(addr|clientaddr|mountaddr|mountport|mountproto|mountvers)=")


def mount_table(r):
    """Each configuration's mount, compactly: the options common to every
    mount of a type said once, below; per row only those that differ."""
    cfgs = [c for c in sr.fs_configs(r.doc) if c["env"].get("mount")]
    if not cfgs:
        return []
    split = {c["label"]: c["env"]["mount"].split(None, 1) + [""] for c in cfgs}
    opts = {lb: [o for o in v[1].split(",") if o and not MOUNT_NOISE.match(o)]
            for lb, v in split.items()}
    types = list(dict.fromkeys(v[0] for v in split.values()))
    common = {t: set.intersection(*(set(opts[lb]) for lb, v in split.items() if v[0] == t))
              for t in types}
    rows = [[c["label"], split[c["label"]][0],
             ",".join(o for o in opts[c["label"]] if o not in common[split[c["label"]][0]])
             or "–", c["env"].get("netem_us", ""), c["env"].get("files", "")]
            for c in cfgs]
    out = [md_table(["configuration", "type", "options (beyond the common ones)",
                     "netem µs", "files"], rows), ""]
    out += [f"- common to every {t} mount: `{','.join(o for o in opts[lb] if o in common[t])}`."
            for t in types for lb in [next(lb for lb, v in split.items() if v[0] == t)]]
    return out + [""]


def config_diff_text(doc):
    """Every kernel's config diff against Debian's, once per distinct diff."""
    seen, out = {}, []
    for c in doc["configs"]:
        d = c.get("config_diff", "")
        if d:
            seen.setdefault(d, []).append(c["variant"])
    for d, variants in seen.items():
        out += [f"# kernels: {', '.join(dict.fromkeys(variants))}", d.rstrip(), ""]
    return "\n".join(out)


def sec_hostcal(r, hostcal_dir=mix.HOSTCAL_DIR):
    """What cost mode counts for the sequences it weighs wrongly, against
    what they take on each calibrated host CPU (bench/hostcal.c)."""
    docs = mix.hostcals(hostcal_dir)
    if not docs:
        return (f"No host calibration ({pathlib.Path(hostcal_dir).name}/ holds none; "
                "`make hostcal` writes one).\n")
    guest = {c["name"]: c["median"] for c in (sr.config(r.doc, r.boots[0], "floor") or
                                               {"cases": []})["cases"]}
    out = []
    for p, h in docs:
        rows = []
        for x in h["sequences"]:
            if x["name"] == "empty":
                continue
            rows.append([f"`{x['name']}`", x["what"], fmt(x["icount"]),
                         f"{x['loop_iters']:,.1f}", f"{x['ns']:,.2f} ({x['ns_range'][0]:,.2f}–"
                         f"{x['ns_range'][1]:,.2f})",
                         f"{x['icount'] / x['loop_iters']:,.2f}" if x["loop_iters"] > 0
                         else "–"])
        flags = ", ".join(f for f in ("erms", "fsrm") if h[f]) or "neither erms nor fsrm"
        when = f", measured {h['date']}" if h.get("date") else ""
        out += [f"On a host CPU ({h['cpu']}, family {h['family']} model {h['model']}, "
                f"{flags}{when}; `{p.name}`; user space, `bench/hostcal.c`, median of "
                f"{h['samples']} batches of {h['batch']}): what each sequence takes, in "
                "iterations of a plain `dec; jnz` loop (one a cycle on current cores, so "
                "close to cycles) and in ns with the range over batches, beside what cost "
                "mode counts for it.  The last column is how many counted instructions stand "
                "for one loop iteration: two for the loop itself; far above two, cost mode "
                "over-weights a sequence, far below, it hides it.", "",
                md_table(["sequence", "what", "cost mode counts", "loop iterations",
                          "ns (range)", "counted per iteration"], rows), ""]
    if "calib.rep_stosb_4096" in guest:
        out += [f"In the guest, cost mode counted `calib.rep_stosb_4096` (the same "
                f"4096-byte `rep stosb`, {r.boots[0]}) as {fmt(guest['calib.rep_stosb_4096'])}."]
    return "\n".join(out).rstrip() + "\n"


def sec_calibration(r):
    b = r.boots[0]
    rows = [[n, fmt(r.v(b, "floor", n), 1)] for n in sr.tagged(r.doc, "calib")]
    out = [md_table(["calibration case (user space)", r.unit.replace("instructions", "count")], rows), ""]
    base = r.roles.base
    s_def, s_ioa = r.v(base, "ext4", "stat"), r.v(f"{base} [{IOA0}]", "ext4", "stat")
    if r.mode == "cost" and s_def and s_ioa:
        out += [f"On {base} ext4, stat() by path costs {fmt(s_def)} with Debian's default "
                f"and {fmt(s_ioa)} with `{IOA0}`: zeroing the 4 KiB name buffer is "
                f"{fmt(s_def - s_ioa)} counted instructions, "
                f"{(s_def - s_ioa) / s_def * 100:.1f}% of the call, where `rep stosb` over "
                f"4096 bytes alone counts {fmt(r.v(b, 'floor', 'calib.rep_stosb_4096'))}."]
    return "\n".join(out)


def spread(case, mode):
    """A case's known spread as text: its 95% interval, widened in cost mode
    by the jitter of calls that allocate a name (analysis/drift.py)."""
    lo, hi = drift.interval(case, mode)
    return f"{fmt(lo)}–{fmt(hi)}"


def beyond_noise(a, b, mode, label=""):
    """Do cases a and b differ beyond their known spreads?  In cost mode a
    local call's median repeats from boot to boot (a descriptor call to the
    instruction, a call that copies a name within its measured run-to-run
    move; analysis/compare.py's rules): its 95% interval's upper tail is
    the timer's, not the call's.  NFS and time mode: the two intervals,
    widened as analysis/drift.py widens them, do not overlap."""
    if mode == "cost" and label and not compare.is_nfs(label):
        return compare.judge(a, b, label, mode, 0.0, 0.01, SPREADS)[2] in ("regressed",
                                                                           "improved")
    (alo, ahi), (blo, bhi) = drift.interval(a, mode), drift.interval(b, mode)
    return ahi < blo or bhi < alo


def reproduced(r, a, b, label, path=None):
    """(k, n) for the difference of case A and case B (each (boot, name))
    of configuration LABEL: of the n runs of the same two kernels that
    hold both (the reference and every kept run whose kernels have the
    same inputs, analysis/reference/runs/), the k in which the two differ
    beyond the noise (beyond_noise()) in the reference's direction.  None
    without both cases in the reference."""
    (ba, na), (bb, nb) = a, b
    ca, cb = r.case(ba, label, na), r.case(bb, label, nb)
    if not ca or not cb or ca["ret"] < 0 or cb["ret"] < 0:
        return None
    up = cb["median"] > ca["median"]
    k, n = int(beyond_noise(ca, cb, r.mode, label)), 1
    inputs = {c["variant"]: c["vm"].get("kernel_inputs") for c in r.doc["configs"]}
    want = {boot.split(" [")[0] for boot in (ba, bb)}
    for run in runs.kept_runs(*([path] if path else [])):
        ki = run.get("kernel_inputs", {})
        if run["mode"] != r.mode or any(not inputs.get(v) or ki.get(v) != inputs[v]
                                        for v in want):
            continue
        t = runs.as_doc(run)
        x, y = t.get((ba, label, na)), t.get((bb, label, nb))
        if not x or not y:
            continue
        x = {**ca, **x, "samples": [x["median"]]}
        y = {**cb, **y, "samples": [y["median"]]}
        n += 1
        k += beyond_noise(x, y, r.mode, label) and (y["median"] > x["median"]) == up
    return k, n


def noise_verdict(r, a, b, label):
    """A difference's verdict in words, over every run of the same kernels:
    reproduced (beyond the noise, one way, in each), inside the noise (in
    none), or in some of them."""
    kn = reproduced(r, a, b, label)
    if kn is None:
        return "–"
    k, n = kn
    runs_ = f"{n} run{'s' if n > 1 else ''}"
    if k == n:
        return f"reproduced ({runs_})" if n > 1 else "yes (1 run)"
    if k == 0:
        return f"no: inside the noise ({runs_})"
    return f"in {k} of {n} runs"


def bisected(r, label, name):
    """Where a case's change between the base and the whole series comes
    from, by experiment: each partial series is the series with the later
    patches removed, so the patch whose own step (the kernel with it
    against the one just without it) moves the case beyond the noise is
    the one that does the work.  The patches that do, with each step's
    change; "none" where no step does; "not bisected" where the run has
    no partial series on this configuration."""
    ro = r.roles
    kernels = [k for k in ro.measured if r.case(k, label, name)]
    if len(kernels) < 3:
        return "not bisected"
    steps = []
    for k0, k1 in zip(kernels, kernels[1:]):
        a, b = r.case(k0, label, name), r.case(k1, label, name)
        if a["ret"] < 0 and b["ret"] >= 0:
            steps.append(f"{ro.patches.get(k1, 0)} (works)")
        elif a["ret"] >= 0 and b["ret"] >= 0 and beyond_noise(a, b, r.mode, label):
            first, last = ro.patches.get(k0, 0) + 1, ro.patches.get(k1, 0)
            which = f"{first}" if first == last else f"{first}-{last}"
            steps.append(f"{which} ({pct(b['median'], a['median'])})")
    return ("patch " + ", ".join(steps)) if steps else "none"


def noise_word(a, b, mode, label=""):
    """How a finding words the difference of cases a and b: never as a
    difference when it is inside their spreads."""
    if beyond_noise(a, b, mode, label):
        return f"differs beyond the noise ({pct(b['median'], a['median'])})"
    return "is inside the noise (no difference claimed)"


def same_rpcs(a, b, mode):
    """What a difference between two NFS calls is not, when they make as
    many RPCs of each kind: a saving of the mask's.  Such a difference
    moves with the case's place in the boot: a patched boot that ran only
    stat and three statx masks on NFSv4 (traces/mix.py run patched DIR
    --cases stat,statx.BASIC_STATS,statx.TYPE,statx.SIZE --configs
    nfs4.actimeo0, 2026-12-06; its harness file is
    analysis/reference/nfs4_short_boot.json), inside knfsd's grace period,
    had stat() at 9 GETATTRs and statx(TYPE) 11% cheaper at 8, where the
    benchmark's boot has both at 8 and TYPE dearer."""
    if not beyond_noise(a, b, mode) or (a.get("nfs_ops_per_call") or {}) != \
            (b.get("nfs_ops_per_call") or {}):
        return ""
    return (" with the same RPCs per call: not the mask's doing, but the server's and the "
            "client's state at the case's place in the boot (on NFSv4, knfsd's grace period and "
            "delegations: see the NFS section)")


def sec_headline(r):
    """The first screen: every case a patch claims something about (tags
    p1-p4) on ext4, and the same calls over NFS without an attribute
    cache, the base kernel against the whole series (vm/variants.sh), each
    with its spread; a change inside the spreads is marked and is not a
    finding."""
    base, new = r.roles.base, r.roles.series
    if base is None or new is None:
        return "No base kernel and whole series in these results.\n"
    claims = sr.tagged(r.doc, *(f"p{k}" for k in range(1, r.roles.patches.get(new, 0) + 1)))
    nfs_names = [n for n in claims if n in sr.tagged(r.doc, "sync")]
    places = [("ext4", n) for n in claims] + [
        (lb, n) for lb in sr.fs_labels(r.doc, fs="nfs", actimeo="0", netem=0) for n in nfs_names]
    rows = []
    for label, name in places:
        a, b = r.case(base, label, name), r.case(new, label, name)
        if not a or not b:
            continue
        ioa = [r.case(f"{v} [{IOA0}]", label, name) for v in (base, new)]
        if a["ret"] < 0:
            change, sure = f"works ({base}: {a['errno']})", "–"
        else:
            change = pct(b["median"], a["median"])
            sure = noise_verdict(r, (base, name), (new, name), label)
        ga = (b.get("nfs_ops_per_call") or {}).get("GETATTR")
        rows.append([label, f"`{name}`", b["call"], fmt(a["median"]) +
                     (f" ({a['errno']})" if a["ret"] < 0 else ""), spread(a, r.mode),
                     fmt(b["median"]), spread(b, r.mode), change, sure,
                     bisected(r, label, name) if not sure.startswith("no") else "–",
                     pct(ioa[1]["median"], ioa[0]["median"]) if all(ioa) and ioa[0]["ret"] >= 0
                     else "–", "–" if ga is None else f"{ga:.2f}"])
    head = ["fs", "case", "call", base, "spread", new, "spread", "change", "beyond the noise?",
            "which patch (bisected)",
            f"change with {IOA0}", f"GETATTR/call ({new})"]
    unit = ("instructions per call (cost mode: the whole guest's busy time, on NFS the "
            "client's, knfsd's and the network stack's instructions, no idle wait)"
            if r.mode == "cost" else "ns per call, median")
    return (f"{base.capitalize()} against the whole series ({new}), {unit}.  Spread: the 95% interval of "
            "the median, widened in cost mode by the run-to-run jitter of calls that "
            f"allocate a name (±{drift.JITTER[r.mode]:g}).  Beyond the noise: on NFS, when the "
            "spreads do not overlap; on a local file system in cost mode, when the medians "
            "differ by more than the call's own run-to-run move (none for a call by "
            "descriptor, the largest measured move for a call that copies a name: the "
            "regression gate's rules), since the interval's upper tail is the timer's.  "
            "Rows: every case a patch's message claims something about, on ext4 and over "
            "NFS without an attribute cache.\n\n"
            + md_table(head, rows))


def sec_findings(r):
    """Sentences with the run's key numbers, computed, never typed."""
    out = []
    base, series = r.roles.base, r.roles.series
    p = series or r.boots[0]
    e = r.medians(base, "ext4")
    if e["stat"] and e["statx.TYPE"]:
        out.append(f"- **Local file systems ignore the mask.** On {base} ext4, statx() by path "
                   f"costs {fmt(e['statx.BASIC_STATS'])} for BASIC_STATS and {fmt(e['statx.TYPE'])} "
                   f"for TYPE alone; stat() costs {fmt(e['stat'])}. ext4 fills every basic field "
                   "whatever is asked; the mask saves nothing locally.")
    if e["fstat"] and e["fstatat.empty"]:
        out.append(f"- **glibc's fstat() pays for a name it does not have.** "
                   f"{base.capitalize()}: raw fstat() "
                   f"{fmt(e['fstat'])}, newfstatat(fd, \"\", AT_EMPTY_PATH) {fmt(e['fstatat.empty'])} "
                   f"({e['fstatat.empty'] / e['fstat']:.1f}×).")
    pe = r.medians(p, "ext4")
    if p != base and pe["fstatat.empty"] and e["fstatat.empty"]:
        out.append(f"- **The series removes it.** {p}: newfstatat(fd, \"\") {fmt(pe['fstatat.empty'])} "
                   f"({pct(pe['fstatat.empty'], e['fstatat.empty'])} against {base}), statx(fd, \"\") "
                   f"{fmt(pe['statx.fd.empty'])} ({pct(pe['statx.fd.empty'], e['statx.fd.empty'])}), "
                   f"statx(fd, NULL) {fmt(pe['statx.fd.null'])} ({base}: EFAULT).")
    fn = sr.patch_number("filename")
    k0, k1 = sr.with_patches(r.roles, fn - 1), sr.with_patches(r.roles, fn)
    st = {b: r.case(b, "ext4", "stat") for b in (k0, k1, f"{k0} [{IOA0}]", f"{k1} [{IOA0}]")
          if b and not b.startswith("None")}
    if k0 and k1 and all(st.get(b) for b in (k0, k1)):
        a, b = st[k0], st[k1]
        line = (f"- **The small struct filename (patch {fn}) saves the name buffer's zeroing, and "
                f"nothing else.** stat() by path, patch {fn} alone ({k0} → {k1}): "
                f"{fmt(a['median'])} → {fmt(b['median'])} instructions "
                f"({pct(b['median'], a['median'])}, "
                f"{noise_verdict(r, (k0, 'stat'), (k1, 'stat'), 'ext4')}).")
        a0, b0 = st.get(f"{k0} [{IOA0}]"), st.get(f"{k1} [{IOA0}]")
        if a0 and b0:
            line += (f"  The mechanism: on Debian's config the allocator zeroes names_cache's "
                     "whole object on every getname() (init_on_alloc); booted with "
                     f"{IOA0}, which removes that zeroing and nothing else, the same step is "
                     f"{fmt(a0['median'])} → {fmt(b0['median'])} "
                     f"({pct(b0['median'], a0['median'])}, "
                     f"{noise_word(a0, b0, r.mode, 'ext4')}).")
        n0, n1 = r.case(k0, "ext4", "stat.name160"), r.case(k1, "ext4", "stat.name160")
        if n0 and n1:
            line += (f"  A name of 160 bytes, one past what the small object holds, pays for "
                     f"both allocations: {fmt(n0['median'])} → {fmt(n1['median'])} "
                     f"({pct(n1['median'], n0['median'])}, "
                     f"{noise_verdict(r, (k0, 'stat.name160'), (k1, 'stat.name160'), 'ext4')}).")
        out.append(line)
    for label in sr.fs_labels(r.doc, fs="nfs", actimeo="0", netem=0):
        st = r.case(p, label, "stat")
        ds = r.case(p, label, "statx.BASIC_STATS.DONT_SYNC")
        ty = r.case(p, label, "statx.TYPE")
        if st and ds and ty:
            g = lambda c: c.get("nfs_ops_per_call", {}).get("GETATTR", 0)  # noqa: E731
            out.append(f"- **NFS ({label}, {p}):** stat() makes {g(st):.2f} GETATTR RPCs per "
                       f"call, statx(TYPE) {g(ty):.2f} and statx(DONT_SYNC) {g(ds):.2f} (counted "
                       "exactly, mountstats); their costs, with spreads, are "
                       f"{fmt(st['median'])} ({spread(st, r.mode)}), {fmt(ty['median'])} "
                       f"({spread(ty, r.mode)}) and {fmt(ds['median'])} ({spread(ds, r.mode)}): "
                       f"statx(TYPE) against stat() {noise_word(st, ty, r.mode)}"
                       f"{same_rpcs(st, ty, r.mode)}, statx(DONT_SYNC) against stat() "
                       f"{noise_word(st, ds, r.mode)}{same_rpcs(st, ds, r.mode)}.")
    _, write = dirty.cases(r.doc)
    for label in sr.fs_labels(r.doc, fs="nfs", actimeo="default", netem=0):
        w, st, sz = (r.case(p, label, n) for n in (write, "dirty.stat", "dirty.statx.SIZE"))
        if w and st and sz:
            wr = lambda c: (c.get("nfs_ops_per_call") or {}).get("WRITE", 0)  # noqa: E731
            out.append(f"- **A writer's stat on NFS ({label}, {p}):** after writing a page, "
                       f"stat() makes {wr(st):.2f} WRITE RPCs per call (it must flush to learn "
                       f"mtime) and takes {fmt(st['median'] - w['median'])} instructions beyond "
                       "the write, the flush's work in the client, knfsd and ext4 below it; "
                       f"statx(SIZE) makes {wr(sz):.2f} WRITEs "
                       f"per call and takes {fmt(sz['median'] - w['median'])}: it defers the "
                       "page's write to writeback (the harness rewrites the same 256 pages), "
                       "it does not remove it.")
            break
    base = r.v(p, "probe.none", "stat")
    hits = {k: r.v(p, f"probe.{k}", "stat") for k in ("tracepoint", "kprobe", "kretprobe")}
    pc = {k: r.v(p, f"probe.bpf.{k}", "stat") for k in ("tracepoint", "raw_tp", "kprobe")}
    if base and all(hits.values()):
        line = (f"- **Probing getattr ({p}):** with bpftrace counting, a kprobe costs "
                f"{hits['kprobe'] - base:+,.0f} instructions per hit, a kretprobe "
                f"{hits['kretprobe'] - base:+,.0f} and the stat:vfs_getattr_enter tracepoint "
                f"{hits['tracepoint'] - base:+,.0f} (perf's record of the event is built before "
                "the program runs).")
        if pc["tracepoint"] and pc["raw_tp"]:
            line += (" Like for like, with probe-count's eight BPF instructions at each attach "
                     f"point: the tracepoint {pc['tracepoint'] - base:+,.0f}, a raw tracepoint "
                     f"on the same event (no record built) {pc['raw_tp'] - base:+,.0f}" +
                     (f", a kprobe {pc['kprobe'] - base:+,.0f}." if pc["kprobe"] else "."))
        out.append(line)
    line = mix.mitigation_finding(r)
    if line:
        out.append(line)
    return "\n".join(out) or "No findings: the run lacks ext4 results."


# The sections in REPORT.md's order: the driver's own three, then each
# figure module's (its SECTION names it, its section(r) writes it).
OWN = {"answer": ("The answer", lambda r: mix.answer(
           r, beyond=lambda a, b, label: beyond_noise(a, b, r.mode, label))),
       "headline": ("Every case a patch claims something about", sec_headline),
       "figures": ("Figures", lambda r: captions.section(
           r, lambda a, b, label: beyond_noise(a, b, r.mode, label))),
       "cycles": ("In modeled cycles, on each core", mix.cycles_headline),
       "findings": ("Findings", sec_findings), "setup": ("Setup", sec_setup),
       "calibration": ("Calibration", sec_calibration),
       "hostcal": ("The host CPUs against cost mode", sec_hostcal),
       "delegation": ("NFSv4 delegations", lambda r: delegation.section()),
       "behaviour": ("What the lookup-free paths skip", lambda r: behaviour.section()),
       "byteread": ("The byte read of the \"\" patch, series v1 against now", mix.byte_read),
       "runs": ("Run to run", runs.section),
       "native": ("Measured cycles of the in-kernel part (User-Mode Linux)",
                  lambda r: uml_timing.full_section())}
MODULES = (fs_masks, series, name_length, conformance, scale, dirty, clients, nfs, probes,
           profiles, mix, bases, afs)
SECTIONS = {**{k: fn for k, (_, fn) in OWN.items()},
            **{m.SECTION[0]: m.section for m in MODULES}}
TITLES = {**{k: t for k, (t, _) in OWN.items()}, **{m.SECTION[0]: m.SECTION[1] for m in MODULES}}


# --- figures -------------------------------------------------------------------

def figures(r, outdir):
    """Every figure the results hold data for, into OUTDIR, each drawn by
    its own script; returns their PNGs' names relative to it.  A figure
    without its data is not drawn."""
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    made = []
    for script in (fs_masks, series, name_length, nfs, dirty, probes):
        made += [p.name for p in script.figures(r.doc, outdir)]
    made += [p.name for p in clients.figures(r.doc.get("clients"), r.mode, outdir)]
    made += [p.name for p in mix.figures(r, outdir)]
    runs = scale.from_results(r.doc)
    if runs:
        made += [f"scale/{p.name}" for p in scale.figures(runs, outdir / "scale")]
    return made


# --- output --------------------------------------------------------------------

# REPORT.md's brief versions of the long sections (a module's brief(r));
# the full sections go to the tables file.
BRIEF = {m.SECTION[0]: m.brief for m in MODULES if hasattr(m, "brief")}
BRIEF["behaviour"] = lambda r: behaviour.brief()
BRIEF["runs"] = runs.brief
# The UML section: REPORT.md's is the brief one; the tables file adds the
# functions and every case.
BRIEF["native"] = lambda r: uml_timing.section()


def render_sections(r, brief=False):
    """Every section's text; BRIEF: REPORT.md's, with the brief versions."""
    return {name: (BRIEF[name] if brief and name in BRIEF else fn)(r).rstrip() + "\n"
            for name, fn in SECTIONS.items()}


def tables_text(r, report_text=""):
    """The tables file: the full version of every section REPORT.md keeps
    brief, and every section it does not show (REPORT_TEXT's markers)."""
    shown = set(re.findall(r"<!-- generated:(\w+) -->", report_text))
    names = [n for n in SECTIONS if n in BRIEF or n not in shown]
    out = ["# The full tables behind REPORT.md", "",
           f"Generated by `analysis/report.py` from run `{r.doc.get('run_id', '?')}` "
           "(`analysis/reference/summary.json`), with REPORT.md; `make test` checks that "
           "the two agree with the summary.", ""]
    for name in names:
        out += [f"## {TITLES[name]}", "", SECTIONS[name](r).rstrip(), ""]
    # The file lives in analysis/reference/: its links are relative to it.
    return "\n".join(out).replace("](analysis/reference/", "](")


def replace_sections(text, sections):
    def sub(m):
        name = m.group(1)
        if name not in sections:
            return m.group(0)
        return f"<!-- generated:{name} -->\n{sections[name]}<!-- end:{name} -->"
    return re.sub(r"<!-- generated:(\w+) -->\n.*?<!-- end:\1 -->", sub, text, flags=re.S)


def sec_drift(r, reference=drift.REFERENCE):
    """A run's own report: the cases that moved beyond their known spread
    since the committed reference run (None for the reference itself)."""
    reference = pathlib.Path(reference)
    if not reference.is_file():
        return f"No reference run to compare with ({reference} is missing).\n"
    ref = sr.load(reference)
    if ref.get("run_id") == r.doc.get("run_id"):
        return None
    try:
        rows = drift.compare(r.doc, ref)
    except drift.ModeMismatch as e:
        return f"Not comparable with the reference run: {e}.\n"
    c = drift.counts(rows)
    out = [drift.summary_line(c, ref.get("run_id")) + ".", "",
           "A case moved when its 95% interval of the median and the reference's, each "
           f"widened by {drift.JITTER[r.mode]:g} (the run-to-run jitter of calls that "
           "allocate a name), do not overlap (analysis/drift.py)."
           + (f"  {drift.rule_note(r.doc, ref)}." if drift.rule_note(r.doc, ref) else ""), ""]
    moved = sorted((x for x in rows if x["verdict"] == "moved"),
                   key=lambda x: -abs(x["delta_pct"] or 0))
    if moved:
        out.append(md_table(
            ["boot", "configuration", "case", "reference", "this run", "change",
             "reference interval", "this run's interval"],
            [[x["boot"], x["label"], f"`{x['case']}`", fmt(x["ref_median"], 1),
              fmt(x["median"], 1), pct(x["median"], x["ref_median"]),
              f"{fmt(x['ref_interval'][0])}–{fmt(x['ref_interval'][1])}",
              f"{fmt(x['interval'][0])}–{fmt(x['interval'][1])}"] for x in moved]))
    else:
        out.append("No case moved beyond its spread.")
    return "\n".join(out) + "\n"


def standalone(r, figs):
    s = render_sections(r)
    parts = [f"# statx() study: run {r.doc.get('run_id', '')}", "",
             "Generated by analysis/report.py from this run's results.json.", ""]
    for name, body in s.items():
        parts += [f"## {TITLES[name]}", "", body]
    d = sec_drift(r)
    if d:
        parts += ["## Against the reference run", "", d]
    parts += ["## Figures", ""] + [f"![{f}]({f})" for f in figs]
    return "\n".join(parts) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("-o", "--output", help="directory for a run's own report")
    ap.add_argument("--update", metavar="REPORT.md")
    ap.add_argument("--check", metavar="REPORT.md")
    ap.add_argument("--figures", metavar="DIR")
    ap.add_argument("--tables", metavar="FILE",
                    help="with --update or --check: the full sections REPORT.md keeps brief "
                    "(analysis/reference/tables.md)")
    ap.add_argument("--config-diff", metavar="FILE",
                    help=f"with --update or --check: the kernels' config diffs ({CONFIG_DIFF_FILE})")
    a = ap.parse_args()
    # The btf kernel's fentry and fexit come from make probes when the
    # run has no boot of it (analysis/probes.py).
    r = Report(probes.with_study(sr.load(a.results)))
    if a.check:
        text = pathlib.Path(a.check).read_text()
        want = replace_sections(text, render_sections(r, brief=True))
        if want != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), want.splitlines(True), a.check, "regenerated"))
            sys.exit(f"{a.check} is not what {a.results} gives: run 'make report-reference'")
        if a.config_diff and pathlib.Path(a.config_diff).read_text() != config_diff_text(r.doc):
            sys.exit(f"{a.config_diff} is not what {a.results} gives: run 'make report-reference'")
        if a.tables and pathlib.Path(a.tables).read_text() != tables_text(r, text):
            sys.exit(f"{a.tables} is not what {a.results} gives: run 'make report-reference'")
        print(f"{a.check}: generated sections match {a.results}")
        return
    if a.update:
        if a.figures:
            figures(r, a.figures)
        p = pathlib.Path(a.update)
        p.write_text(replace_sections(p.read_text(), render_sections(r, brief=True)))
        if a.tables:
            pathlib.Path(a.tables).write_text(tables_text(r, p.read_text()))
        if a.config_diff:
            pathlib.Path(a.config_diff).write_text(config_diff_text(r.doc))
        print(f"updated {a.update}")
        return
    out = pathlib.Path(a.output or pathlib.Path(a.results).parent / "report")
    figs = figures(r, out)
    (out / "REPORT.md").write_text(standalone(r, figs))
    print(f"report: {out / 'REPORT.md'} ({len(figs)} figures)")


if __name__ == "__main__":
    main()
