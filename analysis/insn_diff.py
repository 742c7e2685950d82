#!/usr/bin/env python3
"""insn_diff.py - one call's executed instructions on two kernels, function
by function, instruction by instruction.

Usage: insn_diff.py MIXDIR [A B] [--config ext4] [--case C ...] [--run ID] [-o FILE]

MIXDIR is a traces/mix.py run's parent (bench/run.sh's RUNDIR/mix): A/
and B/ each hold kallsyms and CONFIG/CASE.json, the windows of QEMU's
exec log.  For each case, the window mix.py counts (the clean windows'
median) is read on both kernels, and every instruction is given to the
function it ran in.  A function's instructions, in the order they ran,
are compared between the kernels (difflib); the instructions one kernel
ran and the other did not are listed, with the functions one kernel
ran alone.  A descriptor path is compared in the functions where it
differs from raw fstat() on either kernel (what it adds to the call it
stands for, as analysis/bases.py reads it); raw fstat() itself whole.

An instruction is compared as the disassembler wrote it, with what moves
between two builds taken out: a direct call or jump names its target's
function (a jump inside the same function is "."), other kernel
addresses (rip-relative displacements, sign-extended immediates) are
ADDR, and a REP instruction's iterations are one line
with their count.  Stack offsets and registers stay: a different frame
or register choice is a difference between the two builds too.

The default cases are raw fstat() and the descriptor paths REPORT.md's
"6.1 and 6.12" section reads against it (analysis/bases.py): the cases
tagged fdpath in A's harness file of the configuration
(MIXDIR/A/ext4.json), in the section's order.  Without A and B: our 6.1
series against each other base's stock kernel, upstream's own design
(make report-reference keeps that in analysis/reference/insn_diff.json).
"""
import argparse
import difflib
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import mix  # noqa: E402
import series  # noqa: E402

# make report-reference's copy, which REPORT.md's 6.1 and 6.12 section reads.
FILE = HERE / "reference" / "insn_diff.json"
# How many differing instructions a function keeps per side.
KEEP = 40
TARGET = re.compile(r"^(call\w*|j\w+)\s+(0x[0-9a-f]+)$")
# A kernel address in full, a rip-relative displacement, and a negative
# 32-bit immediate or displacement that is a sign-extended kernel address
# (-0x74508fd6 is 0xffffffff8baf702a).
ADDRS = (re.compile(r"0xffff[0-9a-f]{12}"), re.compile(r"-?0x[0-9a-f]+(?=\(%rip\))"),
         re.compile(r"-0x[4-7][0-9a-f]{7}\b"))


def normalize(text, fn, syms, case):
    """TEXT as compared: a direct branch by its target's function, other
    kernel addresses as ADDR, spacing collapsed."""
    text = " ".join(text.split())
    m = TARGET.match(text)
    if m:
        target = int(m.group(2), 16)
        if target < mix.KERNEL:
            return f"{m.group(1)} (user space)"
        name = syms.name(target, case)
        return f"{m.group(1)} {'.' if name == fn else '<' + name + '>'}"
    for a in ADDRS:
        text = a.sub("ADDR", text)
    return text


def stream(doc, syms, case):
    """[(function, instruction)] of the window mix.py counts for the case,
    a REP instruction's iterations folded into one line."""
    counted = mix.window_counts(doc, syms, case)
    w, _ = mix.pick(counted, case)
    raw = doc["windows"][counted.index(w)]
    out, last_pc, reps = [], None, 0
    for i in raw["tbs"]:
        for pc, code, text in doc["tbs"][i]["insns"]:
            fn = syms.name(pc, case)
            if mix.classify(text, code) == "rep":
                if pc == last_pc:
                    reps += 1
                    out[-1] = (fn, f"{normalize(text, fn, syms, case)} (x{reps})")
                    continue
                last_pc, reps = pc, 1
            else:
                last_pc = None
            out.append((fn, normalize(text, fn, syms, case)))
    return out


def by_function(insns):
    """{function: its instructions in the order they ran}, functions in
    the order first entered."""
    out = {}
    for fn, text in insns:
        out.setdefault(fn, []).append(text)
    return out


# A REP instruction's line carries its runs (stream()): "rep stosq ... (x20)".
RUNS = re.compile(r" \(x(\d+)\)$")


def count(seq):
    """Instructions in SEQ, a REP line counting its iterations, as cost
    mode counts them."""
    n = 0
    for t in seq:
        m = RUNS.search(t)
        n += int(m.group(1)) if m else 1
    return n


def rep_runs(seq):
    """SEQ's REP instructions as "`rep stosq` x20" (runs: the last finds
    the count at zero), joined; '' without one."""
    return ", ".join(f"`{' '.join(t.split()[:2])}` x{m.group(1)}"
                     for t in seq if (m := RUNS.search(t)) and t.startswith("rep"))


def mnemonic_delta(a, b):
    """{mnemonic: how many more A ran than B}, the nonzero ones, largest
    first; a REP instruction's iterations count, so the deltas add up to
    the difference in instructions."""
    d = {}
    for seq, sign in ((a, 1), (b, -1)):
        for t in seq:
            m = RUNS.search(t)
            w = t.split()
            op = " ".join(w[:2]) if w[0] in ("rep", "repe", "repne", "lock") else w[0]
            d[op] = d.get(op, 0) + sign * (int(m.group(1)) if m else 1)
    return dict(sorted(((k, v) for k, v in d.items() if v), key=lambda kv: (-abs(kv[1]), kv[0])))


