#!/usr/bin/env python3
"""cycles.py - modeled cycles for an instruction mix (analysis/mix.py),
with analysis/cycle_model.json, and the model set beside each host CPU
calibrated (bench/hostcal.c's files, analysis/reference/hostcal/).

Usage: cycles.py [--model FILE] check          the model's every parameter
                                              has a source (tests)
       cycles.py [--model FILE] hostcal FILE  model against the host's timing

The model is a sum: each instruction class at its cost on a warm core
(an interval where sources disagree), a REP string instruction at its
start-up cost plus its bytes at the core's rate.  It does not see cache
or TLB misses, branch mispredictions, memory-level parallelism or
front-end stalls; every modeled figure says so (UNSEEN).

The mix is of the kernel as QEMU's -cpu max has it patched at boot: no
speculation mitigation on the path.  A core's "mitigations" are, per
kernel base ("6.1", "6.12"), what Debian's kernel of that base turns on
for it by default, per kernel return, per kernel indirect call or jump,
per system call's entry and exit (on Zen 2 each kernel return goes
through SRSO's safe-RET thunk and mispredicts by design; on Zen 5, 6.12
may put a VERW on each return to user for TSA); weigh() adds the base's
from the mix's kernel-only counts.
"""
import argparse
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
MODEL_FILE = HERE / "cycle_model.json"

# Instruction classes (analysis/mix.py) weighed per instruction at "plain".
PLAIN = ("branch", "memory", "other")
# Direct calls and returns, at "call_ret" (the hosts measured them above
# the plain interval: a return-stack push or pop each).
CALL_RET = ("call", "ret")
# An op of the special classes, as analysis/mix.py names it, to its parameter.
OP_PARAM = {
    "lfence": "lfence", "mfence": "mfence", "sfence": "sfence",
    "stac": "stac", "clac": "clac",
    "syscall": "syscall_sysret", "sysretq": None, "sysretl": None,
    "swapgs": "swapgs", "rdtsc": "rdtsc", "rdtscp": "rdtsc", "rdpid": "rdtsc",
    "iretq": "iretq", "mov": "mov_cr", "wrmsr": "msr", "rdmsr": "msr", "verw": "verw", "cpuid": "cpuid",
    "rdpkru": "rdpkru",
}
REP_PARAM = {"stos": "rep_stos", "movs": "rep_movs"}
# A core's mitigations (the model's "mitigations"), each an event the mix
# counts: kernel returns, kernel indirect branches, system calls in and out.
MITIGATION_EVENTS = ("per_ret", "per_indirect", "per_entry", "per_exit")
PARAMS = ("plain", "call_ret", "indirect", "locked", "lfence", "mfence", "sfence", "stac", "clac",
          "syscall_sysret", "swapgs", "rdtsc", "iretq", "mov_cr", "msr", "verw", "cpuid",
          "rdpkru", "rep_stos", "rep_movs")
# The kernel bases a core's mitigations are given for (vm/variants.sh bases).
BASES = ("6.1", "6.12")


class ModelError(Exception):
    """A model or a mix this cannot weigh, named."""


def load(path=MODEL_FILE):
    model = json.loads(pathlib.Path(path).read_text())
    validate(model)
    return model


def _interval(v, what):
    if (not isinstance(v, list) or len(v) != 2 or not all(isinstance(x, (int, float)) for x in v)
            or v[0] < 0 or v[0] > v[1]):
        raise ModelError(f"{what}: want [low, high] with 0 <= low <= high, not {v!r}")


