#!/usr/bin/python3
"""Figures and report sections from one results file.

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
import clients  # noqa: E402
import dirty  # noqa: E402
import drift  # noqa: E402
import fs_masks  # noqa: E402
import name_length  # noqa: E402
import nfs  # noqa: E402
import probes  # noqa: E402
import scale  # noqa: E402
import series  # noqa: E402
import statx_results as sr  # noqa: E402
import targets as tg  # noqa: E402

IOA0 = sr.IOA0


class Report:
    def __init__(self, doc):
        self.doc = doc
        self.mode = doc["mode"]
        self.unit = doc["configs"][0]["unit"]
        self.t = sr.table(doc)
        self.boots = sr.boots(doc)
        self.labels = sr.labels(doc)

    def case(self, boot, label, name):
        return self.t.get((boot, label, name))

    def v(self, boot, label, name):
        c = self.case(boot, label, name)
        return None if c is None else c["median"]

    def unit_text(self):
        return ("instructions per call (cost mode: QEMU -icount shift=0, "
                "1 guest ns = 1 instruction)" if self.mode == "cost"
                else "ns per call, median (time mode)")


def fmt(x, digits=0):
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def pct(new, base):
    if new is None or base is None or base == 0:
        return "–"
    return f"{(new - base) / base * 100:+.2f}%"


def md_table(head, rows):
    """A markdown table; a | inside a cell (a mask like TYPE|INO) is
    escaped, code spans included, or it would split the cell."""
    def cell(x):
        return re.sub(r"(?<!\\)\|", r"\\|", str(x))
    out = ["| " + " | ".join(cell(h) for h in head) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(cell(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


# --- sections ----------------------------------------------------------------

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
    mounts = []
    for label in r.labels:
        c = next(c for c in r.doc["configs"] if c["label"] == label)
        if c["env"].get("mount"):
            mounts.append([label, c["env"]["mount"], c["env"].get("actimeo", ""),
                           c["env"].get("netem_us", ""), c["env"].get("files", "")])
    if mounts:
        out += [md_table(["configuration", "mount", "actimeo", "netem µs", "files"], mounts), ""]
    diff = [line for line in c0.get("config_diff", "").splitlines() if line.strip()]
    if diff:
        out += ["Kernel options that differ from Debian's cloud-amd64 config "
                "(`scripts/diffconfig`; every module turned off is counted, not listed):", "",
                "```", *diff, "```"]
    return "\n".join(out)


def sec_calibration(r):
    b = r.boots[0]
    rows = [[n, fmt(r.v(b, "floor", n), 1)] for n in sr.tagged(r.doc, "calib")]
    out = [md_table(["calibration case (user space)", r.unit.replace("instructions", "count")], rows), ""]
    s_def, s_ioa = r.v("stock", "ext4", "stat"), r.v(f"stock [{IOA0}]", "ext4", "stat")
    if r.mode == "cost" and s_def and s_ioa:
        out += [f"On stock ext4, stat() by path costs {fmt(s_def)} with Debian's default "
                f"and {fmt(s_ioa)} with `{IOA0}`: zeroing the 4 KiB name buffer is "
                f"{fmt(s_def - s_ioa)} counted instructions, "
                f"{(s_def - s_ioa) / s_def * 100:.1f}% of the call, where `rep stosb` over "
                f"4096 bytes alone counts {fmt(r.v(b, 'floor', 'calib.rep_stosb_4096'))}."]
    return "\n".join(out)


def sec_fs(r):
    out = []
    main = sr.tagged(r.doc, "main")
    for c in sr.fs_configs(r.doc):
        if int(c["env"].get("netem_us") or 0):
            continue
        label, rows, on_nfs = c["label"], [], c["fs"] == "nfs"
        # The boots that ran this configuration (btf runs the probe study
        # only, series3 ext4 and tmpfs only); RPCs from the whole series.
        boots = [b for b in r.boots if IOA0 not in b
                 and any(r.v(b, label, n) is not None for n in main)]
        rpc_boot = "patched" if "patched" in boots else boots[-1]
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


def sec_series(r):
    """Patches 1-3, on series3 when the run has it (patch 4 changes every
    call by name, so the whole series cannot show their overhead)."""
    out = []
    p3 = "series3" if any(b.startswith("series3") for b in r.boots) else "patched"
    for suffix in ("", f" [{IOA0}]"):
        s, p = "stock" + suffix, p3 + suffix
        if s not in r.boots or p not in r.boots:
            continue
        rows = []
        for name in series.cases(r.doc):
            a, b = r.v(s, "ext4", name), r.v(p, "ext4", name)
            ca = r.case(s, "ext4", name) or {}
            failed = ca.get("ret", 0) < 0
            note = f" ({ca['errno']})" if failed else ""
            rows.append([f"`{name}`", fmt(a) + note, fmt(b),
                         "works (stock fails)" if failed else pct(b, a)])
        out += [f"ext4, {'Debian default' if not suffix else IOA0}:", "",
                md_table(["case", s, p, "change"], rows), ""]
        fst = r.v(p, "ext4", "fstat")
        copy = None
        if r.v(p, "ext4", "statx.BASIC_STATS") and r.v(p, "ext4", "stat"):
            copy = r.v(p, "ext4", "statx.BASIC_STATS") - r.v(p, "ext4", "stat")
        checks = []

        def met(ok):
            return "met" if ok else "**not met**"

        for name in ("stat", "statx.BASIC_STATS", "fstat"):
            a, b = r.v(s, "ext4", name), r.v(p, "ext4", name)
            if a and b:
                checks.append(f"patches 1-3 ({p3}), events compiled in and disabled: "
                              f"`{name}` {b - a:+,.0f} "
                              f"({pct(b, a)}; target ≤ +{tg.pct(tg.EVENTS_OFF_OVERHEAD)}: "
                              f"{met((b - a) / a <= tg.EVENTS_OFF_OVERHEAD)})")
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


# x86-64 numbers of the calls the series compares.
NR = {"newfstat": 5, "newfstatat": 262, "statx": 332}


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
        p = d["per_nr"]["134"]["instructions"] - d["per_nr"]["174"]["instructions"]
        same = d["per_nr"]["134"]["handler"] == d["per_nr"]["174"]["handler"]
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


def sec_nfs(r):
    boot = nfs.boot(r.doc)
    labels = sr.fs_labels(r.doc, fs="nfs")
    names = sr.tagged(r.doc, nfs.TAG)
    rows = []
    for label in labels:
        c = sr.config(r.doc, boot, label)
        for name in names:
            x = r.case(boot, label, name)
            if x is None:
                continue
            ops = x.get("nfs_ops_per_call", {})
            rows.append([label, c["env"].get("actimeo", ""), c["env"].get("netem_us", ""),
                         f"`{name}`", fmt(x["median"]), fmt(ops.get("GETATTR"), 2),
                         fmt(ops.get("LOOKUP"), 2), fmt(ops.get("ACCESS"), 2)])
    return (f"Boot: {boot}.\n\n" +
            md_table(["mount", "actimeo", "netem µs", "case", r.unit.split()[0],
                      "GETATTR/call", "LOOKUP/call", "ACCESS/call"], rows))


def sec_conformance(r):
    conf = r.doc.get("conformance")
    if not conf:
        return "No conformance run in these results (bench/run.sh runs it).\n"
    variants = [v for v in ("stock", "series3", "patched") if v in conf]
    variants += [v for v in sorted(conf) if v not in variants]
    fss = []
    for v in variants:
        fss += [fs for fs in conf[v]["by_fs"] if fs not in fss]
    out = ["Tests passed / failed / skipped, per file system and kernel "
           "(tests/guest/statx_conformance_test.c; \"any\": tests that do not "
           "depend on the file system).", ""]
    rows = []
    for fs in fss:
        row = [fs]
        for v in variants:
            c = conf[v]["by_fs"].get(fs)
            row.append(f"{c['pass']} / {c['fail']} / {c['skip']}" if c else "-")
        rows.append(row)
    rows.append(["all"] + [f"{conf[v]['totals']['pass']} / {conf[v]['totals']['fail']} / "
                           f"{conf[v]['totals']['skip']}" for v in variants])
    out += [md_table(["file system"] + variants, rows), ""]
    skips = {}
    for v in variants:
        for name, why in conf[v].get("skips", {}).items():
            skips.setdefault(name, set()).add(why)
    if skips:
        out += ["Skipped, and why:", ""]
        out += [f"- `{n}`: {'; '.join(sorted(w))}" for n, w in sorted(skips.items())]
        out.append("")
    fuzz_rows = []
    for v in variants:
        for fs, f in conf[v].get("fuzz", {}).items():
            e = f["errno"]
            fuzz_rows.append([v, fs, f"{f['calls']}", f"{f['ok']}"] +
                             [str(e.get(k, 0)) for k in ("EFAULT", "EBADF", "EINVAL", "ENOENT",
                                                         "ENOTDIR", "ENAMETOOLONG", "ELOOP")])
    if fuzz_rows:
        out += ["Fuzz runs (fixed seed; statx() and newfstatat() with random "
                "descriptors, names, flags, masks and buffers): calls, successes "
                "and errors.", "",
                md_table(["kernel", "fs", "calls", "ok", "EFAULT", "EBADF", "EINVAL",
                          "ENOENT", "ENOTDIR", "ENAMETOOLONG", "ELOOP"], fuzz_rows), ""]
    if "stock" in conf and "patched" in conf:
        import conformance
        bad = conformance.diff(conf["stock"], conf["patched"])
        out.append("Stock against patched: " + (
            "the same results test by test; in the fuzz run only EFAULTs "
            "turned into successes or EBADF (the NULL name with AT_EMPTY_PATH), "
            "as the series intends." if not bad else
            "differences the series does not intend: " + "; ".join(bad) + "."))
        out.append("")
    masks = conf[variants[-1]].get("masks", {})
    if masks:
        asked = []
        for fs in masks:
            asked += [a for a in masks[fs] if a not in asked]
        out += [f"stx_mask returned for each requested mask ({variants[-1]}; a regular "
                "file just created, so NFS's attribute cache is fresh):", "",
                md_table(["asked"] + list(masks),
                         [[f"{sr.mask_name(int(a, 16)) or 'none'} `{a}`"] +
                          [f"`{masks[fs].get(a, '-')}`" for fs in masks]
                          for a in asked]), ""]
    return "\n".join(out)


def sec_dirty(r):
    boot = dirty.boot(r.doc)
    names, base = dirty.cases(r.doc)
    labels = [lb for lb in sr.fs_labels(r.doc) if r.case(boot, lb, base)]
    if not labels:
        return "No dirty-page cases in these results.\n"
    out = [f"A writer's stat: each call dirties one 4 KiB page of a file (pwrite) and then "
           f"asks; the table gives the call's cost beyond `{base}` (the pwrite "
           f"alone), {r.unit} per call, on {boot}, with the NFS WRITE RPCs and bytes "
           "written to the server per call.  On NFS a wait for the server or a "
           "writeback timer shows in cost mode as the clock jumping to the next timer "
           "deadline, so these NFS figures are not pure instruction counts.", ""]
    rows = []
    for lb in labels:
        w = r.v(boot, lb, base)
        for n in names:
            c = r.case(boot, lb, n)
            if not c:
                continue
            ops = c.get("nfs_ops_per_call") or {}
            rows.append([lb, n.replace("dirty.", ""), fmt(w), fmt(c["median"] - w),
                         f"{ops['WRITE']:.2f}" if "WRITE" in ops else "-",
                         fmt(ops["WRITE_BYTES"]) if "WRITE_BYTES" in ops else "-"])
    out += [md_table(["config", "call after the write", "pwrite alone", "call beyond it",
                      "WRITE RPCs", "bytes written"], rows)]
    return "\n".join(out) + "\n"


def sec_clients(r):
    runs = r.doc.get("clients")
    if not runs:
        return "No real-client runs in these results (bench/run.sh runs them).\n"
    out = []
    for variant, cfgs in runs.items():
        for cfg, c in cfgs.items():
            fs = "nfs" if cfg.startswith("nfs") else cfg.split(".")[0]
            what = c["mount"].split()[0] + (", actimeo=0" if "acregmax=0" in c["mount"] else "")
            out += [f"{variant}, {cfg} ({what}): a directory of {c['files']} files, "
                    "a subdirectory and a symlink; each client run once before, to warm "
                    "caches and translation:", ""]
            rows, seen = [], set()
            for run in c["runs"]:
                seen |= {x["mask"] for x in run["calls"] if x["syscall"] == "statx"}
                seen |= {x["mask"] for x in run["getattr"] if x["fs"] == fs}
                calls = "; ".join(
                    f"{x['syscall']}" + (f" `{x['mask']:#x}`" if x["syscall"] == "statx" else "") +
                    f" {clients.flag_names(x['flags'])} ×{x['count']}"
                    for x in sorted(run["calls"], key=lambda x: -x["count"]))
                ga = "; ".join(f"`{x['mask']:#x}` {clients.flag_names(x['flags'])} ×{x['count']}"
                               for x in run["getattr"] if x["fs"] == fs) or "–"
                rp = run["rpcs"]
                rows.append([f"`{run['client']}`", calls, ga,
                             fmt(run["task_clock_ns"] / 1e6, 1) if run["task_clock_ns"] else "–",
                             " ".join(f"{k} {v}" for k, v in rp.items() if v) or "–"])
            out += [md_table(["client", "stat-family calls (mask, flags ×n)",
                              f"getattr on {fs} (mask, flags ×n)",
                              "CPU (M instr.)" if r.mode == "cost" else "CPU (ms)",
                              "NFS RPCs"], rows), ""]
            if seen:
                out += ["Masks: " + "; ".join(f"`{m:#x}` {sr.mask_name(m) or 'none'}"
                                              for m in sorted(seen)) + ".", ""]
    return "\n".join(out)


def sec_scaling(r):
    runs = scale.from_results(r.doc)
    if not runs:
        return "No scaling study in these results (bench/run.sh runs it).\n"
    text = scale.markdown(runs)
    return text.split("\n", 2)[2] if text.startswith("## ") else text


def sec_probes(r):
    out = []
    for boot in [b for b in r.boots if IOA0 not in b]:
        base = r.v(boot, "probe.none", "stat")
        if base is None:
            continue

        def cells(label):
            x = r.v(boot, label, "stat")
            return ["–", "–"] if x is None else [fmt(x), f"{x - base:+,.0f}"]
        rows = [["none", fmt(base), "–", fmt(base), "–"]]
        for p in probes.KINDS:
            bt = cells(f"probe.{p}") if p != "raw_tp" else ["no such probe in bpftrace 0.17", "–"]
            rows.append([p] + bt + cells(f"probe.bpf.{p}"))
        out += [f"{boot}: the same `stat()` loop on ext4, one getattr per call, {r.unit} "
                "per call and the cost of one hit; \"bpftrace\" counts with `@n = count()`, "
                "\"probe-count\" with traces/probe_count.c's eight BPF instructions at "
                "every attach point (– : not run on this kernel):", "",
                md_table(["attach point", "bpftrace: stat()", "one hit",
                          "probe-count: stat()", "one hit"], rows), ""]
    return "\n".join(out).rstrip() or "No probe study in this run (TRACE=0)."


def sec_findings(r):
    """Sentences with the run's key numbers, computed, never typed."""
    out = []
    p = "patched" if "patched" in r.boots else r.boots[0]
    e = {n: r.v("stock", "ext4", n) for n in
         ("stat", "statx.BASIC_STATS", "statx.TYPE", "statx.SIZE", "fstat",
          "fstatat.empty", "statx.fd.empty", "statx.fd.null")}
    if e["stat"] and e["statx.TYPE"]:
        out.append(f"- **Local file systems ignore the mask.** On stock ext4, statx() by path "
                   f"costs {fmt(e['statx.BASIC_STATS'])} for BASIC_STATS and {fmt(e['statx.TYPE'])} "
                   f"for TYPE alone; stat() costs {fmt(e['stat'])}. ext4 fills every basic field "
                   "whatever is asked; the mask saves nothing locally.")
    if e["fstat"] and e["fstatat.empty"]:
        out.append(f"- **glibc's fstat() pays for a name it does not have.** Stock: raw fstat() "
                   f"{fmt(e['fstat'])}, newfstatat(fd, \"\", AT_EMPTY_PATH) {fmt(e['fstatat.empty'])} "
                   f"({e['fstatat.empty'] / e['fstat']:.1f}×).")
    pe = {n: r.v(p, "ext4", n) for n in ("fstat", "fstatat.empty", "statx.fd.empty", "statx.fd.null")}
    if p != "stock" and pe["fstatat.empty"] and e["fstatat.empty"]:
        out.append(f"- **The series removes it.** {p}: newfstatat(fd, \"\") {fmt(pe['fstatat.empty'])} "
                   f"({pct(pe['fstatat.empty'], e['fstatat.empty'])} against stock), statx(fd, \"\") "
                   f"{fmt(pe['statx.fd.empty'])} ({pct(pe['statx.fd.empty'], e['statx.fd.empty'])}), "
                   f"statx(fd, NULL) {fmt(pe['statx.fd.null'])} (stock: EFAULT).")
    n = {b: r.v(b, "ext4", "stat") for b in ("stock", "patched", f"stock [{IOA0}]")}
    n160 = {b: r.v(b, "ext4", "stat.name160") for b in ("stock", "patched")}
    if n["stock"] and n["patched"] and p == "patched":
        line = (f"- **A small struct filename (patch 4) halves stat() by name.** stat() by path "
                f"costs {fmt(n['patched'])} with the whole series against {fmt(n['stock'])} on "
                f"stock ({n['patched'] / n['stock'] * 100:.1f}%; stock with {IOA0}: "
                f"{fmt(n[f'stock [{IOA0}]'])}).")
        if n160["stock"] and n160["patched"]:
            line += (f" A name of 160 bytes, one past what the small object holds, pays for "
                     f"both allocations: {fmt(n160['patched'])} against {fmt(n160['stock'])} "
                     f"({pct(n160['patched'], n160['stock'])}).")
        out.append(line)
    for label in sr.fs_labels(r.doc, fs="nfs", actimeo="0", netem=0):
        st = r.case(p, label, "stat")
        ds = r.case(p, label, "statx.BASIC_STATS.DONT_SYNC")
        sz = r.case(p, label, "statx.SIZE")
        if st and ds and sz:
            g = lambda c: c.get("nfs_ops_per_call", {}).get("GETATTR", 0)  # noqa: E731
            out.append(f"- **NFS ({label}, {p}):** stat() {fmt(st['median'])} with {g(st):.2f} GETATTR "
                       f"per call; statx(SIZE) {fmt(sz['median'])} with {g(sz):.2f}; statx(DONT_SYNC) "
                       f"{fmt(ds['median'])} with {g(ds):.2f}.")
    for label in sr.fs_labels(r.doc, fs="nfs", actimeo="default", netem=0):
        w, st, sz = (r.v(p, label, n) for n in ("dirty.write", "dirty.stat", "dirty.statx.SIZE"))
        if w and st and sz:
            wr = lambda n: ((r.case(p, label, n) or {}).get("nfs_ops_per_call")  # noqa: E731
                            or {}).get("WRITE", 0)
            out.append(f"- **A writer's stat on NFS ({label}, {p}):** after writing a page, "
                       f"stat() makes {wr('dirty.stat'):.2f} WRITE RPCs per call (it must flush "
                       f"to learn mtime) and takes {fmt(st - w)} guest ns beyond the write, "
                       "most of it waiting for the flush (in cost mode a wait jumps the clock "
                       f"to the next timer tick); statx(SIZE) makes "
                       f"{wr('dirty.statx.SIZE'):.2f} WRITEs and takes {fmt(sz - w)}.")
            break
    base = r.v(p, "probe.none", "stat")
    hits = {k: r.v(p, f"probe.{k}", "stat") for k in ("tracepoint", "kprobe", "kretprobe")}
    raw = r.v(p, "probe.bpf.raw_tp", "stat")
    if base and all(hits.values()):
        out.append(f"- **Probing getattr ({p}, bpftrace counting):** a kprobe costs "
                   f"{hits['kprobe'] - base:+,.0f} instructions per hit, a kretprobe "
                   f"{hits['kretprobe'] - base:+,.0f}, the stat:vfs_getattr_enter tracepoint "
                   f"{hits['tracepoint'] - base:+,.0f} (perf's record of the event, file system "
                   "name included, is built before the program runs)" +
                   (f"; a raw tracepoint on the same event, which hands the program the "
                    f"arguments and builds no record, {raw - base:+,.0f}." if raw else "."))
    return "\n".join(out) or "No findings: the run lacks ext4 results."


