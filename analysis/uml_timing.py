#!/usr/bin/python3
"""uml_timing.py - cycles measured on this CPU for the stat path's kernel
code, from bench/uml-timing.sh's boots of the statx_timing KUnit suite in
User-Mode Linux (patches/uml/), and the cycle model checked against them.

Usage: uml_timing.py DIR [-o JSON] [--markdown]
       uml_timing.py --fill PATCHES                    lead the small struct
                                                       filename patch's message
                                                       with the committed cycles
       uml_timing.py --check-boot LOG [--patch PATCH]   one boot's KTAP:
                                                       every case and sweep
                                                       ran and its line
                                                       parses

DIR is what bench/uml-timing.sh wrote: order.txt, host.txt,
boots/<n>.<config>.log and counts/<config>.txt.  JSON (default
analysis/reference/uml_timing.json) gets the result; --markdown prints
the tables.

The method (bench/uml-timing.sh runs the boots; this enforces the rest):
  - each boot's ticks become core cycles by its own add chain: 1,000
    dependent adds, one a cycle on every core we know, less the empty
    call (noop) of the same boot;
  - a boot is refused, named and counted when its cycles per tick are
    more than CPT_TOLERANCE off the run's median, or when any case's
    interquartile range is more than IQR_TOLERANCE of its median (the
    cases take turns, so the host taking the CPU away widens them all);
    more than one refused boot in six of a kernel and setting fails the
    run;
  - a case's figure is the median of its per-boot medians, its spread
    (max - min) / median over the kept boots, at most SPREAD_LIMIT, else
    the run fails naming the case;
  - the instructions of one warm call (bench/uml_count.py, gdb) less the
    empty call's give cycles per instruction of the UML build itself:
    never divided into the x86 guest's counts, which are another binary.
A failure is a line naming it, on standard error, and exit status 1,
after the JSON is written with "verdict": "fail" and the same lines
(its numbers are there to read, never to be taken as a pass).

The model (analysis/cycle_model.json) weighs an instruction of the plain
classes at an interval (0.125 to 1.0 cycles on Zen 5).  FIT, chosen
before the first run and fixed here, anchors one cost per instruction
(every class but REP strings, which keep the model's start-up and rate):
each fit case's is what its measured cycles leave after its REP strings,
over its other instructions, and the anchored interval spans those.
HELD_OUT then checks it: each held-out case's interval, its instructions
at the anchored cost and its REP strings at the model's interval, must
hold its measured cycles or miss by at most MISS_LIMIT; more than one
miss fails.

The sweeps (patches/uml/6.1/0002): after its timed rounds each boot
moves one written object of a case (getattr's struct kstat, the buffer
memset_orig() clears) through every 8-byte position of a page and times
the case at each, the best of 7 batches.  Per kernel and setting this
gives the page's range in cycles, the boots whose own position was slow
(over SWEEP_SLOW above the page's best) beside the boots whose timed
median stood out (over SPREAD_LIMIT above the median of per-boot
medians), and which object the slow positions keep their distance to
from boot to boot (the page itself, the file's inode, or the timing
loop's stack frame): the mean Jaccard similarity of the boots' slow
sets, each shifted by that object's offset.  They are an experiment on
the method's outliers, not figures of the call: nothing is judged on
them.

What UML cannot stand for stays modeled (UML_CANNOT).
"""
import argparse
import json
import pathlib
import re
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import cycles as cy  # noqa: E402
import mix as mx  # noqa: E402

PATCH = ROOT / "patches" / "uml" / "6.1" / "0001-fs-time-the-stat-path-s-kernel-code-natively-as-User.patch"
SWEEP_PATCH = ROOT / "patches" / "uml" / "6.1" / "0002-fs-statx_timing-sweep-where-a-case-s-written-object-.patch"
OUT_FILE = HERE / "reference" / "uml_timing.json"
MIX_FILE = HERE / "reference" / "mix.json"

CPT_TOLERANCE = 0.03
IQR_TOLERANCE = 0.10
SPREAD_LIMIT = 0.05
MISS_LIMIT = 0.10
MIN_BOOTS = 5
# The add chain's adds; noop, the empty call, is subtracted from all.
ADDS = 1000
BASELINE = ("noop", "add_chain")
# Chosen before the first run, never moved after it: the fit anchors the
# model's plain cost, the held-out half checks it.  memset_erms_* are the
# REP STOSB cases: they measure rep_stos's start-up and rate instead.
FIT = ("memset_orig_192", "names_alloc", "getname_13", "getname_160", "getname_4095",
       "walk", "fstat")
HELD_OUT = ("memset_orig_4096", "getname_159", "getname_1024", "getattr", "stat_path",
            "empty_path")
REP_CASES = ("memset_erms_192", "memset_erms_4096")
# The model's core for the host's CPU (cpu family): Zen 3 (25) has no core
# of its own in the model; Zen 2's parameters stand for its call, return,
# indirect and locked costs (both are 4-wide decoders with a 6-wide
# dispatch), and the plain cost is anchored here anyway.
CORE_OF_FAMILY = {23: ("zen2", "Zen 2"), 25: ("zen2", "Zen 3, weighed with Zen 2's parameters"),
                  26: ("zen5", "Zen 5"), 6: ("golden_cove", "an Intel core, weighed as Golden Cove")}
# The x86 guest's case for the comparison by function.
X86_CASE = ("ext4", "stat")
UML_CANNOT = ("system call entry and exit, swapgs, stac/clac, fences, Debian's mitigations "
              "(retpolines, return thunks, SRSO), user copies (UML walks page tables in "
              "software), page faults, SMP (UML 6.1 is uniprocessor: rcu_read_lock and the "
              "spin locks compile to almost nothing) and the build's own differences "
              "(-mcmodel=large makes every call a movabs and an indirect call, -fno-builtin "
              "turns constant memsets into calls, no alternatives are patched)")

LINE = re.compile(r"statx_timing: case=(\S+) batch=(\d+) samples=(\d+) mticks "
                  r"min=(\d+) p10=(\d+) p25=(\d+) p50=(\d+) p75=(\d+) p90=(\d+) max=(\d+)")
QUANTS = ("min", "p10", "p25", "p50", "p75", "p90", "max")
SWEEP = re.compile(r"statx_timing: sweep=(\S+) case=(\S+) batch=(\d+) tries=(\d+) step=(\d+) "
                   r"natural=(\d+) inode=(\d+) frame=(\d+) mticks at_natural=(\d+) min=(\d+) "
                   r"p50=(\d+) max=(\d+) slowest=(\d+) slow=(\d+) bits=([0-9a-f,]+)")
