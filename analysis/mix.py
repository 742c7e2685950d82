#!/usr/bin/env python3
"""mix.py - each headline call's instruction mix, from traces/mix.py's
windows, checked against cost mode's count of the same boot, weighed
with analysis/cycle_model.json.

Usage: mix.py MIXDIR [-o mix.json]
  MIXDIR holds one directory per variant as traces/mix.py run leaves it:
  kallsyms, LABEL.json (the harness's cost-mode results of that boot) and
  LABEL/CASE.json (the windows).

A case's mix is its window's minus the empty body's (the harness's own
call through the pointer, as the samples take it off).  Of its five
windows the clean ones (no interrupt, no I/O rewind) are kept; the
median total is the case's mix.  Every window, clean or not, is checked
against the harness's clock read around that same window (the "mix
done" line's, the empty body's taken off as well): that is cost mode's
count of the same call.  Errors name the case: a window whose kernel
code has no symbol, an instruction QEMU's disassembler did not decode, a
case without windows, a window more than 1% off its own clock (unless it
waited: a wait shows on cost mode's clock as a jump to the next timer,
which no instruction stream holds), a total more than 1% off cost mode's
median of batches in a case with a clean window.  A call that no window
ran without an interrupt (one that makes an RPC) is one call against
that median of other calls: its difference is recorded and reported,
with the range of the batches' samples, not failed.
"""
import argparse
import bisect
import concurrent.futures
import json
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cycles  # noqa: E402
import statx_results as sr  # noqa: E402
from series import NR, syscall  # noqa: E402
from md import IOA0, fmt, md_table, pct  # noqa: E402

# make mix's file; the report reads it as it reads the host calibrations.
MIX_FILE = HERE / "reference" / "mix.json"
# make hostcal's files, one per CPU model the study's hosts have had
# (bench/hostcal.c --out-dir).
HOSTCAL_DIR = HERE / "reference" / "hostcal"
# The mix of series v1 (run 20261205T010533Z-cost), whose patch 3 read the
# name's first byte with user_access_begin() and unsafe_get_user().
MIX_V1_FILE = HERE / "reference" / "mix-v1.json"

KERNEL = 0xffff800000000000
KERNEL_CLASSES = ("call", "ret", "indirect")
TOLERANCE = 0.01
# Functions kept by name for a call that makes an RPC (case_mix()).
RPC_FUNCTIONS = 60

# Classes, in the order a figure stacks them.
CLASSES = ("rep", "fence", "smap", "locked", "system", "call", "ret",
           "indirect", "branch", "memory", "other")
CLASS_TEXT = {
    "rep": "REP string (each iteration)",
    "fence": "lfence, mfence, sfence",
    "smap": "stac, clac",
    "locked": "locked read-modify-write",
    "system": "syscall, sysret, swapgs, iret, MSR, CR, cpuid, verw, rdtsc",
    "call": "call (direct)",
    "ret": "ret",
    "indirect": "indirect call or jump",
    "branch": "jump, conditional jump",
    "memory": "other load or store",
    "other": "everything else",
}
STRING_OPS = ("movs", "stos", "cmps", "scas", "lods", "ins", "outs")
RMW = ("add", "sub", "inc", "dec", "xadd", "cmpxchg", "or", "and", "xor", "bts", "btr",
       "btc", "not", "neg", "adc", "sbb")
SYSTEM = ("syscall", "sysret", "sysexit", "sysenter", "swapgs", "iret", "wrmsr", "rdmsr",
          "cpuid", "verw", "rdtsc", "rdpid", "invlpg", "wbinvd", "lgdt", "lidt", "ltr",
          "hlt", "xsetbv", "wrpkru", "rdpkru", "serialize", "clts", "int3", "ud2")
WIDTH = {"b": 1, "w": 2, "l": 4, "d": 4, "q": 8}
# Where a wait shows: the idle loop (cost mode's clock jumps there).
IDLE = ("default_idle", "arch_cpu_idle", "do_idle", "cpu_idle_poll", "acpi_idle",
        "default_idle_call", "cpu_startup_entry")


class MixError(Exception):
    """Input this cannot use, named by case."""


def classify(text, code):
    """The class of one instruction, from QEMU's AT&T text and bytes."""
    words = text.split()
    if not words:
        raise MixError(f"an instruction with no text ({code})")
    op = words[0]
    prefix = None
    if op in ("rep", "repz", "repe", "repnz", "repne", "lock") and len(words) > 1:
        prefix, op = op, words[1]
    operands = text.split(None, 2 if prefix else 1)[-1] if len(words) > (2 if prefix else 1) else ""
    mem = "(" in operands
    base = op.rstrip("bwlqd") if op not in ("stac", "clac", "cld") else op
    if prefix and prefix.startswith("rep") and base.startswith(STRING_OPS):
        return "rep"
    if op in ("lfence", "mfence", "sfence"):
        return "fence"
    if op in ("stac", "clac"):
        return "smap"
    if prefix == "lock" or (op.startswith("xchg") and mem):
        return "locked"
    # A 1-vCPU guest: the uniprocessor alternatives turn each LOCK prefix
    # the kernel registered into a DS prefix (3e); on an SMP host it is a
    # lock.  DS means nothing else here but a notrack branch.
    if code.startswith("3e") and mem and op.rstrip("bwlq") in RMW:
        return "locked"
    if op.startswith(SYSTEM) or ("%cr" in operands and op.startswith("mov")):
        return "system"
    if op.startswith("call"):
        return "indirect" if "*" in operands else "call"
    if op.startswith("ret"):
        return "ret"
    if op.startswith("jmp"):
        return "indirect" if "*" in operands else "branch"
    if op.startswith(("j", "loop")):
        return "branch"
    if (mem and not op.startswith(("lea", "nop"))) or op.startswith(("push", "pop", "leave")):
        return "memory"
    return "other"


def rep_detail(text):
    """(mnemonic, bytes per iteration) of a REP string instruction."""
    words = text.split()
    op = words[1]
    return op, WIDTH.get(op[-1], 1)


class Symbols:
    """The running kernel's symbols, from the guest's /proc/kallsyms."""

    def __init__(self, path):
        syms = []
        for line in pathlib.Path(path).read_text().splitlines():
            f = line.split()
            if len(f) >= 3 and f[1] in "tTwW":
                syms.append((int(f[0], 16), f[2]))
        if not syms or not syms[0][0]:
            raise MixError(f"{path}: no addresses (kptr_restrict?)")
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, pc, case):
        if pc < KERNEL:
            return "(user space)"
        i = bisect.bisect_right(self.addrs, pc) - 1
        if i < 0:
            raise MixError(f"{case}: kernel code at {pc:#x} below every symbol")
        return self.names[i]


