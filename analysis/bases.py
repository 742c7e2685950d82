"""6.1 and 6.12: the study's base and series beside Debian 13's kernel and
the series carried to it (vm/variants.sh bases), measured in the same run.

6.12 holds upstream's own versions of the 6.1 series' patches 1-2 (the
fstatat "" check of 6.6, the statx NULL/"" fast path of 6.11; patch 3's
AT_FDCWD and wider flags are 6.13's), so its stock kernel is upstream's
design and patched-6.12 adds only the small struct filename and the
events (patches/6.12/).  Each descriptor path is
read as its ratio to raw fstat() within its own kernel: what the path
adds to the call it stands for, free of what differs between the two
kernels' entry code, LSM stack and getattr."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import compare  # noqa: E402
import cycles  # noqa: E402
import insn_diff  # noqa: E402
import mix  # noqa: E402
import name_mix  # noqa: E402
import series  # noqa: E402
import statx_results as sr  # noqa: E402
from md import IOA0, TABLES_LINK, fmt, md_table, pct  # noqa: E402

SECTION = ("bases", "6.1 and 6.12")

# The cases come by tag (bench/cases.c): fdpath, the descriptor paths read
# against raw fstat() within one kernel (series.fd_paths); bases, the calls
# by path and the names either side of struct filename's 160 bytes.

# How many functions a per-function comparison lists.
TOP = 8


def kernels(r):
    """[(base name, its base kernel, its series kernel)]: 6.1 first, then
    every other base the run has both kernels of."""
    out = []
    if r.roles.base and r.roles.series:
        out.append((sr.MAIN_BASE, r.roles.base, r.roles.series))
    out += [(b, k0, k1) for b, (k0, k1) in sr.other_bases(r.boots).items()]
    return out


def _noise(r, a, b, label):
    """Marks a change inside the regression gate's rule for the case."""
    if a is None or b is None or a["ret"] < 0 or b["ret"] < 0:
        return ""
    v = compare.judge(a, b, label, r.mode, 0.0, 0.01, compare.spreads())[2]
    return "" if v in ("regressed", "improved") else " (noise)"


def _change(r, a, b, label):
    if a is None or b is None:
        return "–"
    if a["ret"] < 0 or b["ret"] < 0:
        return f"{a.get('errno') or 'ok'} → {b.get('errno') or 'ok'}" if a["ret"] != b["ret"] \
            else "–"
    return pct(b["median"], a["median"]) + _noise(r, a, b, label)


def _val(c):
    if c is None:
        return "–"
    return fmt(c["median"]) + (f" ({c['errno']})" if c["ret"] < 0 else "")


def ratio(r, boot, name, label="ext4"):
    """A descriptor path's cost over raw fstat()'s in the same kernel."""
    a, b = r.case(boot, label, "fstat"), r.case(boot, label, name)
    if a is None or b is None or b["ret"] < 0 or not a["median"]:
        return None
    return b["median"] / a["median"]


def fd_table(r, ks, label="ext4", suffix=""):
    head = ["call (ext4)"] + [f"{k}{suffix}" for _, k0, k1 in ks for k in (k0, k1)]
    rows = []
    for name in ["fstat"] + series.fd_paths(r.doc):
        c = next((r.case(k, label, name) for _, k0, k1 in ks for k in (k0, k1)
                  if r.case(k, label, name)), None)
        if c is None:
            continue
        row = [f"`{name}` {c['call']}"]
        for _, k0, k1 in ks:
            for k in (k0, k1):
                kb = f"{k}{suffix}"
                v, q = r.case(kb, label, name), ratio(r, kb, name, label)
                if v is None:
                    row.append("–")
                elif name == "fstat":
                    row.append(fmt(v["median"]))
                elif q is None:
                    row.append(_val(v))
                else:
                    row.append(f"{fmt(v['median'])} ({(q - 1) * 100:+.1f}%)")
        rows.append(row)
    return md_table(head, rows)