def validate(model):
    """Every core has every parameter; every parameter an interval and a
    source the model lists, with the place in it."""
    if model.get("kind") != "cycle_model":
        raise ModelError("not a cycle model (kind)")
    sources = model.get("sources", {})
    for key, s in sources.items():
        if not s.get("title") or not s.get("url"):
            raise ModelError(f"source {key}: wants a title and a url")
    if not model.get("unseen"):
        raise ModelError("the model must say what it cannot see (unseen)")
    cores = model.get("cores", {})
    if len(cores) < 2:
        raise ModelError("at least two cores (an AMD and an Intel one)")
    for core, c in cores.items():
        params = c.get("params", {})
        missing = [p for p in PARAMS if p not in params]
        if missing:
            raise ModelError(f"{core}: no parameter {', '.join(missing)}")
        for name, p in params.items():
            what = f"{core}.{name}"
            if name.startswith("rep_"):
                _interval(p.get("startup"), what + ".startup")
                _interval(p.get("bytes_per_cycle"), what + ".bytes_per_cycle")
                if p["bytes_per_cycle"][0] <= 0:
                    raise ModelError(f"{what}: bytes per cycle must be above 0")
            else:
                _interval(p.get("cycles"), what + ".cycles")
            _sources(p, what, sources)
        bases = c.get("mitigations")
        if bases is None:
            continue
        if not isinstance(bases, dict) or sorted(bases) != sorted(BASES):
            raise ModelError(f"{core}.mitigations: want one entry per kernel base "
                             f"({', '.join(BASES)}), not {sorted(bases or {})}")
        for base, mit in bases.items():
            if not mit.get("kernel") or not mit.get("chosen"):
                raise ModelError(f"{core}.mitigations.{base}: say which kernel (kernel) and "
                                 "what it chooses (chosen)")
            for ev in MITIGATION_EVENTS:
                e = mit.get(ev)
                what = f"{core}.mitigations.{base}.{ev}"
                if not isinstance(e, dict):
                    raise ModelError(f"{what}: missing")
                _interval(e.get("cycles"), what + ".cycles")
                if not isinstance(e.get("insns"), int) or e["insns"] < 0 or not e.get("what"):
                    raise ModelError(f"{what}: wants insns (an integer, 0 or more) and what")
                _sources(e, what, sources)
    return model


def mitigations_of(model, core, base="6.1"):
    """The core's mitigations on a kernel base, or None for a core the
    model gives none."""
    bases = model["cores"][core].get("mitigations")
    if bases is None:
        return None
    if base not in bases:
        raise ModelError(f"{core}: no mitigations for kernel base {base}")
    return bases[base]


def base_of(variant):
    """A variant's kernel base (vm/variants.sh list), for its mitigations."""
    import statx_results as sr
    bases = {n: b for n, _, _, b in sr.variant_list()}
    if variant not in bases:
        raise ModelError(f"{variant}: not a variant vm/variants.sh lists (no kernel base)")
    return bases[variant]


def _sources(p, what, sources):
    refs = p.get("sources")
    if not refs:
        raise ModelError(f"{what}: no source")
    for r in refs:
        if r.get("source") not in sources or not r.get("where"):
            raise ModelError(f"{what}: source {r!r} is not one the model lists, "
                             "or says not where in it")


def mitigation_words(model, core, base="6.1"):
    """What the core's mitigations on @base add, in a phrase: "none on
    this path", or each event's cycles."""
    mit = mitigations_of(model, core, base)
    names = {"per_ret": "each kernel return", "per_indirect": "each kernel indirect branch",
             "per_entry": "each system call's entry", "per_exit": "each return to user space"}
    words = [f"{names[ev]} {mit[ev]['cycles'][0]:.0f}–{mit[ev]['cycles'][1]:.0f}"
             for ev in MITIGATION_EVENTS if mit and mit[ev]["cycles"][1] > 0]
    return ", ".join(words) if words else "none on this path"


def mitigation_counts(mix, case="?"):
    """{event: count} of one call's mix: its kernel returns, kernel
    indirect calls and jumps, and system calls (each an entry and an
    exit).  Raises, naming the case, for a mix without kernel-only counts
    (analysis/mix.py before they were kept)."""
    k = mix.get("kernel")
    if k is None:
        raise ModelError(f"{case}: the mix has no kernel-only counts of returns and indirect "
                         "branches (rerun make mix)")
    sc = mix["ops"].get("syscall", 0)
    return {"per_ret": k["ret"], "per_indirect": k["indirect"], "per_entry": sc, "per_exit": sc}