# Instructions QEMU 7.2's disassembler does not decode: it prints the
# first byte as ".byte 0x0f" and decodes the rest as another instruction
# (rdpkru, in __switch_to()'s PKRU save, reads as ".byte 0x0f" and
# "addl %ebp, %esi"), so a log line is not an instruction there.  What
# QEMU ran is the whole instruction, once: its bytes -> its mnemonic.
UNDECODED = {("0f", "01 ee"): "rdpkru", ("0f", "01 ef"): "wrpkru"}


def mend(insns, syms, case):
    """A TB's instructions with each one the disassembler split put back
    together; any other byte it could not decode is an error that names
    the case, the function and the bytes (the count would be wrong)."""
    out, i = [], 0
    while i < len(insns):
        pc, code, text = insns[i]
        if text.startswith(".byte"):
            nxt = insns[i + 1] if i + 1 < len(insns) else None
            name = None
            if nxt and nxt[0] == pc + len(code.split()):
                name = UNDECODED.get((code, " ".join(nxt[1].split()[:2])))
            if name is None:
                raise MixError(f"{case}: QEMU's disassembler did not decode the instruction "
                               f"at {pc:#x} ({syms.name(pc, case)}): {code}"
                               + (f" then {nxt[1]}" if nxt else ""))
            out.append([pc, f"{code} {nxt[1]}", name])
            i += 2
            continue
        out.append(insns[i])
        i += 1
    return out


def window_counts(doc, syms, case):
    """Per window: total, classes, functions, REP instances, waited."""
    out = []
    tbs = [mend(tb["insns"], syms, case) for tb in doc["tbs"]]
    for w in doc["windows"]:
        classes = dict.fromkeys(CLASSES, 0)
        # The kernel's own calls, returns and indirect branches: what a
        # core's speculation mitigations change (cycles.py).
        kernel = dict.fromkeys(KERNEL_CLASSES, 0)
        ops, funcs, reps = {}, {}, []
        last_rep, waited, total = None, False, 0
        for i in w["tbs"]:
            for pc, code, text in tbs[i]:
                c = classify(text, code)
                fn = syms.name(pc, case)
                classes[c] += 1
                if c in kernel and pc >= KERNEL:
                    kernel[c] += 1
                total += 1
                funcs[fn] = funcs.get(fn, 0) + 1
                if fn in IDLE:
                    waited = True
                if c == "rep":
                    if last_rep is not None and reps[-1]["pc"] == pc:
                        reps[-1]["execs"] += 1
                    else:
                        op, width = rep_detail(text)
                        reps.append({"pc": pc, "function": fn, "insn": op, "width": width,
                                     "execs": 1})
                    last_rep = pc
                else:
                    last_rep = None
                if c in ("fence", "smap", "locked", "system", "indirect"):
                    name = text.split()[0] if c != "locked" else (
                        "lock " + text.split()[1] if text.startswith("lock") else
                        text.split()[0] + (" (ds: lock on SMP)" if code.startswith("3e") else ""))
                    if c == "system" and name.startswith("mov"):
                        name = "mov %cr"
                    ops[name] = ops.get(name, 0) + 1
        for r in reps:
            # The last run finds the count at zero and does no work.
            r["bytes"] = max(r["execs"] - 1, 0) * r["width"]
            del r["pc"]
        out.append({"total": total, "classes": classes, "kernel": kernel, "ops": ops,
                    "functions": funcs,
                    "rep": reps, "n": w.get("n"), "interrupted": w.get("interrupted", False),
                    "rewound": w.get("rewound", False), "waited": waited})
    return out


def pick(windows, case):
    """The clean windows' median-total window, and the totals' spread.  A
    long call (an RPC's) always meets an interrupt: with no clean window,
    all count, as cost mode's samples count theirs, and the case says so."""
    if not windows:
        raise MixError(f"{case}: no window")
    clean = [w for w in windows if not w["interrupted"] and not w["rewound"]] or windows
    totals = sorted(w["total"] for w in clean)
    med = totals[(len(totals) - 1) // 2]
    w = next(x for x in clean if x["total"] == med)
    return w, totals


def sub(a, b):
    return {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b) if a.get(k, 0) - b.get(k, 0)}


def own_clock(doc, null, windows, n, case):
    """Each window against the harness's clock read around that same
    window (cost mode's count of that one call), both with the empty
    body's taken off: [(mix total, clock count)].  Every window is held
    to it, interrupted or not, but one that waited (the clock jumped over
    idle time no instruction stream holds).  [] for a run without the
    clock (traces/mix.py before it)."""
    clock, nclock = doc.get("clock") or [], null.get("clock") or []
    if not clock or not nclock:
        return []
    base = nclock[n["n"]]
    out = []
    for w in windows:
        own = clock[w["n"]] - base
        total = w["total"] - n["total"]
        if not w["waited"] and own and abs(total - own) / own > TOLERANCE:
            raise MixError(f"{case}: window {w['n'] + 1} totals {total} instructions, the "
                           f"clock around it {own} ({100 * (total - own) / own:+.2f}%, more "
                           f"than {100 * TOLERANCE:.0f}%)")
        out.append([total, own])
    return out