SWEEP_KEYS = ("batch", "tries", "step", "natural", "inode", "frame", "at_natural", "min", "p50",
              "max", "slowest", "slow")
# A sweep's position is slow when its best batch is more than this over
# the page's best (the patch marks them so).
SWEEP_SLOW = 0.10


class TimingError(Exception):
    """Input or a result this cannot accept, in one line naming it."""


def cases_of(patch=PATCH):
    """The suite's cases in order, from the patch's statx_timing_cases[]."""
    text = pathlib.Path(patch).read_text()
    m = re.search(r"statx_timing_cases\[\] = \{\n(.*?)\n\+\};", text, re.S)
    if not m:
        raise TimingError(f"{patch}: no statx_timing_cases[] table")
    names = re.findall(r'\{ "([a-z0-9_]+)",', m.group(1))
    if not names or names[:2] != list(BASELINE):
        raise TimingError(f"{patch}: the table must open with {', '.join(BASELINE)}")
    return names


def sweeps_of(patch=SWEEP_PATCH):
    """{sweep: case} in order, from the patch's statx_timing_sweeps[]."""
    text = pathlib.Path(patch).read_text()
    m = re.search(r"statx_timing_sweeps\[\] = \{\n(.*?)\n\+\};", text, re.S)
    if not m:
        raise TimingError(f"{patch}: no statx_timing_sweeps[] table")
    return dict(re.findall(r'\{ "([a-z0-9_]+)", "([a-z0-9_]+)",', m.group(1)))


def parse_sweeps(text, sweeps, name="boot"):
    """{sweep: its fields, "slow_at": the slow positions in bytes} of one
    boot's log; every sweep must be there, once."""
    got = {}
    for m in SWEEP.finditer(text):
        s, case = m.group(1), m.group(2)
        if s in got:
            raise TimingError(f"{name}: sweep {s} printed twice")
        d = dict(zip(SWEEP_KEYS, (int(x) for x in m.groups()[2:14])))
        bits = int(m.group(15).replace(",", ""), 16)
        d["case"] = case
        d["slow_at"] = [i * d["step"] for i in range(bits.bit_length()) if bits >> i & 1]
        if len(d["slow_at"]) != d["slow"]:
            raise TimingError(f"{name}: sweep {s}: {d['slow']} slow positions but {len(d['slow_at'])} bits")
        got[s] = d
    for s, case in sweeps.items():
        if s not in got:
            raise TimingError(f"{name}: sweep {s} did not run (no statx_timing sweep line)")
        if got[s]["case"] != case:
            raise TimingError(f"{name}: sweep {s} timed {got[s]['case']}, the patch says {case}")
    extra = sorted(set(got) - set(sweeps))
    if extra:
        raise TimingError(f"{name}: sweeps the patch does not list: {', '.join(extra)}")
    return got


def parse_boot(text, cases, name="boot"):
    """{case: {quantile: mticks}} of one boot's log; every case must have
    run and passed."""
    if not re.search(r"^\s*(K?TAP version \d+)", text, re.M):
        raise TimingError(f"{name}: no KTAP output (the kernel did not run KUnit)")
    got = {}
    for m in LINE.finditer(text):
        got[m.group(1)] = dict(zip(QUANTS, (int(x) for x in m.groups()[3:])),
                               batch=int(m.group(2)), samples=int(m.group(3)))
    for c in cases:
        if c not in got:
            raise TimingError(f"{name}: case {c} did not run (no statx_timing line)")
    if not re.search(r"^\s*ok \d+ statx_timing_run\s*$", text, re.M):
        raise TimingError(f"{name}: the suite's test statx_timing_run did not pass")
    extra = sorted(set(got) - set(cases))
    if extra:
        raise TimingError(f"{name}: cases the suite does not list: {', '.join(extra)}")
    return got


def boot_cycles(q, cases):
    """One boot's cycles per tick and each case's cycles per call, or the
    reason to refuse it."""
    noop = q["noop"]["p50"]
    chain = q["add_chain"]["p50"] - noop
    if chain <= 0:
        raise TimingError("the add chain took no longer than the empty call")
    cpt = ADDS * 1000 / chain
    cyc, iqr = {}, {}
    for c in cases:
        if c in BASELINE:
            continue
        p = q[c]
        iqr[c] = (p["p75"] - p["p25"]) / p["p50"]
        cyc[c] = (p["p50"] - noop) / 1000 * cpt
    return cpt, cyc, iqr


def read_counts(path):
    """{case id: (instructions, {pc: steps})} from bench/uml_count.py."""
    out, cur = {}, None
    for line in pathlib.Path(path).read_text().splitlines():
        if not line.strip():
            continue
        if line.startswith("  "):
            a, n = line.split()
            out[cur][1][int(a, 16)] = int(n)
        else:
            i, n = line.split()
            cur = int(i)
            out[cur] = (int(n), {})
    return out


def disassemble(linux):
    """{pc: (function, bytes, text)} of a UML kernel, by objdump."""
    text = subprocess.run(["objdump", "-d", "-w", str(linux)], check=True,
                          capture_output=True, text=True).stdout
    insns, fn = {}, "?"
    head = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
    row = re.compile(r"^\s+([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")
    for line in text.splitlines():
        m = row.match(line)
        if m:
            insns[int(m.group(1), 16)] = (fn, m.group(2).strip(), m.group(3).split("#")[0].strip())
            continue
        m = head.match(line)
        if m:
            fn = m.group(1)
    return insns


def classify_uml(code, text):
    """The model's class of one UML instruction.  A call through a register
    is -mcmodel=large's way of making a direct call (movabs, then call
    *%reg): it is predicted like one and weighed as a call."""
    c = mx.classify(text, code)
    if c == "indirect" and text.startswith("call") and re.search(r"\*%r\w+$", text):
        return "call"
    return c


# objdump writes a REP string instruction without its size suffix
# ("rep stos %rax,%es:(%rdi)"): its register says the width.
REG_WIDTH = {"%rax": 8, "%eax": 4, "%ax": 2, "%al": 1}


def rep_width(text):
    """(mnemonic, bytes per iteration) of a REP string instruction in
    objdump's or QEMU's spelling."""
    op, width = mx.rep_detail(text)
    if op in mx.STRING_OPS:
        m = re.search(r"(%rax|%eax|%ax|%al)\b", text)
        width = REG_WIDTH[m.group(1)] if m else 1
        if not m and op != "movs":
            raise TimingError(f"cannot tell the width of {text!r}")
    return op, width