def cases_table(r, ks, names, label, suffix=""):
    head = ["case"]
    for _, k0, k1 in ks:
        head += [f"{k0}{suffix}", f"{k1}{suffix}", "change"]
    rows = []
    for name in names:
        cs = [(r.case(f"{k0}{suffix}", label, name), r.case(f"{k1}{suffix}", label, name))
              for _, k0, k1 in ks]
        if not any(a or b for a, b in cs):
            continue
        row = [f"`{name}`"]
        for a, b in cs:
            row += [_val(a), _val(b), _change(r, a, b, label)]
        rows.append(row)
    return md_table(head, rows)


def _functions(m):
    return dict(map(tuple, m.get("functions") or []))


def excess(doc, kernel, case, label="ext4"):
    """{function: its instructions in CASE less those in raw fstat()}, one
    kernel's mix: what the descriptor path adds, function by function."""
    ma, mf = mix._get(doc, (kernel, case), label), mix._get(doc, (kernel, "fstat"), label)
    if not ma or not mf:
        return None
    fa, ff = _functions(ma), _functions(mf)
    return {f: fa.get(f, 0) - ff.get(f, 0) for f in set(fa) | set(ff)
            if fa.get(f, 0) != ff.get(f, 0)}


def function_diff(doc, a, b, case, label="ext4", top=TOP):
    """What CASE adds to raw fstat() in kernel a and in kernel b, function
    by function, the largest first: [(function, on a, on b)]."""
    ea, eb = excess(doc, a, case, label), excess(doc, b, case, label)
    if ea is None or eb is None:
        return []
    names = sorted(set(ea) | set(eb),
                   key=lambda f: (-max(abs(ea.get(f, 0)), abs(eb.get(f, 0))), f))
    return [(f, ea.get(f, 0), eb.get(f, 0)) for f in names[:top]]


def explain(doc, a, b, case, label="ext4"):
    """One line: what CASE adds to raw fstat() in kernel a and in kernel
    b, and the functions both kernels run where the two differ (a
    function found in one kernel only, renamed or gone, is summed)."""
    ea, eb = excess(doc, a, case, label), excess(doc, b, case, label)
    if ea is None or eb is None:
        return ""
    both = sorted((f for f in set(ea) & set(eb) if ea[f] != eb[f]),
                  key=lambda f: (-abs(ea[f] - eb[f]), f))
    oa = sum(v for f, v in ea.items() if f not in eb)
    ob = sum(v for f, v in eb.items() if f not in ea)
    return (f"`{case}` less `fstat`: {a} {sum(ea.values()):+,}, {b} {sum(eb.values()):+,}; "
            "where they differ: " +
            ", ".join(f"`{f}` {ea[f]:+,} / {eb[f]:+,}" for f in both[:TOP]) +
            f"; functions of one kernel only, net {oa:+,} / {ob:+,}.")


# How far a descriptor path's ratio to raw fstat() on our 6.1 series may
# sit from upstream's own (the other base's stock kernel) before the
# difference wants explaining instruction by instruction (issue 21).
RATIO_SLACK = 0.02


def ratio_text(r, ks, label="ext4"):
    """Each descriptor path's ratio to raw fstat() on our 6.1 series
    against upstream's design (each other base's stock kernel), and
    which of them differ by more than RATIO_SLACK."""
    parts, over = [], []
    for b, k0, _ in ks[1:]:
        for name in series.fd_paths(r.doc):
            qa, qb = ratio(r, ks[0][2], name, label), ratio(r, k0, name, label)
            if qa is None or qb is None:
                continue
            d = qa / qb - 1
            parts.append(f"`{name}` {qa:.3f} against {qb:.3f} ({d * 100:+.1f}%)")
            if abs(d) > RATIO_SLACK:
                over.append(f"`{name}` on {b}")
    if not parts:
        return ""
    return (f"Each path's cost over raw fstat()'s, our 6.1 series ({ks[0][2]}) against "
            f"upstream's design ({', '.join(k0 for _, k0, _ in ks[1:])}): " + "; ".join(parts) +
            ".  " + (f"Beyond {RATIO_SLACK:.0%}: " + ", ".join(over) + "." if over else
                     f"Each within {RATIO_SLACK:.0%} of upstream's.") +
            dispatch_text(r, ks, label))