def case_mix(doc, null, syms, harness_case, case):
    """One case's mix, its empty body's taken off, against cost mode."""
    windows = window_counts(doc, syms, case)
    w, totals = pick(windows, case)
    nulls = window_counts(null, syms, case + " (its empty body)")
    n, _ = pick(nulls, case + " (empty body)")
    clocked = own_clock(doc, null, windows, n, case)
    total = w["total"] - n["total"]
    classes = {k: w["classes"][k] - n["classes"][k] for k in CLASSES}
    funcs = sub(w["functions"], n["functions"])
    cost = harness_case["median"]
    diff = (total - cost) / cost if cost else 0.0
    waited = w["waited"]
    # A call that waited, never ran without an interrupt, or made an RPC
    # (whose count moves from call to call with the connection's and the
    # server's state, an interrupt or not) is one call against cost mode's
    # median of batches: its difference is recorded, and the report gives
    # it, but it is not an error.  Its own clock (own_clock()) holds it.
    rpc = any((harness_case.get("nfs_ops_per_call") or {}).values())
    if abs(diff) > TOLERANCE and not waited and not w["interrupted"] and not rpc:
        raise MixError(f"{case}: the mix totals {total} instructions, cost mode counts "
                       f"{cost:.1f} in the same boot ({100 * diff:+.2f}%, more than "
                       f"{100 * TOLERANCE:.0f}%)")
    # Every function with its count, largest first: a difference between two
    # calls is read function by function (byte_read()).  A call that made an
    # RPC runs hundreds (the client, the server, the network stack): its
    # first RPC_FUNCTIONS are kept, the rest summed in one line.
    top = sorted(funcs.items(), key=lambda kv: (-kv[1], kv[0]))
    if (waited or w["interrupted"]) and len(top) > RPC_FUNCTIONS:
        rest = top[RPC_FUNCTIONS:]
        top = top[:RPC_FUNCTIONS] + [(f"({len(rest)} other functions)", sum(c for _, c in rest))]
    # REP runs grouped by where and what: instances, executions, sizes.
    reps = {}
    for r in w["rep"]:
        g = reps.setdefault((r["function"], r["insn"]), {
            "function": r["function"], "insn": r["insn"], "width": r["width"],
            "instances": 0, "execs": 0, "bytes": 0, "sizes": []})
        g["instances"] += 1
        g["execs"] += r["execs"]
        g["bytes"] += r["bytes"]
        if r["bytes"] not in g["sizes"]:
            g["sizes"].append(r["bytes"])
    for g in reps.values():
        g["sizes"] = sorted(g["sizes"])[:8]
    samples = harness_case.get("samples") or []
    return {"total": total, "cost_mode": cost, "diff_pct": round(100 * diff, 3),
            "cost_range": [min(samples), max(samples)] if samples else None,
            "clock": clocked,
            "waited": waited, "interrupted": w["interrupted"], "windows": [t - n["total"] for t in totals],
            "classes": classes,
            "kernel": {k: w["kernel"][k] - n["kernel"][k] for k in KERNEL_CLASSES},
            "ops": sub(w["ops"], n["ops"]),
            "rep": sorted(reps.values(), key=lambda g: -g["execs"]),
            "functions": [[f, c] for f, c in top], "functions_total": len(funcs)}


def variant_mix(vdir):
    """Every case of one variant's directory."""
    vdir = pathlib.Path(vdir)
    kallsyms = vdir / "kallsyms"
    if not kallsyms.exists():
        raise MixError(f"{vdir}: no kallsyms (not a traces/mix.py run directory?)")
    syms = Symbols(kallsyms)
    out = {}
    for hfile in sorted(vdir.glob("*.json")):
        label = hfile.stem
        harness = json.loads(hfile.read_text())
        cases = {c["name"]: c for c in harness["cases"]}
        cdir = vdir / label
        null_file = cdir / "null.json"
        if not null_file.exists():
            raise MixError(f"{label}: no windows of the empty body ({null_file})")
        null = json.loads(null_file.read_text())
        out[label] = {}
        for name, hc in cases.items():
            f = cdir / (name.replace("|", "+") + ".json")
            if not f.exists():
                raise MixError(f"{label}/{name}: the harness ran it, no windows were written ({f})")
            out[label][name] = case_mix(json.loads(f.read_text()), null, syms, hc,
                                        f"{vdir.name}/{label}/{name}")
            out[label][name]["call"] = hc.get("call")
    if not out:
        raise MixError(f"{vdir}: no configuration")
    return out


# --- the report's parts --------------------------------------------------------

# The cores the report weighs with, in its columns' order.
REPORT_CORES = ("zen5", "golden_cove", "zen2")


def load_mix(path=MIX_FILE):
    path = pathlib.Path(path)
    return json.loads(path.read_text()) if path.is_file() else None


def headline_pairs(base, series):
    """The first screen's comparisons (issue 16): (text, (variant, case),
    (variant, case)), each on ext4."""
    return [
        ("glibc fstat()", (base, "glibc.fstat"), (series, "glibc.fstat")),
        ("stat() by path", (base, "stat"), (series, "stat")),
        (f"statx(fd, \"\") against raw fstat(), {base}", (base, "fstat"), (base, "statx.fd.empty")),
        (f"statx(fd, \"\") against raw fstat(), {series}", (series, "fstat"),
         (series, "statx.fd.empty")),
        ("stat() of a 160-byte name", (base, "stat.name160"), (series, "stat.name160")),
        ("stat() of a 1024-byte name", (base, "stat.name1024"), (series, "stat.name1024")),
    ]


def _get(doc, vc, label="ext4"):
    return doc["variants"].get(vc[0], {}).get(label, {}).get(vc[1])


def _range(lo, hi):
    return f"{fmt(lo)}–{fmt(hi)}"


def _change(a, b):
    """A modeled change at the model's low end and at its high end."""
    lo, hi = (b[0] - a[0]) / a[0] * 100, (b[1] - a[1]) / a[1] * 100
    lo, hi = min(lo, hi), max(lo, hi)
    return f"{lo:+.0f}% to {hi:+.0f}%" if round(lo) != round(hi) else f"{lo:+.0f}%"


UNSEEN_SHORT = ("warm core: no cache or TLB misses, no mispredictions but the ones "
                "Debian's mitigations make by design, no memory-level parallelism")


def mitigations_sentence(model, cores):
    """Which speculation mitigations the modeled figures include, per core."""
    return ("Each core's figures include what Debian's 6.1 turns on for it by default "
            "(`mitigations` in the model, from the kernel's source; cycles added): " +
            "; ".join(f"{model['cores'][c]['short']}: {cycles.mitigation_words(model, c)}"
                      for c in cores) + ".")