def sec_filename(r):
    """Patch 4: struct filename in a small object."""
    out = []
    have3 = any(b.startswith("series3") for b in r.boots)
    for suffix in ("", f" [{IOA0}]"):
        s, p3, p = "stock" + suffix, "series3" + suffix, "patched" + suffix
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
        head = ["case"] + cols + (["patch 4 alone"] if have3 else []) + ["series vs stock"]
        out += [f"ext4, {'Debian default' if not suffix else IOA0}:", "", md_table(head, rows), ""]
        a, b = r.v(s, "ext4", "stat"), r.v(p, "ext4", "stat")
        checks = [f"`stat` by path costs {b / a * 100:.1f}% of stock "
                  f"(target ≤ {tg.pct(tg.STAT_BY_PATH_AT_MOST)} on Debian's default: "
                  f"{'met' if b / a <= tg.STAT_BY_PATH_AT_MOST else '**not met**'})" if not suffix else
                  f"`stat` by path costs {b / a * 100:.1f}% of stock with {IOA0} (no target)"]
        checks.append(f"cases more than {tg.pct(tg.NO_CASE_SLOWER)} slower than stock: " +
                      (", ".join(slower) + " (target none: **not met**)" if slower
                       else "none (target none: met)"))
        out += ["- " + c for c in checks] + [""]
    env = (sr.config(r.doc, "patched", "floor") or {}).get("env", {})
    env_s = (sr.config(r.doc, "stock", "floor") or {}).get("env", {})
    mem = [(k, env_s.get(k) or env.get(k)) for k in ("slab_names_cache", "slab_filename_cache")]
    if any(v for _, v in mem):
        out.append("Memory per name (SLUB's object size as the guest reports it, "
                   "/sys/kernel/slab/*/slab_size): " +
                   "; ".join(f"{k.replace('slab_', '')} {v} bytes" for k, v in mem if v) +
                   ". Stock takes one names_cache object per name; patch 4 one filename_cache "
                   "object, plus a names_cache object for a name of 160 bytes or more.")
    return "\n".join(out).rstrip() or "No name-length cases in this run (QUICK)."