def dispatch_text(r, ks, label="ext4"):
    """The same ratios with each kernel's own dispatch to its handler
    taken out (bench/dispatch.py, counted in that kernel; the system call
    each path makes from its record, series.syscall()): what the number
    alone costs is not fs/stat.c's."""
    d = r.doc.get("dispatch") or {}
    parts = []
    for _, k0, _ in ks[1:]:
        ka = ks[0][2]
        if ka not in d or k0 not in d:
            continue
        cost = {k: {call: d[k]["per_nr"][str(nr)]["instructions"]
                    for call, nr in series.NR.items()} for k in (ka, k0)}
        qs = []
        for name in series.fd_paths(r.doc):
            q = []
            for k in (ka, k0):
                a, b = r.case(k, label, "fstat"), r.case(k, label, name)
                if a is None or b is None or b["ret"] < 0 or not a["median"]:
                    break
                c = cost[k]
                q.append((b["median"] - (c[series.syscall(b)] - c["newfstat"])) / a["median"])
            if len(q) == 2:
                qs.append(f"`{name}` {q[0]:.3f} against {q[1]:.3f}")
        if qs:
            parts.append(
                f"  With each kernel's own dispatch to the handler taken out (bench/dispatch.py "
                f"in that kernel: newfstat, newfstatat and statx take "
                f"{', '.join(str(cost[ka][c]) for c in series.NR)} instructions on "
                f"{ka}, {', '.join(str(cost[k0][c]) for c in series.NR)} on {k0}): "
                + "; ".join(qs) + ".")
    return "".join(parts)


def gate_text(r, ks):
    """The regression gate (analysis/compare.py) from each base kernel to
    its series in this run: what regressed, and the accepted regressions
    by the reason the gate gives (analysis/targets.py GATE_ACCEPTED)."""
    parts = []
    for _, k0, k1 in ks:
        rows = compare.compare(r.doc, k0, k1, compare.tg.GATE_THRESHOLD * 100)
        if not rows:
            continue
        verdicts = [x[7] for x in rows]
        why = {}
        for v in verdicts:
            if v.startswith("accepted: "):
                key = v[len("accepted: "):].split(":")[0]
                why[key] = why.get(key, 0) + 1
        acc = sum(why.values())
        parts.append(f"{k0} → {k1}: {verdicts.count('regressed')} regressed, {acc} accepted"
                     + (" (" + "; ".join(f"{k}, {n}" for k, n in
                                         sorted(why.items(), key=lambda kv: -kv[1])) + ")"
                        if why else "")
                     + f", {verdicts.count('improved')} improved of {len(rows)}")
    if not parts:
        return ""
    return ("The regression gate on this run (`make compare`, each base kernel against its "
            "series; each base has its own accepted regressions): " + "; ".join(parts) + ".")


# Instructions an instruction-by-instruction cell lists before "… more".
SHOW = 8


def _insns(xs, total):
    if not xs:
        return "–"
    shown = "; ".join(f"`{x}`" for x in xs[:SHOW])
    return shown + (f"; … {total - SHOW} more" if total > SHOW else "")


def insn_tables(idoc):
    """Each kept comparison (analysis/insn_diff.py): per descriptor path,
    the functions where it adds something to raw fstat() on either
    kernel and the two kernels' instructions differ, with what ran on
    one kernel only."""
    out = []
    for p in (idoc or {}).get("pairs", []):
        a, b = p["a"], p["b"]
        for c in p["cases"]:
            if "excess" not in c or not c["functions"]:
                continue
            rows = [[f"`{f['function']}`", f"{fmt(f['a'])} ({f['excess_a']:+,})",
                     f"{fmt(f['b'])} ({f['excess_b']:+,})",
                     ", ".join(f"{v:+d} `{k}`" for k, v in (f.get("mnemonics") or {}).items())
                     or "same mnemonics",
                     _insns(f["only_a"], f["only_a_total"]), _insns(f["only_b"], f["only_b_total"])]
                    for f in c["functions"]]
            out += [f"`{c['case']}` on {c['config']}, instruction by instruction "
                    f"(run {idoc.get('run') or '?'}): in the functions where it differs from "
                    f"raw fstat() on either kernel, each function's instructions (and its "
                    f"excess over raw fstat()'s) on our 6.1 series ({a}) and on upstream's "
                    f"design ({b}), and the instructions that ran on one kernel only (a direct "
                    "call or jump names its target, `.` inside the function; ADDR an address "
                    "the two builds place apart):", "",
                    md_table(["function", a, b, f"by mnemonic, {a} less {b}", f"only on {a}",
                              f"only on {b}"], rows), ""]
    return out