def uml_mix(steps, insns, case):
    """Classes, special ops, REP bytes and functions of one counted call."""
    classes = {k: 0 for k in mx.CLASSES}
    ops, fns, rep = {}, {}, []
    for pc, n in steps.items():
        if pc not in insns:
            raise TimingError(f"{case}: pc {pc:x} is not in the kernel's disassembly")
        fn, code, text = insns[pc]
        c = classify_uml(code, text)
        classes[c] += n
        fns[fn] = fns.get(fn, 0) + n
        if c in ("fence", "smap", "system"):
            ops[text.split()[0]] = ops.get(text.split()[0], 0) + n
        if c == "rep":
            op, width = rep_width(text)
            # One REP instruction at a pc is taken as one run of it (its
            # start-up once): true of every REP the counted calls execute.
            rep.append({"function": fn, "insn": op, "steps": n, "bytes": n * width})
    return classes, ops, rep, sorted(fns.items(), key=lambda kv: -kv[1])


def host_of(out_dir):
    host = {}
    p = pathlib.Path(out_dir) / "host.txt"
    if p.exists():
        for line in p.read_text().splitlines():
            k, _, v = line.partition(":")
            host[k.strip()] = v.strip()
    return host


def core_for(host, model):
    m = re.search(r"family (\d+)", host.get("cpu", ""))
    fam = int(m.group(1)) if m else None
    core, why = CORE_OF_FAMILY.get(fam, ("zen5", "an unknown CPU, weighed as Zen 5"))
    if core not in model["cores"]:
        raise TimingError(f"the model has no core {core}")
    return core, why


def others(classes, ops, rep, params):
    """(low, mid, high) cycles of what the anchored cost does not weigh:
    the REP string instructions (start-up and bytes at the model's rate)
    and any fence, SMAP or system instruction (none runs in these calls)."""
    lo = hi = 0.0
    for op, n in ops.items():
        name = cy.OP_PARAM.get(op)
        if name is None:
            raise TimingError(f"no parameter weighs {op!r} in the UML build")
        lo += n * params[name]["cycles"][0]
        hi += n * params[name]["cycles"][1]
    for r in rep:
        p = params["rep_" + r["insn"][:4]]
        lo += p["startup"][0] + r["bytes"] / p["bytes_per_cycle"][1]
        hi += p["startup"][1] + r["bytes"] / p["bytes_per_cycle"][0]
    return lo, (lo + hi) / 2, hi


# What the anchored cost weighs: every instruction but REP strings,
# fences, SMAP and system ones.  Calls and returns are in it (on this
# build each call is a movabs and a call through a register, predicted as
# a direct one): one measured cost per instruction, not a class model.
WEIGHED = cy.PLAIN + cy.CALL_RET + ("indirect", "locked")


def n_plain(classes):
    return sum(classes[k] for k in WEIGHED)


def sweep_cycles(s, q, cpt):
    """One boot's sweep in cycles a call (its best batches, less the empty
    call's best), the positions kept."""
    def cyc(v):
        return round((v - q["noop"]["min"]) / 1000 * cpt, 1)
    return {"step": s["step"], "natural": s["natural"], "inode": s["inode"], "frame": s["frame"],
            "at_natural": cyc(s["at_natural"]), "min": cyc(s["min"]), "p50": cyc(s["p50"]),
            "max": cyc(s["max"]), "slowest": s["slowest"], "slow": s["slow"],
            "natural_slow": s["natural"] in s["slow_at"], "slow_at": s["slow_at"]}


def _jaccard(sets):
    """The mean Jaccard similarity of every pair of @sets (1.0 for fewer
    than two, or all empty)."""
    pairs = [(a, b) for i, a in enumerate(sets) for b in sets[i + 1:] if a or b]
    if not pairs:
        return 1.0
    return sum(len(a & b) / len(a | b) for a, b in pairs) / len(pairs)


def sweep_summary(case, per, timed_per):
    """A kernel and setting's sweep over its kept boots: the page's range,
    each boot's own position and the case's timed cycles in that boot,
    and which object the slow positions move with from boot to boot."""
    med = statistics.median(timed_per)
    rows = []
    for s, tc in zip(per, timed_per):
        r = {k: v for k, v in s.items() if k != "slow_at"}
        r["timed"] = tc
        r["timed_outlier"] = tc > med * (1 + SPREAD_LIMIT)
        rows.append(r)
    anchors = {}
    for name, off in (("page", lambda s: 0), ("inode", lambda s: s["inode"]),
                      ("frame", lambda s: s["frame"])):
        anchors[name] = round(_jaccard([frozenset((a - off(s)) % 4096 for a in s["slow_at"])
                                        for s in per]), 3)
    return {"case": case, "boots": rows,
            "min": min(s["min"] for s in per), "max": max(s["max"] for s in per),
            "p50": statistics.median(s["p50"] for s in per),
            "slow_positions": statistics.median(s["slow"] for s in per),
            "step": per[0]["step"], "positions": 4096 // per[0]["step"],
            "natural_slow_boots": [r["boot"] for r in rows if r["natural_slow"]],
            "timed_outlier_boots": [r["boot"] for r in rows if r["timed_outlier"]],
            "anchor_similarity": anchors}