SECTIONS = {
    "findings": sec_findings,
    "setup": sec_setup,
    "calibration": sec_calibration,
    "filesystems": sec_fs,
    "series": sec_series,
    "filename": sec_filename,
    "conformance": sec_conformance,
    "scaling": sec_scaling,
    "dirty": sec_dirty,
    "clients": sec_clients,
    "nfs": sec_nfs,
    "probes": sec_probes,
}


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
    runs = scale.from_results(r.doc)
    if runs:
        made += [f"scale/{p.name}" for p in scale.figures(runs, outdir / "scale")]
    return made


# --- output --------------------------------------------------------------------

def render_sections(r):
    return {name: fn(r).rstrip() + "\n" for name, fn in SECTIONS.items()}


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
           "allocate a name), do not overlap (analysis/drift.py).", ""]
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
    titles = {"findings": "Findings", "setup": "Setup", "calibration": "Calibration",
              "filesystems": "Per file system", "series": "The patch series", "filename": "Patch 4: a small struct filename", "nfs": "NFS",
              "conformance": "Conformance", "scaling": "Scaling and workloads",
              "dirty": "A writer's stat", "clients": "Real clients",
              "probes": "Probe overhead"}
    for name, body in s.items():
        parts += [f"## {titles[name]}", "", body]
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
    a = ap.parse_args()
    r = Report(sr.load(a.results))
    if a.check:
        text = pathlib.Path(a.check).read_text()
        want = replace_sections(text, render_sections(r))
        if want != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), want.splitlines(True), a.check, "regenerated"))
            sys.exit(f"{a.check} is not what {a.results} gives: run 'make report-reference'")
        print(f"{a.check}: generated sections match {a.results}")
        return
    if a.update:
        if a.figures:
            figures(r, a.figures)
        p = pathlib.Path(a.update)
        p.write_text(replace_sections(p.read_text(), render_sections(r)))
        print(f"updated {a.update}")
        return
    out = pathlib.Path(a.output or pathlib.Path(a.results).parent / "report")
    figs = figures(r, out)
    (out / "REPORT.md").write_text(standalone(r, figs))
    print(f"report: {out / 'REPORT.md'} ({len(figs)} figures)")


if __name__ == "__main__":
    main()