def compare(fa, fb, only=None):
    """[{function, a, b, only_a, only_b}] for every function (of ONLY, when
    given) whose instructions differ or that one kernel alone ran, in the
    order A entered them, then B's own."""
    out = []
    for fn in list(fa) + [f for f in fb if f not in fa]:
        if only is not None and fn not in only:
            continue
        a, b = fa.get(fn, []), fb.get(fn, [])
        if a == b:
            continue
        only_a, only_b = [], []
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if op in ("replace", "delete"):
                only_a += a[i1:i2]
            if op in ("replace", "insert"):
                only_b += b[j1:j2]
        out.append({"function": fn, "a": count(a), "b": count(b),
                    "mnemonics": mnemonic_delta(a, b),
                    "only_a": only_a[:KEEP], "only_b": only_b[:KEEP],
                    "only_a_total": len(only_a), "only_b_total": len(only_b)})
    return out


def excess(fs, base):
    """{function: instructions more (or fewer) than in BASE's call}."""
    out = {}
    for fn in set(fs) | set(base):
        d = count(fs.get(fn, [])) - count(base.get(fn, []))
        if d:
            out[fn] = d
    return out


def default_cases(mixdir, kernel, config="ext4"):
    """Raw fstat() and the descriptor paths read against it, in
    analysis/bases.py's order (series.fd_paths): the cases tagged fdpath
    in the harness file of KERNEL's mix of CONFIG."""
    f = pathlib.Path(mixdir) / kernel / f"{config}.json"
    if not f.is_file():
        raise mix.MixError(f"{f}: no harness file to find the descriptor paths in (--case "
                           "names them)")
    paths = series.fd_paths({"configs": [json.loads(f.read_text())]})
    if not paths:
        raise mix.MixError(f"{f}: no case tagged fdpath (a run from before the tag: --case "
                           "names them)")
    return ["fstat"] + paths


def pair(mixdir, a, b, config="ext4", cases=None, base="fstat"):
    """Each case both kernels' mix has (CASES; by default default_cases()
    of A), compared in the functions where it differs from BASE's call
    (raw fstat()) on either kernel: what the path adds, instruction by
    instruction.  BASE's own call is compared whole."""
    mixdir = pathlib.Path(mixdir)
    cases = cases or default_cases(mixdir, a, config)
    syms = {k: mix.Symbols(mixdir / k / "kallsyms") for k in (a, b)}

    def read(k, case):
        f = mixdir / k / config / f"{case.replace('|', '+')}.json"
        if not f.exists():
            return None
        return by_function(stream(json.loads(f.read_text()), syms[k], f"{k}/{config}/{case}"))
    bases = {k: read(k, base) for k in (a, b)}
    out = []
    for case in cases:
        fs = {k: read(k, case) for k in (a, b)}
        if any(v is None for v in fs.values()):
            continue
        entry = {"case": case, "config": config,
                 "total": [count(sum(fs[k].values(), [])) for k in (a, b)]}
        if case == base or any(v is None for v in bases.values()):
            entry["functions"] = compare(fs[a], fs[b])
        else:
            ex = {k: excess(fs[k], bases[k]) for k in (a, b)}
            entry["excess"] = [sum(ex[k].values()) for k in (a, b)]
            entry["functions"] = compare(fs[a], fs[b], set(ex[a]) | set(ex[b]))
            for f in entry["functions"]:
                f["excess_a"], f["excess_b"] = ex[a].get(f["function"], 0), ex[b].get(f["function"], 0)
        out.append(entry)
    return {"a": a, "b": b, "base": base, "cases": out}


def base_pairs(mixdir):
    """(our series, upstream's design) for every other kernel base whose
    stock kernel MIXDIR has beside 6.1's series (vm/variants.sh)."""
    import statx_results as sr
    have = {d.name for d in pathlib.Path(mixdir).iterdir() if (d / "kallsyms").exists()}
    vl = sr.variant_list()
    ours = next((n for n, r, _, b in vl if b == sr.MAIN_BASE and r == "series" and n in have), None)
    if ours is None:
        return []
    return [(ours, n) for n, r, _, b in vl if b != sr.MAIN_BASE and r == "base" and n in have]


def load(path=FILE):
    """The kept comparison (make report-reference), or None."""
    p = pathlib.Path(path)
    return json.loads(p.read_text()) if p.is_file() else None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mixdir")
    ap.add_argument("kernels", nargs="*", metavar="A B",
                    help="the two kernels; none: our 6.1 series against each other "
                    "base's stock kernel (base_pairs())")
    ap.add_argument("--config", default="ext4")
    ap.add_argument("--case", action="append", dest="cases")
    ap.add_argument("--run", default="", help="the run the mix is of, recorded")
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    if len(args.kernels) not in (0, 2):
        ap.error("give two kernels or none")
    pairs = [tuple(args.kernels)] if args.kernels else base_pairs(args.mixdir)
    if not pairs:
        sys.exit(f"insn_diff.py: {args.mixdir} has no mix of our series beside another "
                 "base's stock kernel")
    try:
        docs = [pair(args.mixdir, a, b, args.config, args.cases) for a, b in pairs]
    except mix.MixError as e:
        sys.exit(f"insn_diff.py: {e}")
    for d in docs:
        if not d["cases"]:
            sys.exit(f"insn_diff.py: no case both {d['a']} and {d['b']} ran in {args.mixdir}")
    doc = {"run": args.run, "pairs": docs}
    text = json.dumps(doc, indent=1) + "\n"
    if args.output:
        pathlib.Path(args.output).write_text(text)
        print("insn_diff: " + "; ".join(f"{d['a']} against {d['b']}, {len(d['cases'])} cases"
                                        for d in docs) + f" -> {args.output}")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