def insn_sentence(idoc, cases=("fstatat.empty", "statx.fd.null"), top=2):
    """REPORT.md's line: for each case, the functions both kernels run
    whose counts differ most, and the instructions behind the
    difference."""
    parts = []
    for p in (idoc or {}).get("pairs", []):
        a, b = p["a"], p["b"]
        for c in p["cases"]:
            if c["case"] not in cases or "excess" not in c:
                continue
            both = sorted((f for f in c["functions"] if f["a"] and f["b"] and f["a"] != f["b"]),
                          key=lambda f: (-abs(f["a"] - f["b"]), f["function"]))
            bits = []
            for f in both[:top]:
                delta = list((f.get("mnemonics") or {}).items())
                reps = [insn_diff.rep_runs(f["only_a"]), insn_diff.rep_runs(f["only_b"])]
                bits.append(f"`{f['function']}` {f['a']} / {f['b']} (by mnemonic, {a} less "
                            f"{b}: " + ", ".join(f"{v:+d} `{k}`" for k, v in delta[:4])
                            + (", …" if len(delta) > 4 else "")
                            + (f"; {reps[0]} / {reps[1]}" if all(reps) and reps[0] != reps[1]
                               else "") + ")")
            alone = [[f"`{f['function']}` {f[k]}" for f in c["functions"]
                      if f[k] and not f[o] and f[f"excess_{k}"]] for k, o in (("a", "b"), ("b", "a"))]
            if any(alone):
                bits.append("run by one kernel only: " + " / ".join(
                    ", ".join(x) or "none" for x in alone))
            if bits:
                parts.append(f"`{c['case']}`: " + "; ".join(bits))
    if not parts:
        return ""
    return (f"Instruction by instruction (`analysis/insn_diff.py` on the mix, {a} / {b}), the "
            "functions both run whose counts differ most, and those one kernel runs alone: "
            + "; ".join(parts) + f".  Every differing instruction of each path: {TABLES_LINK}.")


def cycles_table(r, ks, doc, model, label="ext4"):
    core = "zen5" if "zen5" in model["cores"] else sorted(model["cores"])[0]
    head = ["call (ext4)"] + [k for _, k0, k1 in ks for k in (k0, k1)]
    rows = []
    for name in ["fstat"] + series.fd_paths(r.doc) + ["stat"]:
        row, any_ = [f"`{name}`"], False
        for _, k0, k1 in ks:
            for k in (k0, k1):
                m = mix._get(doc, (k, name), label)
                if not m:
                    row.append("–")
                    continue
                lo, hi, _ = cycles.weigh(m, core, model, f"{k}/{name}", base=cycles.base_of(k))
                row.append(f"{fmt(m['total'])}: {fmt(lo)}–{fmt(hi)}")
                any_ = True
        if any_:
            rows.append(row)
    return core, md_table(head, rows)


def name_pairs(r, ks):
    """(before, after, title): struct filename's own change on 6.1 (its
    kernel against the one just without it), and each other base's series
    against its base."""
    out = []
    fn = sr.patch_number("filename")
    k0, k1 = sr.with_patches(r.roles, fn - 1), sr.with_patches(r.roles, fn)
    if k0 and k1:
        out.append((k0, k1, f"{sr.MAIN_BASE}, patch {fn} ({k0} → {k1})"))
    out += [(k0, k1, f"{b}, {k0} → {k1}") for b, k0, k1 in ks[1:]]
    return out