def timed(out_dir, cases, sweeps=None):
    """The boots of DIR checked, refused or kept, and each kernel and
    setting's cycles per call: (configs, order, median cycles per tick).
    With @sweeps ({sweep: case}, sweeps_of()), each boot's sweeps too."""
    out_dir = pathlib.Path(out_dir)
    order = [line.split() for line in (out_dir / "order.txt").read_text().splitlines() if line.strip()]
    if not order:
        raise TimingError(f"{out_dir}/order.txt: no boots")
    boots = []
    for n, cfg in order:
        log = out_dir / "boots" / f"{n}.{cfg}.log"
        if not log.exists():
            raise TimingError(f"boot {n} ({cfg}): no log {log}")
        q = parse_boot(log.read_text(errors="replace"), cases, f"boot {n} ({cfg})")
        cpt, cyc, iqr = boot_cycles(q, cases)
        boots.append({"boot": int(n), "config": cfg, "cpt": cpt, "cycles": cyc, "iqr": iqr, "q": q})
        if sweeps:
            sw = parse_sweeps(log.read_text(errors="replace"), sweeps, f"boot {n} ({cfg})")
            boots[-1]["sweeps"] = {s: dict(sweep_cycles(d, q, cpt), boot=int(n)) for s, d in sw.items()}
    median_cpt = statistics.median(b["cpt"] for b in boots)
    configs, failures = {}, []
    for cfg in dict.fromkeys(c for _, c in order):
        mine = [b for b in boots if b["config"] == cfg]
        kept, refused = [], []
        for b in mine:
            why = []
            off = b["cpt"] / median_cpt - 1
            if abs(off) > CPT_TOLERANCE:
                why.append(f"add chain {b['cpt']:.3f} cycles a tick, {off:+.1%} off the run's median")
            wide = [f"{c} {v:.1%}" for c, v in b["iqr"].items() if v > IQR_TOLERANCE]
            if wide:
                why.append("interquartile range over {:.0%}: {}".format(IQR_TOLERANCE, ", ".join(wide)))
            if why:
                refused.append({"boot": b["boot"], "why": "; ".join(why)})
            else:
                kept.append(b)
        if len(refused) * 6 > len(mine):
            failures.append(f"{cfg}: {len(refused)} of {len(mine)} boots refused (more than one in six): "
                            + " | ".join(f"boot {r['boot']}: {r['why']}" for r in refused))
        if len(kept) < MIN_BOOTS:
            failures.append(f"{cfg}: {len(kept)} boots kept, the method wants {MIN_BOOTS}")
            if not kept:
                raise TimingError(failures[-1])
        variant, ioa = cfg.rsplit(".ioa", 1)
        res = {"variant": variant, "init_on_alloc": int(ioa), "boots": len(mine),
               "kept": [b["boot"] for b in kept], "refused": refused,
               "cycles_per_tick": [round(b["cpt"], 4) for b in kept], "cases": {}}
        for c in cases:
            if c in BASELINE:
                continue
            per = [b["cycles"][c] for b in kept]
            med = statistics.median(per)
            spread = (max(per) - min(per)) / med
            if spread > SPREAD_LIMIT:
                failures.append(f"{cfg}: case {c} spread {spread:.1%} over {len(per)} boots "
                                f"(limit {SPREAD_LIMIT:.0%}): {', '.join(f'{x:.1f}' for x in per)}")
            res["cases"][c] = {"cycles": round(med, 1), "per_boot": [round(x, 1) for x in per],
                               "spread_pct": round(100 * spread, 2),
                               "ticks": round(statistics.median(b["q"][c]["p50"] - b["q"]["noop"]["p50"]
                                                                for b in kept) / 1000, 3)}
        for s, case in (sweeps or {}).items():
            res.setdefault("sweeps", {})[s] = sweep_summary(
                case, [b["sweeps"][s] for b in kept], [b["cycles"][case] for b in kept])
        configs[cfg] = res
    method = {"batch": boots[0]["q"]["noop"]["batch"], "samples": boots[0]["q"]["noop"]["samples"],
              "cpt_tolerance_pct": 100 * CPT_TOLERANCE, "iqr_tolerance_pct": 100 * IQR_TOLERANCE,
              "spread_limit_pct": 100 * SPREAD_LIMIT, "miss_limit_pct": 100 * MISS_LIMIT,
              "order": [f"{n} {c}" for n, c in order]}
    return configs, method, median_cpt, failures


def analyse(out_dir, patch=PATCH, model=None):
    out_dir = pathlib.Path(out_dir)
    model = model or cy.load()
    cases = cases_of(patch)
    for c in FIT + HELD_OUT + REP_CASES:
        if c not in cases:
            raise TimingError(f"case {c} (FIT, HELD_OUT or REP_CASES) is not in the suite")
    configs, method, median_cpt, failures = timed(out_dir, cases, sweeps_of())
    counted(out_dir, configs, cases, model)
    host = host_of(out_dir)
    core, why = core_for(host, model)
    doc = {"schema": 1, "kind": "uml_timing", "host": host, "method": method,
           "cycles_per_tick_median": round(median_cpt, 4),
           "uml_cannot": UML_CANNOT, "configs": configs}
    doc["fit"] = fit(configs, model, core, why)
    if doc["fit"]["verdict"] != "pass":
        failures.append(f"held-out check: {doc['fit']['misses']} misses, {doc['fit']['fails']} beyond "
                        f"{MISS_LIMIT:.0%} (at most one miss within it)")
    doc["failures"] = failures
    doc["verdict"] = "fail" if failures else "pass"
    doc["rep_stos"] = rep_stos(configs, model, core)
    doc["x86_beside"] = beside(configs)
    return doc


def counted(out_dir, configs, cases, model):
    """Each case's UML instructions, classes and functions (gdb's count)."""
    dis = {}
    for cfg, res in configs.items():
        path = out_dir / "counts" / f"{cfg}.txt"
        if not path.exists():
            raise TimingError(f"{cfg}: no instruction count {path}")
        counts = read_counts(path)
        linux = ROOT_LINUX(res["variant"])
        if linux not in dis:
            dis[linux] = disassemble(linux)
        insns = dis[linux]
        if 0 not in counts:
            raise TimingError(f"{cfg}: the count has no noop")
        base_n = counts[0][0]
        # The empty call's own instructions (the call and its return) come
        # off every case, class by class, as its time does.
        base_classes = uml_mix(counts[0][1], insns, f"{cfg} noop")[0]
        for i, c in enumerate(cases):
            if c in BASELINE:
                continue
            if i not in counts:
                raise TimingError(f"{cfg}: case {c} was not counted")
            n, steps = counts[i]
            classes, ops, rep, fns = uml_mix(steps, insns, f"{cfg} {c}")
            classes = {k: v - base_classes[k] for k, v in classes.items()}
            if min(classes.values()) < 0:
                raise TimingError(f"{cfg}: case {c} has fewer instructions of a class than the empty call")
            r = res["cases"][c]
            r["insns"] = n - base_n
            r["cpi"] = round(r["cycles"] / r["insns"], 4) if r["insns"] > 0 else None
            r["classes"] = classes
            r["ops"] = ops
            r["rep"] = rep
            r["functions"] = [[f, k] for f, k in fns[:12]]
            r["noop_insns"] = base_n


def ROOT_LINUX(variant):  # noqa: N802 (a path, as vm/uml.sh has it)
    d = subprocess.run([str(ROOT / "vm" / "uml.sh"), "--dir", variant], check=True,
                       capture_output=True, text=True).stdout.strip()
    p = pathlib.Path(d) / "linux"
    if not p.exists():
        raise TimingError(f"{variant}: no UML kernel at {p}")
    return p