def cycles_headline(r, doc=None, model=None):
    """REPORT.md's first screen: the headline comparisons in counted
    instructions and in modeled cycles on each core, with the
    init_on_alloc=0 change where a name is allocated."""
    doc = doc if doc is not None else load_mix()
    base, series = r.roles.base, r.roles.series
    if doc is None or base is None or series is None:
        return "No instruction mix (`make mix` writes analysis/reference/mix.json).\n"
    model = model or cycles.load()
    cores = [c for c in REPORT_CORES if c in model["cores"]]
    rows = []
    for text, a, b in headline_pairs(base, series):
        ma, mb = _get(doc, a), _get(doc, b)
        if not ma or not mb:
            continue
        ioa = [r.case(f"{v} [{IOA0}]", "ext4", c) for v, c in (a, b)]
        row = [text, f"{fmt(ma['total'])} → {fmt(mb['total'])}", pct(mb["total"], ma["total"]),
               pct(ioa[1]["median"], ioa[0]["median"]) if all(ioa) and ioa[0]["ret"] >= 0
               else "–"]
        for core in cores:
            wa = cycles.weigh(ma, core, model, f"{a[0]}/{a[1]}")
            wb = cycles.weigh(mb, core, model, f"{b[0]}/{b[1]}")
            row += [f"{_range(wa[0], wa[1])} → {_range(wb[0], wb[1])}", _change(wa, wb)]
        rows.append(row)
    head = ["comparison (ext4)", "instructions", "change", f"change with {IOA0}"]
    for core in cores:
        head += [f"{model['cores'][core]['short']} cycles (modeled)", "change"]
    return (f"The same calls in modeled cycles (`analysis/cycle_model.json`, {UNSEEN_SHORT}; "
            "an interval where sources disagree, the change taken at each end).  "
            "Instructions: the instruction stream of one call read from QEMU's log "
            "(`make mix`), equal to cost mode's count of the same boot.  "
            + mitigations_sentence(model, cores) + "\n\n" + md_table(head, rows))


# The first screen's core: the modeled cycles are Zen 5's (the CPU the
# study runs on), the other cores in the cycles section.
ANSWER_CORE = "zen5"


def unit_verdict(changes):
    """One line from a comparison's changes in each unit, [(unit, sign)]
    with sign -1, +1, 0 (inside the noise) or None (the model undecided):
    which units say cheaper, which dearer, which cannot tell.  Never more
    than the columns say."""
    words = {-1: "cheaper", 1: "dearer", 0: "no change beyond the noise",
             None: "undecided (the model's interval holds zero)"}
    groups = {}
    for unit, sign in changes:
        groups.setdefault(sign, []).append(unit)
    if len(groups) == 1:
        sign = next(iter(groups))
        return f"{words[sign]} in every unit" if sign else words[sign].capitalize() + \
            " in any unit"
    return "; ".join(f"{words[sg]}: {', '.join(us)}" for sg, us in
                     sorted(groups.items(), key=lambda x: {-1: 0, 1: 1, 0: 2, None: 3}[x[0]]))


def answer(r, doc=None, model=None, beyond=None):
    """REPORT.md's first screen: each headline comparison on ext4 in every
    unit the study has (counted instructions, with Debian's default and
    with init_on_alloc=0; modeled cycles on ANSWER_CORE for the whole
    call), and a verdict made of those columns only.  BEYOND(a, b, label)
    says whether two cases differ beyond the noise (report.beyond_noise)."""
    doc = doc if doc is not None else load_mix()
    base, series = r.roles.base, r.roles.series
    if doc is None or base is None or series is None:
        return "No instruction mix (`make mix` writes analysis/reference/mix.json).\n"
    model = model or cycles.load()
    core = ANSWER_CORE if ANSWER_CORE in model["cores"] else REPORT_CORES[0]
    rows = []
    pairs = headline_pairs(base, series)
    # The events' own cost (the kernel just without them against the whole
    # series), and each other base's stat() by path.
    k = sr.patch_number("events")
    before = sr.with_patches(r.roles, k - 1) if k else None
    if before:
        pairs.append((f"fstat(), the events compiled in and off ({before} → {series})",
                      (before, "fstat"), (series, "fstat")))
    for b0, (k0, k1) in sr.other_bases(r.doc).items():
        pairs.append((f"stat() by path, {b0} ({k0} → {k1})", (k0, "stat"), (k1, "stat")))
    for text, a, b in pairs:
        ca, cb = r.case(a[0], "ext4", a[1]), r.case(b[0], "ext4", b[1])
        ma, mb = _get(doc, a), _get(doc, b)
        if not ca or not cb or not ma or not mb or ca["ret"] < 0 or cb["ret"] < 0:
            continue
        changes = []
        sign = (1 if cb["median"] > ca["median"] else -1) if beyond(ca, cb, "ext4") else 0
        changes.append(("instructions", sign))
        ioa = [r.case(f"{v} [{IOA0}]", "ext4", c) for v, c in (a, b)]
        ioa_text = "–"
        if all(ioa) and ioa[0]["ret"] >= 0:
            ioa_text = pct(ioa[1]["median"], ioa[0]["median"])
            sign = ((1 if ioa[1]["median"] > ioa[0]["median"] else -1)
                    if beyond(ioa[0], ioa[1], "ext4") else 0)
            changes.append((f"instructions with {IOA0}", sign))
        wa = cycles.weigh(ma, core, model, f"{a[0]}/{a[1]}", base=cycles.base_of(a[0]))
        wb = cycles.weigh(mb, core, model, f"{b[0]}/{b[1]}", base=cycles.base_of(b[0]))
        ends = ((wb[0] - wa[0]) / wa[0], (wb[1] - wa[1]) / wa[1])
        changes.append((f"{model['cores'][core]['short']} cycles (modeled)",
                        -1 if max(ends) < 0 else 1 if min(ends) > 0 else None))
        rows.append([text, f"{fmt(ca['median'])} → {fmt(cb['median'])}",
                     pct(cb["median"], ca["median"]), ioa_text,
                     f"{_range(wa[0], wa[1])} → {_range(wb[0], wb[1])}", _change(wa, wb),
                     unit_verdict(changes)])
    head = ["comparison (ext4)", "instructions (icount)", "change", f"change with {IOA0}",
            f"{model['cores'][core]['short']} cycles, modeled", "change", "verdict"]
    return ("Each comparison in every unit the study has.  Instructions: cost mode's exact "
            "count, where each byte a `rep stosb` writes counts as one, so Debian's default "
            "(the 4 KiB name buffer zeroed on allocation) weighs that zeroing as thousands "
            f"of instructions; the {IOA0} column is the same change without it.  Modeled "
            f"cycles: the call's instruction mix weighed for a warm "
            f"{model['cores'][core]['short']} core (analysis/cycle_model.json, the kernel's "
            "own mitigations for that core included), an interval where sources disagree, "
            "the change taken at each end.  The verdict says which units decide the change "
            "and which cannot.\n\n" + md_table(head, rows))