def edge_text(r, ks, names=None):
    """What a name one byte past the small object costs with the zeroing
    off, on each base: the second object's allocation, free and the move
    of the bytes already copied, which any design that starts small and
    grows pays; and how many traced names reach it."""
    names = names if names is not None else name_mix.load()
    parts = []
    for a, b, title in name_pairs(r, ks):
        d = []
        for n in ("stat.name159", "stat.name160"):
            x, y = (r.case(f"{k} [{IOA0}]", "ext4", n) for k in (a, b))
            if x is None or y is None or x["ret"] < 0 or y["ret"] < 0:
                break
            d.append(y["median"] - x["median"])
        if len(d) == 2:
            parts.append(f"{title}: {d[0]:+,.0f} at 159 bytes, {d[1]:+,.0f} at 160")
    if not parts:
        return ""
    out = (f"With `{IOA0}` (no zeroing to save), instructions per stat(): " + "; ".join(parts) +
           ".  The step at 160 bytes is one more allocation and free and the move of the "
           f"{name_mix.INLINE + 1} bytes already copied: what any design pays that starts with "
           "a small object and reads the user string once; a larger first object moves the "
           "step but zeroes more for every shorter name.")
    if names:
        total = sum(w["names"] for w in names["workloads"])
        longer = total - sum(w["inline"] for w in names["workloads"])
        out += (f"  Of the {total:,} names the traced workloads passed, {longer:,} were "
                f"{name_mix.INLINE + 1} bytes or longer.")
    return out


def names_text(r, ks, names=None):
    return ("How long the names are that real programs pass (traces/name_lengths.bt on "
            f"{r.roles.base}, `make names`), and the series' change to stat() weighed by "
            "them: each name length's change read from the stat() cases by name length "
            "(linear between measured lengths), in instructions per name copied.\n\n"
            + name_mix.table(r, name_pairs(r, ks), names))


def zeroing(doc, ks, case="stat", label="ext4"):
    """How each kernel's stat() zeroes its name buffer, from the mix: the
    memset functions it ran and their instructions (6.1 picks the
    rep stosb memset on TCG's CPU, for ERMS; 6.12 wants FSRS for that and
    runs memset_orig instead, a loop of eight 8-byte stores per 64 bytes:
    11 instructions where rep stosb counts 64)."""
    parts = []
    for _, k0, k1 in ks:
        for k in (k0, k1):
            m = mix._get(doc, (k, case), label) if doc else None
            if not m:
                continue
            fs = {f: n for f, n in _functions(m).items() if "memset" in f}
            reps = [x for x in m.get("rep") or [] if "memset" in x["function"]]
            if not fs:
                continue
            what = ", ".join(f"`{f}` {fmt(n)}" for f, n in sorted(fs.items()))
            if reps:
                what += " (" + ", ".join(f"rep {x['insn']} over {fmt(x['bytes'])} bytes"
                                         for x in reps) + ")"
            parts.append(f"{k}: {what}")
    if not parts:
        return ""
    return (f"Where the name buffer is zeroed, `{case}` on {label}, instructions per call in the "
            "mix: " + "; ".join(parts) + ".  Cost mode weighs a rep iteration as one "
            "instruction, so a count across the two bases carries the memset each picks; a "
            "ratio within one kernel does not.")