def fit(configs, model, core, why):
    params = model["cores"][core]["params"]
    points = []
    for cfg, res in configs.items():
        for c in FIT:
            r = res["cases"][c]
            lo, mid, hi = others(r["classes"], r["ops"], r["rep"], params)
            points.append({"config": cfg, "case": c,
                           "plain": round((r["cycles"] - mid) / n_plain(r["classes"]), 4)})
    plain = [min(p["plain"] for p in points), max(p["plain"] for p in points)]
    held, misses, fails = [], 0, 0
    for cfg, res in configs.items():
        for c in HELD_OUT:
            r = res["cases"][c]
            lo, _, hi = others(r["classes"], r["ops"], r["rep"], params)
            npl = n_plain(r["classes"])
            mlo, mhi = plain[0] * npl + lo, plain[1] * npl + hi
            m = r["cycles"]
            if mlo <= m <= mhi:
                verdict, miss = "inside", 0.0
            else:
                miss = (mlo - m) / m if m < mlo else (m - mhi) / m
                verdict = "miss" if miss <= MISS_LIMIT else "fail"
                misses += 1
                fails += verdict == "fail"
            held.append({"config": cfg, "case": c, "measured": m, "model": [round(mlo, 1), round(mhi, 1)],
                         "width": round(mhi / mlo, 3), "verdict": verdict, "miss_pct": round(100 * miss, 1)})
    old = params["plain"]["cycles"]
    widths = {}
    for cfg, res in configs.items():
        r = res["cases"]["stat_path"]
        lo, _, hi = others(r["classes"], r["ops"], r["rep"], params)
        npl = n_plain(r["classes"])
        widths[cfg] = {"anchored": round((plain[1] * npl + hi) / (plain[0] * npl + lo), 3),
                       "model": round((old[1] * npl + hi) / (old[0] * npl + lo), 3)}
    return {"core": core, "core_is": why, "fit_cases": list(FIT), "held_out_cases": list(HELD_OUT),
            "class_fits": class_fits(configs, params),
            "model_plain": old, "plain": plain, "points": points, "held_out": held,
            "misses": misses, "fails": fails,
            "verdict": "pass" if fails == 0 and misses <= 1 else "fail",
            "stat_path_width": widths, "whole_call": whole_call(model, core, plain)}


# Finer models tried against the one cost per instruction: a cost per
# group of classes, fitted by non-negative least squares on the fit half;
# the interval is the fit half's measured/fitted ratios around the fit.
CLASS_GROUPS = ((("memory",), ("branch", "other"), ("call", "ret", "indirect", "locked")),
                (("memory",), ("branch",), ("other",), ("call", "ret", "indirect", "locked")))


def class_fits(configs, params):
    import numpy as np
    from scipy.optimize import nnls
    out = []
    for groups in CLASS_GROUPS:
        rows, want = [], []
        for res in configs.values():
            for c in FIT:
                r = res["cases"][c]
                rows.append([sum(r["classes"][k] for k in g) for g in groups])
                want.append(r["cycles"] - others(r["classes"], r["ops"], r["rep"], params)[1])
        a, b = np.array(rows, float), np.array(want, float)
        x, _ = nnls(a, b)
        ratio = b / (a @ x)
        out.append({"groups": ["+".join(g) for g in groups], "cost": [round(v, 4) for v in x],
                    "ratio": [round(float(ratio.min()), 3), round(float(ratio.max()), 3)],
                    "width": round(float(ratio.max() / ratio.min()), 2)})
    return out


def whole_call(model, core, plain):
    """The x86 guest's whole stat() by path (analysis/reference/mix.json),
    weighed with the model's plain cost and with the anchored one: what
    stays wide is every parameter UML cannot reach."""
    if not MIX_FILE.exists():
        return None
    doc = json.loads(MIX_FILE.read_text())
    anchored = json.loads(json.dumps(model))
    anchored["cores"][core]["params"]["plain"]["cycles"] = plain
    out = {}
    for v in ("stock", "patched", "stock-6.12", "patched-6.12"):
        m = doc["variants"].get(v, {}).get(X86_CASE[0], {}).get(X86_CASE[1])
        if not m:
            continue
        base = "6.12" if v.endswith("6.12") else "6.1"
        a = cy.weigh(m, core, model, case=v, base=base)
        b = cy.weigh(m, core, anchored, case=v, base=base)
        out[v] = {"model": [round(a[0]), round(a[1])], "model_width": round(a[1] / a[0], 2),
                  "anchored": [round(b[0]), round(b[1])], "anchored_width": round(b[1] / b[0], 2),
                  "wide_parts": {k: [round(x) for x in p] for k, p in b[2].items()
                                 if k != "plain" and p[1] - p[0] >= 0.05 * (b[1] - b[0])}}
    return out


def rep_stos(configs, model, core):
    """REP STOSB's rate on this CPU, from the two memset_erms cases (UML
    runs it natively): the bytes between them over the cycles between
    them; what is left of the 192-byte case is its start-up with the
    call's few other instructions."""
    out = {}
    for cfg, res in configs.items():
        a, b = res["cases"]["memset_erms_192"], res["cases"]["memset_erms_4096"]
        ba = sum(r["bytes"] for r in a["rep"])
        bb = sum(r["bytes"] for r in b["rep"])
        if bb <= ba:
            continue
        rate = (bb - ba) / (b["cycles"] - a["cycles"])
        out[cfg] = {"bytes_per_cycle": round(rate, 2), "startup_and_call": round(a["cycles"] - ba / rate, 1)}
    p = model["cores"][core]["params"]["rep_stos"]
    return {"measured": out, "model": {"startup": p["startup"], "bytes_per_cycle": p["bytes_per_cycle"]}}


def beside(configs):
    """stat() by path, function by function: the UML build's instructions
    for the in-kernel part on tmpfs beside the x86 guest's on ext4."""
    if not MIX_FILE.exists():
        return None
    doc = json.loads(MIX_FILE.read_text())
    out = {}
    for v in ("stock", "patched"):
        cfg = f"{v}.ioa1"
        m = doc["variants"].get(v, {}).get(X86_CASE[0], {}).get(X86_CASE[1])
        if not m or cfg not in configs:
            continue
        x86 = dict(m.get("functions", []))
        uml = dict(configs[cfg]["cases"]["stat_path"]["functions"])
        names = list(dict.fromkeys([f for f, _ in configs[cfg]["cases"]["stat_path"]["functions"]]))
        out[v] = [[f, uml.get(f, 0), x86.get(f)] for f in names]
    return out