def weigh(mix, core, model, case="?", mitigations=True, base="6.1"):
    """Modeled cycles of one case's mix (analysis/mix.py's) on @core:
    (low, high, parts), parts by parameter, and with @mitigations the
    core's on kernel @base (part "mitigations"; a core with none adds
    nothing).  Every instruction of the mix is weighed once, or this
    raises naming the case."""
    params = model["cores"][core]["params"]
    parts = {}

    def add(name, lo, hi):
        p = parts.setdefault(name, [0.0, 0.0])
        p[0] += lo
        p[1] += hi

    cls = mix["classes"]
    weighed = 0
    n = sum(cls[k] for k in PLAIN)
    add("plain", n * params["plain"]["cycles"][0], n * params["plain"]["cycles"][1])
    weighed += n
    n = sum(cls[k] for k in CALL_RET)
    add("call_ret", n * params["call_ret"]["cycles"][0], n * params["call_ret"]["cycles"][1])
    weighed += n
    for k in ("indirect", "locked"):
        c = params[k]["cycles"]
        add(k, cls[k] * c[0], cls[k] * c[1])
        weighed += cls[k]
    special = 0
    for op, count in mix["ops"].items():
        word = op.split()[0]
        if word in ("jmpq", "callq", "jmp", "call") or op.startswith("lock ") or "(ds:" in op \
                or word.startswith("xchg"):
            continue                      # indirect and locked: weighed above
        if word not in OP_PARAM:
            raise ModelError(f"{case}: no parameter weighs {op!r} ({count} in the mix)")
        special += count
        name = OP_PARAM[word]
        if name is None:                  # sysret: inside syscall_sysret
            continue
        c = params[name]["cycles"]
        add(name, count * c[0], count * c[1])
    if special != cls["fence"] + cls["smap"] + cls["system"]:
        raise ModelError(f"{case}: {special} fence, smap and system ops named, the classes "
                         f"count {cls['fence'] + cls['smap'] + cls['system']}")
    weighed += special
    execs = 0
    for r in mix["rep"]:
        kind = next((v for k, v in REP_PARAM.items() if r["insn"].startswith(k)), None)
        if kind is None:
            raise ModelError(f"{case}: no parameter weighs rep {r['insn']} in {r['function']}")
        p = params[kind]
        lo = r["instances"] * p["startup"][0] + r["bytes"] / p["bytes_per_cycle"][1]
        hi = r["instances"] * p["startup"][1] + r["bytes"] / p["bytes_per_cycle"][0]
        add(kind, lo, hi)
        execs += r["execs"]
    if execs != cls["rep"]:
        raise ModelError(f"{case}: REP runs hold {execs} executions, the class {cls['rep']}")
    weighed += execs
    if weighed != mix["total"]:
        raise ModelError(f"{case}: {weighed} instructions weighed of {mix['total']}")
    mit = mitigations_of(model, core, base) if mitigations else None
    if mit and any(mit[ev]["cycles"][1] > 0 for ev in MITIGATION_EVENTS):
        for ev, n in mitigation_counts(mix, case).items():
            c = mit[ev]["cycles"]
            if n and c[1] > 0:
                add("mitigations", n * c[0], n * c[1])
    lo = sum(p[0] for p in parts.values())
    hi = sum(p[1] for p in parts.values())
    return lo, hi, {k: [round(v[0], 1), round(v[1], 1)] for k, v in parts.items()}


def core_of(hostcal, model):
    """The model's core for the CPU a hostcal file was measured on, or None."""
    for name, c in model["cores"].items():
        m = c.get("cpuid", {})
        if m.get("family") == hostcal.get("family") and hostcal.get("model") in m.get("models", []):
            return name
    return None


# What each host sequence is, in the model's terms: (parameter, count,
# bytes) parts; bench/hostcal.c's loop_iters are close to cycles.
def sequence_parts(seq):
    name = seq["name"]
    if name.startswith("rep_stosb_"):
        return [("rep_stos", 1, seq["size"])]
    if name.startswith("rep_movsb_"):
        return [("rep_movs", 1, seq["size"])]
    if name in ("lfence", "mfence"):
        return [(name, 1, 0)]
    if name == "lock_add":
        return [("locked", 1, 0)]
    if name.startswith("loop_"):
        return [("plain", seq["icount"], 0)]
    # Calls and returns: ten of each, and the sequence's own (asm) or the
    # C loop's counter (call_ret_x10); a thunk's jmp is plain.
    if name == "call_ret_x10":
        return [("call_ret", 20, 0), ("plain", seq["icount"] - 20, 0)]
    if name == "asm_call_ret_x10":
        return [("call_ret", seq["icount"], 0)]
    if name == "ret_thunk_x10":
        return [("call_ret", 22, 0), ("plain", seq["icount"] - 22, 0)]
    if name == "indirect_x10":
        return [("indirect", 10, 0), ("call_ret", 12, 0), ("plain", seq["icount"] - 22, 0)]
    # dropret_x10 and retpoline_x10: the shapes of Zen 2's mitigations,
    # which the model weighs with Zen 2's costs (mitigations), not with the
    # host's core's parameters: set beside them by mitigation_shapes().
    return None