def section(r, doc=None, model=None, names=None, insn=None):
    ks = kernels(r)
    if len(ks) < 2:
        return ("No second kernel base in these results (`make bench` boots 6.12's base "
                "and series beside 6.1's: vm/variants.sh bases).\n")
    doc = doc if doc is not None else mix.load_mix()
    out = [f"Every kernel of this section booted in the same run ({r.doc.get('run_id', '?')}), "
           f"{r.unit_text()}.  6.1: Debian 12's kernel, {ks[0][1]} and {ks[0][2]} (the study's "
           "series); " + "; ".join(f"{b}: Debian's linux-source-{b}, {k0} and {k1} "
                                   f"(patches/{b}/series)" for b, k0, k1 in ks[1:]) +
           ".  A change marked (noise) is inside the regression gate's rule for the case "
           "(analysis/compare.py).", "",
           "### Descriptor paths against raw fstat() in the same kernel", "",
           fd_table(r, ks), "", ratio_text(r, ks), "",
           f"The same with `{IOA0}`:", "", fd_table(r, ks, suffix=f" [{IOA0}]"), "",
           "### Calls by path and name lengths, each base's series against its base", "",
           cases_table(r, ks, sr.tagged(r.doc, "bases"), "ext4"), "",
           f"With `{IOA0}`:", "", cases_table(r, ks, sr.tagged(r.doc, "bases"), "ext4",
                                               suffix=f" [{IOA0}]"), "",
           "### Every ext4 case on the four kernels", "",
           cases_table(r, ks, [x["name"] for x in (sr.config(r.doc, ks[0][1], "ext4") or
                                                   {"cases": []})["cases"]], "ext4"), "",
           "### How long names are", "", names_text(r, ks, names), "",
           edge_text(r, ks, names), ""]
    if doc is not None:
        model = model or cycles.load()
        core, table = cycles_table(r, ks, doc, model)
        out += ["### The instruction mix: counted and modeled cycles", "",
                f"One call's instructions (QEMU's log, `make mix`) and {core} cycles modeled "
                f"from its mix (`analysis/cycle_model.json`, {mix.UNSEEN_SHORT}), each kernel "
                "with what its own base's Debian kernel turns on for that core: " +
                "; ".join(f"{b}: {cycles.mitigation_words(model, core, b)}"
                          for b in dict.fromkeys(cycles.base_of(k) for _, k0, k1 in ks
                                                 for k in (k0, k1))) +
                " (the model's `mitigations`, with what decides each).", "",
                table, "", zeroing(doc, ks), ""]
        pairs = [(ks[0][2], k0) for _, k0, _ in ks[1:]]
        # The raw paths: glibc's fstat() makes fstatat.empty's call.
        raw = [n for n in series.fd_paths(r.doc) if sr.case_info(r.doc, n)["kind"] == "raw"]
        for name in raw:
            for a, b in pairs:
                rows = function_diff(doc, a, b, name)
                if not rows:
                    continue
                ta = sum(excess(doc, a, name).values())
                tb = sum(excess(doc, b, name).values())
                out += [f"`{name}` less raw `fstat` in the same kernel, function by function "
                        f"(the largest): our 6.1 series ({a}, {ta:+,} in all) against "
                        f"upstream's design ({b}, {tb:+,}):", "",
                        md_table(["function", a, b],
                                 [[f"`{f}`", f"{x:+,}", f"{y:+,}"] for f, x, y in rows]), ""]
    idoc = insn if insn is not None else insn_diff.load()
    tables = insn_tables(idoc)
    if tables:
        out += ["### Instruction by instruction", ""] + tables
    return "\n".join(out)


def brief(r, doc=None, names=None, insn=None):
    ks = kernels(r)
    if len(ks) < 2:
        return section(r, doc, names=names)
    doc = doc if doc is not None else mix.load_mix()
    out = [f"Run {r.doc.get('run_id', '?')}, {r.unit_text()}; a descriptor path's cost with its "
           "excess over raw fstat() in its own kernel (ext4; a descriptor call repeats to the "
           "instruction from boot to boot, the gate's exact rule):", "", fd_table(r, ks), "",
           ratio_text(r, ks), "",
           "Function by function from the mix, ours against upstream's (ext4): " +
           "  ".join(explain(doc, ks[0][2], k0, n) for _, k0, _ in ks[1:]
                     for n in ("fstatat.empty", "statx.fd.null") if doc) , "",
           *[x for x in [insn_sentence(insn if insn is not None else insn_diff.load())] if x
             for x in (x, "")],
           zeroing(doc, ks), "",
           names_text(r, ks, names), "",
           "  ".join(x for x in (edge_text(r, ks, names), gate_text(r, ks)) if x), "",
           f"Calls by path and every name length on each base, init_on_alloc=0, the "
           f"instruction mix with modeled cycles and the functions behind the differences: "
           f"{TABLES_LINK}."]
    return "\n".join(out)