def markdown(doc):
    rows = []
    cfgs = list(doc["configs"])
    head = "| case | " + " | ".join(cfgs) + " |"
    rows += [head, "|---|" + "---:|" * len(cfgs)]
    first = doc["configs"][cfgs[0]]["cases"]
    for c in first:
        cells = []
        for cfg in cfgs:
            r = doc["configs"][cfg]["cases"][c]
            cells.append(f"{r['cycles']:,.0f} ±{r['spread_pct']:.1f}% ({r['insns']:,} insns)")
        rows.append(f"| {c} | " + " | ".join(cells) + " |")
    f = doc["fit"]
    rows += ["", f"Cost per instruction anchored on {', '.join(f['fit_cases'])}: "
             f"{f['plain'][0]:.3f}–{f['plain'][1]:.3f} cycles (model {f['model_plain'][0]}–{f['model_plain'][1]}, "
             f"core {f['core']}: {f['core_is']}).", "",
             "| held out | config | measured | model | verdict |", "|---|---|---:|---|---|"]
    for h in f["held_out"]:
        rows.append(f"| {h['case']} | {h['config']} | {h['measured']:,.0f} | "
                    f"{h['model'][0]:,.0f}–{h['model'][1]:,.0f} | {h['verdict']} {h['miss_pct']}% |")
    return "\n".join(rows)


# The in-kernel parts REPORT.md sets beside the guests' counts: (what,
# case of the stock kernel, case of the series).  glibc's fstat() is
# vfs_statx() of "" on stock and the descriptor's own path in the series.
PAIRS = (("stat() by path, less its user copies", "stat_path", "stat_path"),
         ("glibc fstat(): \"\" with AT_EMPTY_PATH", "empty_path", "fstat"),
         ("statx(fd, \"\") in the series", None, "empty_path"),
         ("a 160-byte name: getname_kernel() and putname()", "getname_160", "getname_160"),
         ("a 1024-byte name", "getname_1024", "getname_1024"),
         ("the name's allocation and free alone", "names_alloc", "names_alloc"))


def erms_swap(doc, stock="stock", series="patched"):
    """6.1 zeroes with memset_erms (rep stosb) on a CPU with ERMS, UML with
    memset_orig: stat() by path at init_on_alloc=1 with each side's
    zeroing swapped for the rep stosb measured in the same run (stock's
    4 KiB names_cache object, the series' 192-byte one).  An estimate
    from measured parts, not a measurement: (stock, series, change)."""
    try:
        a = doc["configs"][f"{stock}.ioa1"]["cases"]
        b = doc["configs"][f"{series}.ioa1"]["cases"]
    except KeyError:
        return None
    x = a["stat_path"]["cycles"] - a["memset_orig_4096"]["cycles"] + a["memset_erms_4096"]["cycles"]
    y = b["stat_path"]["cycles"] - b["memset_orig_192"]["cycles"] + b["memset_erms_192"]["cycles"]
    return x, y, 100 * (y - x) / x


def _cell(r):
    return f"{r['cycles']:,.0f} ±{r['spread_pct']:.1f}%"


def _erms_sentence(doc):
    e = erms_swap(doc)
    if not e:
        return ""
    return (f"6.1 runs `memset_erms` on this CPU where UML runs `memset_orig`: with each side's "
            f"zeroing swapped for the `rep stosb` measured here, 6.1's stat() by path would be "
            f"{e[0]:,.0f} → {e[1]:,.0f} cycles ({e[2]:+.1f}%), an estimate from measured parts. ")


def _widths(f):
    """How wide the anchored intervals are: the in-kernel stat() by path,
    and the guest's whole call with what keeps it wide."""
    w = f["stat_path_width"]
    lo, hi = min(v["anchored"] for v in w.values()), max(v["anchored"] for v in w.values())
    out = (f"The in-kernel stat() by path, weighed with that cost: an interval {lo:.2f}–{hi:.2f}× wide "
           f"(with the model's plain cost, {min(v['model'] for v in w.values()):.1f}–"
           f"{max(v['model'] for v in w.values()):.1f}×; a cost per group of classes fitted instead "
           "leaves the fit half itself " + ", ".join(f"{k['width']}×" for k in f.get("class_fits", []))
           + " wide: the cost of an instruction here depends on the function, not on its class). ")
    wc = (f.get("whole_call") or {}).get("patched")
    if wc:
        out += (f"The guest's whole stat() by path on patched ({f['core']}'s parameters): "
                f"{wc['model'][0]:,}–{wc['model'][1]:,} cycles modeled, {wc['anchored'][0]:,}–"
                f"{wc['anchored'][1]:,} anchored ({wc['model_width']}× → {wc['anchored_width']}×), kept wide by "
                + ", ".join(f"{k} {v[0]:,}–{v[1]:,}" for k, v in wc["wide_parts"].items()) + ". ")
    return out