# The host sequences that time a mitigation's shape, against the sequence
# without it: (sequence, its base, the event, calls per sequence).
SHAPES = (("dropret_x10", "asm_call_ret_x10", "per_ret", 10),
          ("retpoline_x10", "indirect_x10", "per_indirect", 10))


def mitigation_shapes(hostcal):
    """[(sequence, event, cycles per event)]: what each mitigation shape
    adds per event on the host (plain-loop iterations), for the shapes the
    host file has."""
    seqs = {s["name"]: s for s in hostcal["sequences"]}
    return [(name, ev, (seqs[name]["loop_iters"] - seqs[base]["loop_iters"]) / n)
            for name, base, ev, n in SHAPES if name in seqs and base in seqs]


def against_host(hostcal, model, limit=0.25, path=None):
    """Each host sequence: the model's interval on this CPU's core, the
    measured cycles (plain-loop iterations), and whether they agree: the
    measurement inside the interval widened by @limit; "fitted" when a
    parameter it uses cites this very file (@path): its agreement is then
    by construction."""
    core = core_of(hostcal, model)
    if core is None:
        raise ModelError(f"the model has no core for family {hostcal.get('family')} "
                         f"model {hostcal.get('model')} ({hostcal.get('cpu')})")
    params = model["cores"][core]["params"]
    rows = []
    for seq in hostcal["sequences"]:
        parts = sequence_parts(seq)
        if parts is None:
            continue
        lo = hi = 0.0
        fitted = False
        for name, count, size in parts:
            p = params[name]
            fitted |= path is not None and any(
                model["sources"][r["source"]]["url"].endswith("/" + pathlib.Path(path).name)
                for r in p["sources"])
            if name.startswith("rep_"):
                lo += p["startup"][0] + size / p["bytes_per_cycle"][1]
                hi += p["startup"][1] + size / p["bytes_per_cycle"][0]
            else:
                lo += count * p["cycles"][0]
                hi += count * p["cycles"][1]
        meas = seq["loop_iters"]
        if meas < lo:
            off = meas / lo - 1
        elif meas > hi:
            off = meas / hi - 1
        else:
            off = 0.0
        rows.append({"name": seq["name"], "what": seq["what"], "param": parts[0][0],
                     "icount": seq["icount"], "model": [round(lo, 1), round(hi, 1)],
                     "measured": round(meas, 1), "off_pct": round(100 * off, 1),
                     "agrees": abs(off) <= limit, "fitted": fitted})
    return core, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(MODEL_FILE))
    sub = ap.add_subparsers(dest="what", required=True)
    sub.add_parser("check")
    h = sub.add_parser("hostcal")
    h.add_argument("file")
    args = ap.parse_args()
    try:
        model = load(args.model)
        if args.what == "check":
            n = sum(len(c["params"]) for c in model["cores"].values())
            print(f"cycle model: {len(model['cores'])} cores, {n} parameters, each with a source")
        else:
            h = json.loads(pathlib.Path(args.file).read_text())
            core, rows = against_host(h, model, path=args.file)
            for r in rows:
                print(f"{core} {r['name']:16s} model {r['model'][0]:8.1f}-{r['model'][1]:<8.1f} "
                      f"measured {r['measured']:8.1f} {r['off_pct']:+6.1f}% "
                      f"{'agrees' if r['agrees'] else 'DISAGREES'}"
                      f"{' (fitted)' if r['fitted'] else ''}")
            for name, ev, c in mitigation_shapes(h):
                print(f"{core} {name:16s} {c:.1f} cycles per {ev[4:]} on this host")
    except ModelError as e:
        sys.exit(f"cycles.py: {e}")


if __name__ == "__main__":
    main()