def mitigation_finding(r, doc=None, model=None, core="zen2"):
    """A finding: on @core, what Debian's mitigations add to the headline
    calls, modeled from the kernel-only counts; "" without the data."""
    doc = doc if doc is not None else load_mix()
    model = model or cycles.load()
    base, series = r.roles.base, r.roles.series
    mit = cycles.mitigations_of(model, core) if core in model["cores"] else None
    if doc is None or base is None or series is None or not mit:
        return ""
    parts = []
    for text, name in (("stat() by path", "stat"), ("glibc fstat()", "glibc.fstat")):
        ma, mb = _get(doc, (base, name)), _get(doc, (series, name))
        if not ma or not mb or "kernel" not in ma or "kernel" not in mb:
            return ""
        wa, wb = (cycles.weigh(m, core, model, f"{v}/{name}") for m, v in ((ma, base), (mb, series)))
        ga, gb = (w[2].get("mitigations", [0, 0]) for w in (wa, wb))
        parts.append(f"{text} runs {ma['kernel']['ret']} kernel returns and "
                     f"{ma['kernel']['indirect']} indirect branches on {base}, "
                     f"{mb['kernel']['ret']} and {mb['kernel']['indirect']} on {series}: "
                     f"{_range(*ga)} of its {_range(wa[0], wa[1])} modeled cycles are the "
                     f"mitigations' on {base}, {_range(*gb)} of {_range(wb[0], wb[1])} on {series}")
    short = model["cores"][core]["short"]
    others = "; ".join(f"{model['cores'][c]['short']}: {cycles.mitigation_words(model, c)}"
                       for c in REPORT_CORES if c in model["cores"] and c != core)
    return (f"- **On {short}, Debian's 6.1 makes each kernel return a misprediction "
            f"(modeled).** SRSO's safe-RET return thunk and retpolines, chosen by the kernel's "
            f"source for that core ({cycles.mitigation_words(model, core)} cycles): "
            + "; ".join(parts) + f".  Other cores, per event: {others}.")


def call_number(doc, name):
    """The x86-64 number of the system call case NAME makes (series.syscall())."""
    return NR[syscall(sr.case_info(doc, name))]


def byte_read(r, doc=None, v1=None, model=None):
    """The read of the name's first byte, series v1 (patch 3 there:
    user_access_begin(): stac, lfence, load, clac, in line) against the
    series now (the "" patch: get_user(): a call to __get_user_1, a mask,
    stac, load, clac), each on the kernel that stops with it:
    instructions, fences, stac/clac, and modeled cycles.  fstat and
    statx(fd, NULL) read no byte: the change the rest of the series made to
    them (v1 had its events first) is the control."""
    doc = doc if doc is not None else load_mix()
    v1 = v1 if v1 is not None else load_mix(MIX_V1_FILE)
    part = None
    if doc is not None:
        part = sr.with_patches(r.roles, sr.patch_number("empty"))
        part = part if part in doc["variants"] else None
    if doc is None or v1 is None or part is None:
        return "No mix of both versions of the byte read (analysis/reference/mix-v1.json).\n"
    model = model or cycles.load()
    cores = [c for c in REPORT_CORES if c in model["cores"]]
    rows = []
    # Raw fstat() and the descriptor paths (tag fdpath) by the call each
    # makes, in bench/cases.c's order within one.
    for case in sorted(["fstat"] + sr.tagged(r.doc, "fdpath"),
                       key=lambda n: call_number(r.doc, n)):
        a, b = _get(v1, ("series3", case)), _get(doc, (part, case))
        if not a or not b:
            continue
        ops = [(m["ops"].get("lfence", 0), m["ops"].get("stac", 0) + m["ops"].get("clac", 0),
                m["classes"].get("call", 0)) for m in (a, b)]
        row = [f"`{case}`", f"{fmt(a['total'])} → {fmt(b['total'])}",
               f"{b['total'] - a['total']:+,.0f}",
               f"{ops[0][0]} → {ops[1][0]}", f"{ops[0][1]} → {ops[1][1]}",
               f"{ops[0][2]} → {ops[1][2]}"]
        for core in cores:
            # mix-v1.json keeps no kernel-only counts: both versions are
            # weighed without Debian's mitigations (the table says so).
            wa = cycles.weigh(a, core, model, f"v1/{case}", mitigations=False)
            wb = cycles.weigh(b, core, model, f"v2/{case}", mitigations=False)
            row.append(f"{_range(wa[0], wa[1])} → {_range(wb[0], wb[1])}")
        rows.append(row)
    if not rows:
        return "No case in both mixes.\n"
    head = ["case (ext4)", "instructions", "change", "lfence", "stac+clac", "calls"]
    head += [f"{model['cores'][c]['short']} cycles (modeled)" for c in cores]
    # What the descriptor paths now add to raw fstat, function by function, and
    # the same in modeled cycles: the fd-path target's mechanism.
    extra = []
    fst = _get(doc, (part, "fstat"))
    for case in ("fstatat.empty", "statx.fd.empty"):
        m = _get(doc, (part, case))
        if not fst or not m:
            continue
        fa, fb = dict(fst["functions"]), dict(m["functions"])
        diff = sorted(((fb.get(f, 0) - fa.get(f, 0), f) for f in set(fa) | set(fb)),
                      key=lambda x: -abs(x[0]))
        words = ", ".join(f"`{f}` {d:+d}" for d, f in diff if d)
        cyc = "; ".join(
            f"{model['cores'][c]['short']} "
            + _change(cycles.weigh(fst, c, model, "fstat", mitigations=False),
                      cycles.weigh(m, c, model, case, mitigations=False))
            for c in cores)
        extra.append(f"- {part} `{case}` against `fstat`: {fmt(m['total'] - fst['total'])} "
                     f"instructions more ({pct(m['total'], fst['total'])}; modeled cycles "
                     f"{cyc}), by function: {words}.")
    k = sr.patch_number("empty")
    return (f"Patch {k} reads the name's first byte.  Series v1 did it in line with "
            "`user_access_begin()` and `unsafe_get_user()` (its patch 3, after its events); "
            "the series now calls `get_user()`, as upstream does.  Each on the kernel that "
            "stops with it (v1: series3 of analysis/reference/mix-v1.json; now: "
            f"{part}, patches 1-{k}), one call's stream from QEMU's log, weighed by the model "
            f"({UNSEEN_SHORT}; without Debian's mitigations, which v1's mix cannot "
            "place: it keeps no kernel-only counts); `fstat` and `statx.fd.null` read no "
            "byte and show what "
            "the rest of the series changed:\n\n" + md_table(head, rows)
            + ("\n\n" + "\n".join(extra) if extra else ""))