def section(doc=None):
    """REPORT.md's section: the measured cycles of the in-kernel parts,
    stock against the series, each base, with init_on_alloc 1 and 0."""
    if doc is None:
        if not OUT_FILE.exists():
            return "No UML timing run is committed (`make uml-timing`)."
        doc = json.loads(OUT_FILE.read_text())
    c = doc["configs"]
    rows = ["| in-kernel part | base | stock, cycles | series, cycles | change | "
            "init_on_alloc=0: stock → series |", "|---|---|---:|---:|---:|---:|"]
    for base, stock, series in (("6.1", "stock", "patched"), ("6.12", "stock-6.12", "patched-6.12")):
        for what, a, b in PAIRS:
            s1, p1 = c.get(f"{stock}.ioa1"), c.get(f"{series}.ioa1")
            s0, p0 = c.get(f"{stock}.ioa0"), c.get(f"{series}.ioa0")
            if not (s1 and p1 and s0 and p0):
                continue
            if a is None:
                rows.append(f"| {what} | {base} | | {_cell(p1['cases'][b])} | | "
                            f"{_cell(p0['cases'][b])} |")
                continue
            x, y = s1["cases"][a]["cycles"], p1["cases"][b]["cycles"]
            x0, y0 = s0["cases"][a]["cycles"], p0["cases"][b]["cycles"]
            rows.append(f"| {what} | {base} | {_cell(s1['cases'][a])} | {_cell(p1['cases'][b])} | "
                        f"{100 * (y - x) / x:+.1f}% | {x0:,.0f} → {y0:,.0f} ({100 * (y0 - x0) / x0:+.1f}%) |")
    f, r = doc["fit"], doc["rep_stos"]["measured"]
    rs = next(iter(r.values())) if r else None
    ms = {k: c[k]["cases"] for k in c}
    first = next(iter(ms.values()))
    n_boots = sorted({v["boots"] for v in c.values()})
    host = doc["host"].get("cpu", "?")
    fam = re.search(r"family (\d+)", host)
    zen5 = "a Zen 5" if fam and fam.group(1) == "26" else "not on a Zen 5"
    text = [f"Measured on this machine's CPU ({host}, {zen5}): the series' own kernel code run "
            "natively as User-Mode Linux (the statx_timing KUnit suite, `make uml-timing`, "
            f"{'/'.join(map(str, n_boots))} interleaved boots of each kernel and setting pinned to one CPU; "
            "the median of per-boot medians, ± the spread over the kept boots). "
            f"UML cannot stand for {UML_CANNOT}: those stay modeled.", "", *rows, "",
            f"On this CPU a 4 KiB `memset_orig` (what UML and 6.12 run here) takes "
            f"{first['memset_orig_4096']['cycles']:,.0f} cycles and `rep stosb` "
            f"{first['memset_erms_4096']['cycles']:,.0f}; at 192 bytes "
            f"{first['memset_orig_192']['cycles']:,.0f} against {first['memset_erms_192']['cycles']:,.0f}"
            + (f" (rep stosb: {rs['bytes_per_cycle']} bytes a cycle after about {rs['startup_and_call']:,.0f} "
               "cycles of start-up and call)" if rs else "") + ". "
            f"Cycles per instruction of the UML build, anchored on half the cases chosen before the run: "
            f"{f['plain'][0]:.3f}–{f['plain'][1]:.3f} (the model's plain cost: "
            f"{f['model_plain'][0]}–{f['model_plain'][1]}); the held-out half "
            f"{sum(h['verdict'] == 'inside' for h in f['held_out'])} of {len(f['held_out'])} inside, "
            f"{f['misses']} missed (at most {max([h['miss_pct'] for h in f['held_out']] + [0])}%). "
            + _erms_sentence(doc) + _widths(f) + sweep_sentence(doc) +
            f"Verdict of the run's method: **{doc['verdict']}**"
            + (f" ({len(doc['failures'])} failures, each named in `analysis/reference/uml_timing.json`)"
               if doc["failures"] else "") + "."]
    return "\n".join(text)


SWEEP_WHAT = {"getattr_stat": "vfs_getattr()'s struct kstat",
              "memset_orig_192_buf": "the 192 bytes memset_orig() clears"}


def sweep_rows(doc):
    """[(sweep, case, {config: summary})] of the run's sweeps."""
    out = {}
    for cfg, res in doc["configs"].items():
        for s, sm in (res.get("sweeps") or {}).items():
            out.setdefault(s, (sm["case"], {}))[1][cfg] = sm
    return [(s, case, per) for s, (case, per) in out.items()]


def sweep_sentence(doc):
    """REPORT's lines on the sweeps: what moving the written object does,
    whether a boot's own position foretells its outlier, and which object
    the slow positions move with."""
    rows = sweep_rows(doc)
    if not rows:
        return ""
    text = []
    split = []
    for s, case, per in rows:
        for base in ("6.1", "6.12"):
            mine = {k: v for k, v in per.items() if ("-6.12." in k) == (base == "6.12")}
            if mine:
                split.append((s, case, base, mine))
    for s, case, base, per in split:
        lo = min(p["min"] for p in per.values())
        hi = max(p["max"] for p in per.values())
        slow = statistics.median(p["slow_positions"] for p in per.values())
        pos, step = (next(iter(per.values()))[k] for k in ("positions", "step"))
        nat = sum(len(p["natural_slow_boots"]) for p in per.values())
        out = sum(len(p["timed_outlier_boots"]) for p in per.values())
        both = sum(len(set(p["natural_slow_boots"]) & set(p["timed_outlier_boots"])) for p in per.values())
        boots = sum(len(p["boots"]) for p in per.values())
        sim = {a: statistics.median(p["anchor_similarity"][a] for p in per.values())
               for a in ("page", "inode", "frame")}
        best = max(sim, key=sim.get)
        if not any(p["slow_positions"] for p in per.values()):
            where = "no position was slow in the median boot."
        elif max(sim.values()) - min(sim.values()) < 0.01:
            where = (f"the slow positions are as alike from boot to boot relative to the page as to "
                     f"the inode and the frame (similarity {sim[best]:.2f}: their page offsets did "
                     "not move between boots, so the three cannot be told apart).")
        else:
            where = (f"the slow positions keep their distance to "
                     f"{'the page' if best == 'page' else 'the ' + best} from boot to boot "
                     f"(similarity {sim[best]:.2f}; "
                     + ", ".join(f"{a} {v:.2f}" for a, v in sim.items() if a != best) + ").")
        text.append(
            f"{base}: moving {SWEEP_WHAT.get(s, s)} through the {pos} {step}-byte positions of a page: `{case}` "
            f"{lo:,.1f}–{hi:,.1f} cycles, over {SWEEP_SLOW:.0%} above the page's best at a median "
            f"{slow:g} positions; of {boots} kept boots, {nat} put it at a slow position and {out} "
            f"timed `{case}` over {SPREAD_LIMIT:.0%} above its median, {both} of them both; " + where)
    return ("Where a case's written object lies (an experiment on the single boots that stood out "
            "in the first run, `patches/uml/6.1/0002`; nothing is judged on it): "
            + " ".join(text) + " ")


def sweep_table(doc):
    """The tables file's: each sweep, kernel and setting."""
    out = []
    for s, case, per in sweep_rows(doc):
        step = next(iter(per.values()))["step"]
        out += [f"Sweep {s}: {SWEEP_WHAT.get(s, s)} through every {step}-byte position of a page, "
                f"`{case}` timed at each (the best of 7 batches of 128, cycles a call); the boots "
                "by number (order.txt); similarity: the mean Jaccard similarity of the boots' slow "
                "positions, each boot's shifted by the page offset of that object.", "",
                "| kernel, setting | page: best–worst | median | slow positions | own position slow "
                "in boots | timed outlier in boots | similarity: page / inode / frame |",
                "|---|---:|---:|---:|---|---|---|"]
        for cfg, p in per.items():
            a = p["anchor_similarity"]
            out.append(f"| {cfg} | {p['min']:,.1f}–{p['max']:,.1f} | {p['p50']:,.1f} | "
                       f"{p['slow_positions']:g} of {p['positions']} | "
                       f"{', '.join(map(str, p['natural_slow_boots'])) or 'none'} | "
                       f"{', '.join(map(str, p['timed_outlier_boots'])) or 'none'} | "
                       f"{a['page']:.2f} / {a['inode']:.2f} / {a['frame']:.2f} |")
        out.append("")
    return "\n".join(out)


# The small struct filename patch of each base, whose message leads with
# the measured cycles (--fill), and the kernels it is measured on.
FILL = (("", "stock", "patched"), ("6.12", "stock-6.12", "patched-6.12"))
FILL_PATCH = "fs-keep-struct-filename-in-a-small-object-not-a-PATH.patch"
FILL_ROWS = (("stat() by path, d1/d2/d3/file", "stat_path"),
             ("getname+putname, 13-byte name", "getname_13"),
             ("getname+putname, 159-byte name", "getname_159"),
             ("getname+putname, 160-byte name", "getname_160"),
             ("getname+putname, 1024-byte name", "getname_1024"),
             ("getname+putname, 4095-byte name", "getname_4095"))
MEASURED_INTRO = "  Cycles measured natively, the in-kernel part only (User-Mode Linux):"
MEASURED = re.compile("^" + re.escape(MEASURED_INTRO) + r"\n(?:.*\n)*?  uml-timing run [^\n]*\)\n\n",
                      re.MULTILINE)


def measured_block(doc, stock, series):
    c = doc["configs"]
    lines = [MEASURED_INTRO,
             f"  {doc['host'].get('cpu', '?')}, pinned, the median of per-boot medians",
             "  over interleaved boots, the spread across them; no syscall entry,",
             "  user copy or mitigation is in it (make uml-timing).  getname_kernel():",
             "  a user name's copy, and the second copy of a long one that this",
             "  patch saves, are not timed:",
             f"  {'':36} {'stock':>12} {'series':>12} {'change':>8}"]
    for ioa, what in ((1, "Debian's default (init_on_alloc=1)"), (0, "init_on_alloc=0")):
        a, b = c[f"{stock}.ioa{ioa}"]["cases"], c[f"{series}.ioa{ioa}"]["cases"]
        lines.append(f"  {what}:")
        for label, case in FILL_ROWS:
            x, y = a[case], b[case]
            cell = [f"{r['cycles']:.0f} +-{r['spread_pct']:.1f}%" for r in (x, y)]
            lines.append(f"    {label:34} {cell[0]:>12} {cell[1]:>12} "
                         f"{100 * (y['cycles'] - x['cycles']) / x['cycles']:+7.1f}%")
    e = erms_swap(doc, stock, series) if stock == "stock" else None
    if e:
        lines += ["  6.1 zeroes with rep stosb on a CPU with ERMS, UML with memset_orig:",
                  "  with each side's zeroing swapped for the rep stosb measured in the",
                  f"  same run, stat() by path would be {e[0]:.0f} -> {e[1]:.0f} ({e[2]:+.1f}%)."]
    lines.append(f"  (stock against the whole series; the method's verdict: {doc['verdict']};")
    lines.append(f"  uml-timing run {doc['host'].get('date', '?')})")
    return "\n".join(lines) + "\n\n"


def fill_patches(doc, root):
    """Lead each base's small struct filename message with the measured
    block: after its first paragraph, or in place of the block there."""
    done = []
    for base, stock, series in FILL:
        d = pathlib.Path(root) / base if base else pathlib.Path(root)
        for p in sorted(d.glob("0*-" + FILL_PATCH)):
            text = p.read_text()
            head, sep, rest = text.partition("\n---\n")
            block = measured_block(doc, stock, series)
            if MEASURED.search(head):
                new = MEASURED.sub(lambda m: block, head, count=1)
            else:
                hdr, _, body = head.partition("\n\n")
                first, _, after = body.partition("\n\n")
                new = hdr + "\n\n" + first + "\n\n" + block + after
            if new + sep + rest != text:
                p.write_text(new + sep + rest)
                done.append(str(p))
    return done


def full_section(doc=None):
    """The tables file's version: the section, then stat() by path function
    by function, the UML build's instructions (tmpfs, in-kernel part)
    beside the x86 guest's (ext4, the whole call), then every case."""
    if doc is None:
        if not OUT_FILE.exists():
            return section()
        doc = json.loads(OUT_FILE.read_text())
    out = [section(doc), ""]
    for v, rows in (doc.get("x86_beside") or {}).items():
        out += [f"stat() by path on {v} (init_on_alloc=1), instructions a call in the UML build's 12 busiest functions: its "
                "in-kernel part on tmpfs, counted by gdb, beside the x86 guest's whole call on ext4 "
                "(analysis/reference/mix.json); a function the other build does not run is blank "
                "(UML has no alternatives, so `memset_orig` where the guest runs `memset_erms`; "
                "the file systems' getattr differ).", "",
                "| function | UML | x86 guest |", "|---|---:|---:|"]
        out += [f"| `{f}` | {u:,} | {'' if x is None else f'{x:,}'} |" for f, u, x in rows]
        out.append("")
    out += [sweep_table(doc), markdown(doc)]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?")
    ap.add_argument("-o", default=str(OUT_FILE))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--check-boot")
    ap.add_argument("--patch", default=str(PATCH))
    ap.add_argument("--fill", metavar="DIR", help="lead the small struct filename patch of "
                    "DIR (6.1) and DIR/6.12 with the measured cycles of the committed JSON")
    a = ap.parse_args(argv)
    if a.fill:
        for p in fill_patches(json.loads(OUT_FILE.read_text()), a.fill):
            print(f"filled {p}")
        return 0
    try:
        if a.check_boot:
            cases = cases_of(a.patch)
            text = pathlib.Path(a.check_boot).read_text(errors="replace")
            q = parse_boot(text, cases, a.check_boot)
            boot_cycles(q, cases)
            sw = parse_sweeps(text, sweeps_of(), a.check_boot)
            print(f"uml_timing: {a.check_boot}: all {len(cases)} cases and {len(sw)} sweeps ran and parse")
            return 0
        if not a.dir:
            ap.error("DIR or --check-boot LOG")
        doc = analyse(a.dir, a.patch)
    except TimingError as e:
        print(f"uml_timing: {e}", file=sys.stderr)
        return 1
    pathlib.Path(a.o).write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    if a.markdown:
        print(markdown(doc))
    f = doc["fit"]
    print(f"uml_timing: {len(doc['configs'])} kernels and settings; held-out check {f['verdict']} "
          f"({f['misses']} misses, {f['fails']} beyond {MISS_LIMIT:.0%}); wrote {a.o}")
    for line in doc["failures"]:
        print(f"uml_timing: FAIL: {line}", file=sys.stderr)
    return 1 if doc["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