def mix_cases(doc, label="ext4"):
    """The cases the mix ran (traces/mix.py's list), in its order."""
    names = {n: None for v in doc["variants"].values() for n in v.get(label, {})}
    return list(names)

def hostcals(hostcal_dir=HOSTCAL_DIR):
    """Every host calibration kept: [(path, document)], by file name."""
    return [(p, sr.validate(json.loads(p.read_text()), "hostcal"))
            for p in sorted(pathlib.Path(hostcal_dir).glob("*.json"))]


def _host_name(h, model, core):
    short = model["cores"][core]["short"] if core else "a"
    when = f", measured {h['date']}" if h.get("date") else ""
    return f"{short} host ({h['cpu']}, family {h['family']} model {h['model']}{when})"


def hosts_section(model, hostcal_dir=HOSTCAL_DIR):
    """Paragraphs: per calibrated host CPU, the model's parameters for its
    core against what the host measured (cycles.against_host), and the
    disagreements, stated, not fitted."""
    out = []
    for i, (p, h) in enumerate(hostcals(hostcal_dir)):
        try:
            core, hrows = cycles.against_host(h, model, path=p)
        except cycles.ModelError as e:
            out += [f"The model against `{p.name}`: {e}.", ""]
            continue
        rows = [[f"`{x['name']}`", x["what"], f"`{x['param']}`", _range(*x["model"]),
                 f"{x['measured']:,.1f}", f"{x['off_pct']:+.1f}%",
                 ("yes" if x["agrees"] else "**no**") + (" (fitted)" if x["fitted"] else "")]
                for x in hrows]
        fast = [f"`{x['name']}`" for x in hrows if not x["agrees"] and x["off_pct"] < 0]
        slow = [f"`{x['name']}`" for x in hrows if not x["agrees"] and x["off_pct"] > 0]
        agree = sum(x["agrees"] for x in hrows)
        fitted = sum(x["fitted"] for x in hrows)
        short = model["cores"][core]["short"]
        out += [f"The model's {short} parameters against a "
                f"{_host_name(h, model, core)} (`make hostcal`, user space, cycles read as "
                f"plain-loop iterations; `analysis/reference/hostcal/{p.name}`): "
                f"{agree} of {len(hrows)} sequences agree, the measurement within the "
                f"model's interval widened by 25%; {fitted} of them use a parameter that "
                "cites this file" + (" (fitted: where the published figures missed a "
                                     "measurement by more than 25%, the interval was widened "
                                     "to it, the published end kept; agreement there is by "
                                     "construction)" if i == 0 else " (fitted, as above)") +
                ".", "",
                md_table(["sequence", "what", "parameter", "model (cycles)",
                          "measured (loop iterations)", "outside by", "agrees"], rows), ""]
        if fast or slow:
            out += ["Disagreeing, stated and not fitted (the modeled figures keep the "
                    "published values; the host is a virtual machine whose clock rate "
                    "varies): " + "; ".join(
                        t for t in (("ran faster than the model: " + ", ".join(fast))
                                    if fast else "",
                                    ("ran slower than the model: " + ", ".join(slow))
                                    if slow else "") if t) + ".", ""]
        shapes = cycles.mitigation_shapes(h)
        if shapes:
            z2 = cycles.mitigations_of(model, "zen2") if "zen2" in model["cores"] else None
            words = {"per_ret": "return", "per_indirect": "indirect call"}
            parts = [f"`{name}` {c:,.1f} cycles per {words[ev]}" +
                     (f" (the model's Zen 2 figure for the same event, from Zen 2's own "
                      f"return misprediction: {_range(*z2[ev]['cycles'])})" if z2 else "")
                     for name, ev, c in shapes]
            out += [f"The shapes of Debian's mitigations, timed on the {short} host against "
                    "the same calls without them (a return through a safe-RET thunk, an "
                    "indirect call through a retpoline; user-space copies, not the kernel's "
                    "thunks): " + "; ".join(parts) + ".", ""]
    return out


# A call long enough that the clock's rate shows over its rounding.
LONG_CALL = 100000


def tsc_clause(doc, clocked):
    """Why the clock reads a little more than the count on a long call:
    the TSC rate the guest calibrated against QEMU's 1 GHz of
    instructions, and the excess the windows of LONG_CALL instructions
    and more show (their median, in ppm of the call)."""
    rates = sorted(set((doc.get("tsc_mhz") or {}).values()))
    long_ = sorted(1e6 * x[3] for x in clocked if x[2] >= LONG_CALL)
    if not rates or not long_:
        return ""
    excess = long_[(len(long_) - 1) // 2]
    return (f"; on calls of {fmt(LONG_CALL)} instructions and more the clock reads "
            f"{excess:.1f} ppm more (the median), as the guest's TSC calibration predicts: "
            f"{' and '.join(f'{x:.3f}' for x in rates)} MHz against QEMU's 1 GHz of "
            f"instructions, {', '.join(f'{1e6 * (1000 / x - 1):.1f}' for x in rates)} ppm")


def section(r, doc=None, model=None, hostcal_dir=HOSTCAL_DIR):
    """The instruction mix of the headline calls by class, the REP runs
    behind the biggest class, modeled cycles, and the model against each
    host CPU calibrated."""
    doc = doc if doc is not None else load_mix()
    if doc is None:
        return "No instruction mix (`make mix` writes analysis/reference/mix.json).\n"
    model = model or cycles.load()
    variants = [v for v in r.roles.measured if v in doc["variants"]]
    out = []
    # Agreement with cost mode.
    local, rpc, inside, ranged, clocked, outside = [], [], 0, 0, [], []
    for v, configs in doc["variants"].items():
        for label, cases in configs.items():
            for name, m in cases.items():
                (rpc if m["interrupted"] or m["waited"] else local).append(abs(m["diff_pct"]))
                lo_hi = m.get("cost_range")
                if (m["interrupted"] or m["waited"]) and lo_hi:
                    ranged += 1
                    if lo_hi[0] <= m["total"] <= lo_hi[1]:
                        inside += 1
                    else:
                        near = lo_hi[0] if m["total"] < lo_hi[0] else lo_hi[1]
                        outside.append((abs(m["total"] - near) / near, f"{v} {label} {name}"))
                clocked += [(abs(t - c), abs(t - c) / c if c else 0.0, t,
                             (c - t) / t if t else 0.0)
                            for t, c in m.get("clock") or []]
    out.append("**Method.** `make mix` boots each kernel once with QEMU's monitor and a "
               "second serial line: the harness (`statx-bench --mix`) runs a case's samples, "
               "then five calls, each between two marker functions, while `traces/mix.py` "
               "has QEMU log every translation block's disassembly (`in_asm`) and every "
               "block it runs (`exec`, `nochain`), and the faults it takes (`int`).  A "
               "window's instructions, minus the empty body's, are the call's, as the kernel "
               "runs them after boot-time patching; a block that stopped part-way (a fault, "
               "an I/O rewind) counts up to where it stopped, and `rdpkru`, which QEMU's "
               "disassembler prints as two lines, counts once.  `analysis/mix.py` classes "
               "them and checks each window against the harness's clock read around that "
               "same window (cost mode's count of that one call)" + (
                   f": {fmt(len(clocked))} windows, each within "
                   f"{max(x[0] for x in clocked)} instructions and "
                   f"{100 * max(x[1] for x in clocked):.3f}% of its own" + tsc_clause(doc, clocked)
                   if clocked else "; not in this file, a run from before the harness read it") +
               f".  Against cost mode's median of batches of the same boot: local calls, "
               f"{len(local)} case × configuration × kernel pairs, the largest difference "
               f"{max(local):.2f}%.  " + (
                   f"Calls that make an RPC (nfs3.actimeo0, every window interrupted): "
                   f"{len(rpc)} pairs, within {max(rpc):.2f}% of that median" +
                   (f", {inside} of {ranged} inside the range of the batches' own samples"
                    if ranged else "") +
                   (f" (the farthest outside it, `{max(outside)[1]}`, "
                    f"{100 * max(outside)[0]:.1f}% beyond its nearer end)" if outside else "") +
                   ": one NFS call is not every other one (the connection's and the "
                   "server's state move its count by a few percent, as between boots), and "
                   "the window is exact for the call it holds." if rpc else ""))
    out.append("")
    # Mix by class on ext4.
    rows = []
    for name in mix_cases(doc):
        for v in variants:
            m = _get(doc, (v, name))
            if not m:
                continue
            c = m["classes"]
            rows.append([f"`{name}`", v, fmt(m["total"])] + [fmt(c[k]) for k in CLASSES])
    out += ["Instructions of one call on ext4, by class (the ops behind each class are in "
            "`analysis/reference/mix.json`):", "",
            md_table(["case", "kernel", "total"] + list(CLASSES), rows), ""]
    out.append("Classes: " + "; ".join(f"**{k}** {CLASS_TEXT[k]}" for k in CLASSES) +
               ".  A 1-vCPU guest's kernel turns its LOCK prefixes into DS prefixes at boot "
               "(SMP alternatives); the mix counts those as locked, as they are on a "
               "multi-core host.")
    out.append("")
    # The REP runs of the biggest contrast.
    base, series = r.roles.base, r.roles.series
    reps = []
    for v in (base, series):
        for name in ("glibc.fstat", "stat"):
            m = _get(doc, (v, name))
            if not m:
                continue
            for g in m["rep"]:
                reps.append([f"`{name}`", v, f"`{g['function']}`", f"rep {g['insn']}",
                             fmt(g["instances"]), ", ".join(fmt(s) for s in g["sizes"]),
                             fmt(g["execs"])])
    out += ["REP string instructions (each run: its bytes; counted: one per iteration "
            "plus one):", "",
            md_table(["case", "kernel", "function", "instruction", "runs", "bytes", "counted"],
                     reps), ""]
    # Modeled cycles per core.
    cores = [c for c in REPORT_CORES if c in model["cores"]]
    rows = []
    for name in mix_cases(doc):
        for v in (base, series):
            m = _get(doc, (v, name))
            if not m:
                continue
            row = [f"`{name}`", v, fmt(m["total"])]
            for core in cores:
                lo, hi, parts = cycles.weigh(m, core, model, f"{v}/{name}")
                rep = sum(parts.get(k, [0, 0])[1] for k in ("rep_stos", "rep_movs"))
                row += [_range(lo, hi), f"{rep / hi * 100:.0f}%"]
            rows.append(row)
    head = ["case", "kernel", "instructions"]
    for core in cores:
        head += [f"{model['cores'][core]['short']} cycles", "REP share (high end)"]
    out += [f"Modeled cycles on ext4 ({UNSEEN_SHORT}):", "", md_table(head, rows), ""]
    out += hosts_section(model, hostcal_dir)
    return "\n".join(out).rstrip() + "\n"


SECTION = ("mix", "Instruction mix and modeled cycles")


def brief(r):
    """REPORT.md's version: the model against each calibrated host in a
    sentence; the method and how each window agrees with cost mode's count,
    and the class, REP, cycle and host tables, go to the tables file."""
    full = section(r)
    parts = full.split("\n\n")
    keep = [p for p in parts if p.startswith("The model's ") or
            p.startswith("Disagreeing") or p.startswith("The model against")
            or p.startswith("The shapes of")]
    return "\n\n".join([x.strip() for x in keep] + [
        "How `make mix` reads each call's instructions from QEMU's log and how "
        "every window agrees with cost mode's count, every case by class, its REP "
        "runs and its modeled cycles on each core, and each host's sequences "
        "against the model: [analysis/reference/tables.md]"
        "(analysis/reference/tables.md)."]) + "\n"


def figures(r, outdir, doc=None, model=None):
    """mix.png: the headline calls' instructions by class, base against
    series; cycles.png: the change from base to series in modeled cycles
    on each core, the interval of the change (a change whose interval does
    not hold zero is one the model decides)."""
    doc = doc if doc is not None else load_mix()
    base, series = r.roles.base, r.roles.series
    if doc is None or base is None or series is None:
        return []
    model = model or cycles.load()
    plt = sr.pyplot()
    # The cases tagged mixfig: by descriptor, then by path; by the call each
    # makes, in bench/cases.c's order within one.
    def key(n):
        return "fd" not in sr.case_info(r.doc, n)["tags"], call_number(r.doc, n)
    drawn = sorted(sr.tagged(r.doc, "mixfig"), key=key)
    names = [n for n in drawn if _get(doc, (base, n)) and _get(doc, (series, n))]
    if not names:
        return []
    made = []
    fig, ax = plt.subplots(figsize=(8.6, 5.6))
    # A colour of its own per class (tab10 has ten, CLASSES more).
    colours = plt.get_cmap("tab20").colors
    labels, y = [], 0
    ys = []
    for n in names:
        for v in (base, series):
            m = _get(doc, (v, n))
            left = 0
            for k, cls in enumerate(CLASSES):
                w = m["classes"][cls]
                ax.barh(y, w, left=left, color=colours[k], label=cls if y == 0 else None,
                        height=0.8, hatch="//" if v == series else None, edgecolor="white",
                        linewidth=0.3)
                left += w
            ax.text(left, y, f" {m['total']:,}", va="center", fontsize=7)
            labels.append(f"{n} ({v})")
            ys.append(y)
            y += 1
        y += 0.6
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("instructions in one call (QEMU's exec log; equal to cost mode's count)")
    ax.set_xlim(right=ax.get_xlim()[1] * 1.08)
    ax.legend(fontsize=7, ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.12),
              frameon=False)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"Instruction mix on ext4, {base} against {series} (hatched)", fontsize=10)
    fig.tight_layout()
    made.append(sr.save_figure(fig, outdir, "mix"))

    # The paired change per core: each end of the model's interval moves
    # with the same parameters on both kernels, so the change is decided
    # where both ends agree in sign, whatever the absolute cycles.
    cores = [c for c in REPORT_CORES if c in model["cores"]]
    fig, axes = plt.subplots(1, len(cores), figsize=(3.4 * len(cores), 1.2 + 0.5 * len(names)),
                             sharey=True, squeeze=False)
    for ax, core in zip(axes[0], cores):
        for i, n in enumerate(names):
            a = cycles.weigh(_get(doc, (base, n)), core, model, f"{base}/{n}")
            b = cycles.weigh(_get(doc, (series, n)), core, model, f"{series}/{n}")
            ends = sorted(((b[0] - a[0]) / a[0] * 100, (b[1] - a[1]) / a[1] * 100))
            decided = ends[1] < 0 or ends[0] > 0
            ax.barh(i, max(ends[1] - ends[0], 0.6), left=ends[0] if ends[1] > ends[0] else
                    ends[0] - 0.3, height=0.5, color="C2" if ends[1] < 0 else
                    "C3" if ends[0] > 0 else "0.6")
            ax.text(max(ends[1], 0), i, f" {_change(a, b)}" + ("" if decided else " (undecided)"),
                    va="center", fontsize=7)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_title(model["cores"][core]["short"], fontsize=9)
        ax.set_xlabel(f"change {base} → {series}, modeled cycles (%)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi + (hi - lo) * 0.45)
    axes[0][0].set_yticks(range(len(names)))
    axes[0][0].set_yticklabels(names, fontsize=8)
    axes[0][0].invert_yaxis()
    fig.suptitle("Change in modeled cycles of one call on ext4, at both ends of the model's "
                 "interval\n(" + UNSEEN_SHORT + ")", fontsize=8)
    fig.tight_layout()
    made.append(sr.save_figure(fig, outdir, "cycles"))
    return made


def dumps(doc):
    """The mix file's text: one line per case (a case holds every function
    it ran), so that the file stays small and a diff shows the cases that
    changed."""
    head = json.dumps({k: v for k, v in doc.items() if k != "variants"}, indent=1)
    variants = ",\n".join(
        f"  {json.dumps(v)}: {{\n" + ",\n".join(
            f"   {json.dumps(label)}: {{\n" + ",\n".join(
                f"    {json.dumps(name)}: {json.dumps(m, separators=(',', ':'), sort_keys=True)}"
                for name, m in cases.items()) + "\n   }"
            for label, cases in configs.items()) + "\n  }"
        for v, configs in doc["variants"].items())
    return head[:-2] + ',\n "variants": {\n' + variants + "\n }\n}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mixdir")
    ap.add_argument("-o", "--output")
    ap.add_argument("--keep", metavar="MIX.json",
                    help="carry over from this file the variants MIXDIR has not (each "
                         "listed; a kept variant keeps what its own run recorded)")
    args = ap.parse_args()
    root = pathlib.Path(args.mixdir)
    variants = [d for d in sorted(root.iterdir()) if (d / "kallsyms").exists()]
    if not variants:
        sys.exit(f"mix.py: {root}: no variant directory with a kallsyms")
    doc = {"schema": 1, "kind": "mix", "tolerance_pct": 100 * TOLERANCE,
           "classes": {k: CLASS_TEXT[k] for k in CLASSES}, "variants": {}}
    # A variant's exec logs are read and classed on their own, so the
    # variants share the machine's cores (make bench waits on this step).
    try:
        with concurrent.futures.ProcessPoolExecutor(min(len(variants), os.cpu_count() or 1)) as ex:
            for d, m in zip(variants, ex.map(variant_mix, variants)):
                doc["variants"][d.name] = m
    except MixError as e:
        sys.exit(f"mix.py: {e}")
    # The TSC rate each mix boot's kernel calibrated (traces/guest-mix.sh).
    tsc = {}
    for d in variants:
        m = re.search(r"Detected ([0-9.]+) MHz", (d / "tsc.txt").read_text()) \
            if (d / "tsc.txt").exists() else None
        if m:
            tsc[d.name] = float(m.group(1))
    if tsc:
        doc["tsc_mhz"] = tsc
    if args.keep:
        kept = json.loads(pathlib.Path(args.keep).read_text())
        for v, configs in kept["variants"].items():
            if v not in doc["variants"]:
                doc["variants"][v] = configs
                print(f"mix: {v}: kept from {args.keep}"
                      + ("" if all("kernel" in m for c in configs.values() for m in c.values())
                         else " (no kernel-only counts: weighed without mitigations only)"))
        doc["variants"] = dict(sorted(doc["variants"].items()))
    for v, configs in doc["variants"].items():
        for label, cases in configs.items():
            for name, m in cases.items():
                note = " (waited: cost mode's clock holds idle time)" if m["waited"] else ""
                off = max((abs(t - c) for t, c in m.get("clock") or []), default=None)
                print(f"mix: {v}/{label}/{name}: {m['total']} instructions, cost mode "
                      f"{m['cost_mode']:.1f} ({m['diff_pct']:+.2f}%)"
                      + (f", each window within {off} of its own clock" if off is not None
                         else "") + note)
    text = dumps(doc)
    if args.output:
        pathlib.Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
