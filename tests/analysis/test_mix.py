"""The instruction mix (traces/mix.py, analysis/mix.py) and the cycle
model (analysis/cycles.py): logs read as QEMU writes them, bad input named
by case, nothing dropped."""
import copy
import importlib.util
import json
import pathlib

import pytest

import cycles
import mix

ROOT = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("tmix", ROOT / "traces" / "mix.py")
tmix = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tmix)

BEGIN, END, BODY, SYS = 0x401000, 0x401010, 0x401100, 0xffffffff81000000


def tb(pc, insns, cflags="ff020200"):
    """An in_asm block and its first exec line, as QEMU 7.2 prints them."""
    lines = ["----------------", "IN: "]
    for addr, code, text in insns:
        b = code.split()
        lines.append(f"0x{addr:016x}:  {' '.join(b[:8]):<24s} {text}")
        if len(b) > 8:
            lines.append(f"0x{addr + 8:016x}:  {' '.join(b[8:])}")
    lines += ["", run(pc, cflags)]
    return lines


def run(pc, cflags="ff020200"):
    return f"Trace 0: 0x7f00 [0000000000000000/{pc:016x}/18c0c2b0/{cflags}] "


def log(windows=2, body=None):
    """A log of @windows windows around a body (by default: a call into a
    kernel block with a long instruction, a rep stosb run 3 times)."""
    out = tb(BEGIN, [(BEGIN, "90", "nop"), (BEGIN + 1, "c3", "retq")])
    body = body or [
        tb(BODY, [(BODY, "48 89 ef", "movq     %rbp, %rdi"), (BODY + 3, "ff d3", "callq    *%rbx")]),
        tb(SYS, [(SYS, "65 48 89 24 25 14 60 00 00", "movq     %rsp, %gs:0x6014"),
                 (SYS + 9, "f3 aa", "rep stosb %al, (%rdi)")]),
        tb(SYS + 9, [(SYS + 9, "f3 aa", "rep stosb %al, (%rdi)")]),
        [run(SYS + 9)], [run(SYS + 9)],
    ]
    for w in range(windows):
        if w:
            out.append(run(BEGIN))
            for b in body:
                out += [x for x in b if x.startswith("Trace")]
        else:
            for b in body:
                out += b
        out += tb(END, [(END, "90", "nop")]) if not w else [run(END)]
    return out


def test_extract_reads_windows_and_long_instructions():
    doc = tmix.Reader().extract(log(), BEGIN, END, "ext4/x")
    assert len(doc["windows"]) == 2
    totals = [sum(len(doc["tbs"][i]["insns"]) for i in w["tbs"]) for w in doc["windows"]]
    # movq; callq | movq (9 bytes: a continuation line); rep | rep x3
    assert totals == [2 + 2 + 3, 2 + 2 + 3]
    long = [i for t in doc["tbs"] for i in t["insns"] if "gs:0x6014" in i[2]]
    assert long[0][1].split()[-1] == "00"


def test_missing_disassembly_names_the_case():
    lines = log(1)
    lines.insert(lines.index(run(END)), run(0x999000))
    with pytest.raises(tmix.MixError, match="ext4/stat.*0x999000"):
        tmix.Reader().extract(lines, BEGIN, END, "ext4/stat")


def test_a_window_with_an_undisassembled_block_is_dropped_and_named():
    """One window runs a TB no log disassembles: that window cannot be
    counted and is dropped, the others kept; all of them: an error."""
    lines = log(2)
    ends = [i for i, x in enumerate(lines) if x == run(END)]
    lines.insert(ends[-1], run(0x999000))
    doc = tmix.Reader().extract(lines, BEGIN, END, "nfs3.actimeo0/stat")
    assert len(doc["windows"]) == 1 and doc["dropped"] == ["0x999000 (flags 18c0c2b0, cflags ff020200)"]


def test_stopped_block_is_not_counted():
    lines = log(1)
    i = lines.index(run(SYS + 9))
    lines.insert(i + 1, f"Stopped execution of TB chain before 0x7f00 [{SYS + 9:016x}] ")
    doc = tmix.Reader().extract(lines, BEGIN, END, "x")
    w = doc["windows"][0]
    assert w["interrupted"]
    assert sum(len(doc["tbs"][j]["insns"]) for j in w["tbs"]) == 2 + 2 + 2


def test_a_block_translated_twice_before_it_runs_keeps_both():
    """An interrupt stops a TB translated at a pc; the pc is translated
    again with other flags (one instruction, as after an sti) and runs;
    then the first TB runs.  Each run finds its own instructions."""
    lines = log(1)
    i = lines.index(run(SYS + 9))
    first = tb(SYS + 0x20, [(SYS + 0x20, "90", "nop"), (SYS + 0x21, "90", "nop")])
    again = tb(SYS + 0x20, [(SYS + 0x20, "90", "nop")])
    lines[i + 1:i + 1] = (first[:-1] + [f"Stopped execution of TB chain before 0x7f00 "
                                        f"[{SYS + 0x20:016x}] "] + again[:-1] +
                          [run(SYS + 0x20).replace("18c0c2b0", "18c0c2b1"), run(SYS + 0x20)])
    doc = tmix.Reader().extract(lines, BEGIN, END, "nfs3.actimeo0/stat")
    assert not doc["dropped"]
    # the second translation ran first (one instruction), then the first (two)
    assert [len(t["insns"]) for t in doc["tbs"] if t["pc"] == SYS + 0x20] == [1, 2]
    w = doc["windows"][0]
    assert sum(len(doc["tbs"][j]["insns"]) for j in w["tbs"]) == 2 + 2 + 3 + 1 + 2


def test_a_block_rewound_for_io_counts_what_ran():
    """cpu_io_recompile: the TB logged last ran up to its I/O instruction
    only; QEMU runs that instruction as a TB of its own (CF_LAST_IO, one
    instruction), then the rest.  The rewound TB counts its first part."""
    lines = log(1)
    i = lines.index(run(SYS + 9))
    apic = SYS + 0x40
    lines[i + 1:i + 1] = (
        tb(apic, [(apic, "90", "nop"), (apic + 1, "89 38", "movl %edi, (%rax)"),
                  (apic + 3, "c3", "retq")])
        + [f"cpu_io_recompile: rewound execution of TB to {apic + 1:016x}"]
        + tb(apic + 1, [(apic + 1, "89 38", "movl %edi, (%rax)")], cflags="ff038201")
        + tb(apic + 3, [(apic + 3, "c3", "retq")]))
    doc = tmix.Reader().extract(lines, BEGIN, END, "x")
    w = doc["windows"][0]
    assert not w["rewound"]
    # body 2 + entry 2 + rep 3 + the rewound TB's nop + the I/O insn + ret
    assert sum(len(doc["tbs"][j]["insns"]) for j in w["tbs"]) == 2 + 2 + 3 + 1 + 1 + 1


def test_a_block_that_faults_counts_up_to_the_fault():
    """-d int: a page fault at a TB's second instruction (a user copy of a
    NULL name) leaves one instruction run; the handler and the fixup it
    returns to follow.  An interrupt (vector 0xec) is taken between TBs
    and cuts nothing."""
    lines = log(1)
    i = lines.index(run(SYS + 9))
    copy_ = SYS + 0x60
    fault = (f"     3: v=0e e=0000 i=0 cpl=0 IP=0010:{copy_ + 3:016x} pc={copy_ + 3:016x} "
             "SP=0018:ffffc90000abfe00 CR2=0000000000000000")
    timer = (f"     4: v=ec e=0000 i=0 cpl=0 IP=0010:{copy_ + 0x40:016x} pc={copy_ + 0x40:016x} "
             "SP=0018:ffffc90000abfe00 env->regs[R_EAX]=0000000000000000")
    lines[i + 1:i + 1] = (
        tb(copy_, [(copy_, "31 c0", "xorl %eax, %eax"), (copy_ + 3, "8a 06", "movb (%rsi), %al"),
                   (copy_ + 5, "c3", "retq")])
        + [fault, "RAX=0000000000000000 RBX=0000000000000000"]
        + tb(SYS + 0x200, [(SYS + 0x200, "90", "nop")])
        + tb(copy_ + 0x40, [(copy_ + 0x40, "c3", "retq")])
        + [timer] + tb(SYS + 0x300, [(SYS + 0x300, "90", "nop")]))
    doc = tmix.Reader().extract(lines, BEGIN, END, "x")
    w = doc["windows"][0]
    # body 2 + entry 2 + rep 3 + the faulting TB's first + handler + fixup + the interrupt's
    assert sum(len(doc["tbs"][j]["insns"]) for j in w["tbs"]) == 2 + 2 + 3 + 1 + 1 + 1 + 1


def test_a_block_translated_as_a_log_ends_runs_in_the_next():
    """A TB translated (its in_asm printed) just before the log went off,
    and first run in the next case's log, is known there."""
    reader = tmix.Reader()
    late = SYS + 0x80
    first = log(1) + tb(late, [(late, "90", "nop"), (late + 1, "c3", "retq")])[:-1]
    reader.extract(first, BEGIN, END, "a")
    second = [run(BEGIN)] + [run(BODY), run(SYS), run(SYS + 9), run(SYS + 9), run(SYS + 9),
                             run(late), run(END)]
    doc = reader.extract(second, BEGIN, END, "b")
    assert not doc["dropped"]
    w = doc["windows"][0]
    assert sum(len(doc["tbs"][j]["insns"]) for j in w["tbs"]) == 2 + 2 + 3 + 2


def test_windows_keep_their_place():
    """Each window knows which of the case's it is (the harness's clock for
    it is the n-th on its "mix done" line), a dropped one counted too."""
    doc = tmix.Reader().extract(log(3), BEGIN, END, "x")
    assert [w["n"] for w in doc["windows"]] == [0, 1, 2]


def test_window_never_closed():
    lines = log(1)
    lines = [x for x in lines if x != run(END)]
    with pytest.raises(tmix.MixError, match="never reached"):
        tmix.Reader().extract(lines, BEGIN, END, "x")


@pytest.mark.parametrize("text,code,cls", [
    ("rep stosb %al, (%rdi)", "f3 aa", "rep"),
    ("rep movsq (%rsi), (%rdi)", "f3 48 a5", "rep"),
    ("lfence", "0f ae e8", "fence"),
    ("stac", "0f 01 cb", "smap"),
    ("lock addl $1, (%rax)", "f0 83 00 01", "locked"),
    ("cmpxchgl %edx, %ds:(%rdi)", "3e 0f b1 17", "locked"),
    ("xchgq %rax, (%rdx)", "48 87 02", "locked"),
    ("swapgs", "0f 01 f8", "system"),
    ("sysretq", "48 0f 07", "system"),
    ("movq %rax, %cr3", "0f 22 d8", "system"),
    ("callq 0xffffffff81000000", "e8 00 00 00 00", "call"),
    ("callq *%rax", "ff d0", "indirect"),
    ("jmpq *%rax", "ff e0", "indirect"),
    ("retq", "c3", "ret"),
    ("jne 0x10", "75 0e", "branch"),
    ("movq 8(%rdi), %rax", "48 8b 47 08", "memory"),
    ("pushq %rbp", "55", "memory"),
    ("leaq 8(%rdi), %rax", "48 8d 47 08", "other"),
    ("addl $1, %eax", "83 c0 01", "other"),
])
def test_classify(text, code, cls):
    assert mix.classify(text, code) == cls


def write_run(tmp, cost, symbols=True):
    """A traces/mix.py run directory with one case."""
    v = tmp / "patched"
    (v / "ext4").mkdir(parents=True)
    (v / "kallsyms").write_text(f"{SYS - 0x1000:016x} T _text\n{SYS:016x} T entry\n"
                                if symbols else f"{SYS + 0x1000:016x} T later\n")
    null = tmix.Reader().extract(log(1, [tb(BODY, [(BODY, "31 c0", "xorl %eax, %eax")])]),
                                 BEGIN, END, "null")
    (v / "ext4" / "null.json").write_text(json.dumps(null))
    doc = tmix.Reader().extract(log(3), BEGIN, END, "x")
    (v / "ext4" / "x.json").write_text(json.dumps(doc))
    (v / "ext4.json").write_text(json.dumps({"cases": [{"name": "x", "call": "x()",
                                                        "median": cost}]}))
    return v


def test_case_mix_totals_and_reps(tmp_path):
    v = write_run(tmp_path, 6.0)
    out = mix.variant_mix(v)
    m = out["ext4"]["x"]
    assert m["total"] == 6 and m["diff_pct"] == 0
    assert sum(m["classes"].values()) == m["total"]
    (rep,) = m["rep"]
    assert rep["insn"] == "stosb" and rep["execs"] == 4 and rep["bytes"] == 3


def test_mismatched_total_names_the_case(tmp_path):
    v = write_run(tmp_path, 9.0)
    with pytest.raises(mix.MixError, match="patched/ext4/x.*cost mode counts 9.0"):
        mix.variant_mix(v)
    # a call that makes an RPC is one call against the median of others:
    # its difference is recorded, not an error
    (v / "ext4.json").write_text(json.dumps({"cases": [
        {"name": "x", "call": "x()", "median": 9.0, "nfs_ops_per_call": {"GETATTR": 1.0}}]}))
    assert mix.variant_mix(v)["ext4"]["x"]["diff_pct"] < -30


def with_clock(v, case, null):
    """The harness's clock around each window: the case's and the empty
    body's (93 instructions of clock reading and call around each)."""
    for name, clock in (("x", case), ("null", null)):
        f = v / "ext4" / f"{name}.json"
        doc = json.loads(f.read_text())
        doc["clock"] = clock
        f.write_text(json.dumps(doc))


def test_each_window_equals_its_own_clock_or_names_the_case_and_window(tmp_path):
    """The case's windows total 6 instructions each once the empty body's
    is taken off; the harness's clock reads 90 around an empty window."""
    v = write_run(tmp_path, 6.0)
    with_clock(v, [96, 96, 96], [90])
    assert mix.variant_mix(v)["ext4"]["x"]["clock"] == [[6, 6]] * 3
    with_clock(v, [96, 146, 96], [90])
    with pytest.raises(mix.MixError, match=r"patched/ext4/x: window 2 totals 6 .*clock around it 56"):
        mix.variant_mix(v)


def test_rdpkru_split_by_the_disassembler_is_one_instruction():
    insns = [[SYS, "0f", ".byte    0x0f"], [SYS + 1, "01 ee", "addl     %ebp, %esi"],
             [SYS + 3, "c3", "retq"]]
    syms = type("S", (), {"name": lambda self, pc, case: "__switch_to"})()
    out = mix.mend(insns, syms, "x")
    assert [i[2] for i in out] == ["rdpkru", "retq"] and out[0][1] == "0f 01 ee"
    assert mix.classify(out[0][2], out[0][1]) == "system"
    with pytest.raises(mix.MixError, match=r"x: QEMU's disassembler did not decode .*__switch_to"):
        mix.mend([[SYS, "0f", ".byte    0x0f"], [SYS + 1, "0b", "ud2?"]], syms, "x")


def test_unattributed_kernel_code_names_the_case(tmp_path):
    v = write_run(tmp_path, 6.0, symbols=False)
    with pytest.raises(mix.MixError, match="patched/ext4/x.*below every symbol"):
        mix.variant_mix(v)


def test_case_without_windows_file(tmp_path):
    v = write_run(tmp_path, 6.0)
    (v / "ext4" / "x.json").unlink()
    with pytest.raises(mix.MixError, match="ext4/x: the harness ran it, no windows"):
        mix.variant_mix(v)


def test_model_has_a_source_for_every_parameter():
    model = cycles.load()
    for core, c in model["cores"].items():
        for name, p in c["params"].items():
            assert p["sources"], f"{core}.{name}"


def test_model_without_source_is_refused():
    model = copy.deepcopy(cycles.load())
    core = next(iter(model["cores"]))
    model["cores"][core]["params"]["lfence"]["sources"] = []
    with pytest.raises(cycles.ModelError, match=f"{core}.lfence: no source"):
        cycles.validate(model)


def test_weigh_every_instruction_or_name_the_case(tmp_path):
    model = cycles.load()
    m = mix.variant_mix(write_run(tmp_path, 6.0))["ext4"]["x"]
    for core in model["cores"]:
        lo, hi, parts = cycles.weigh(m, core, model, "x")
        assert 0 < lo <= hi
    bad = copy.deepcopy(m)
    bad["ops"]["wbinvd"] = 1
    bad["classes"]["system"] += 1
    bad["total"] += 1
    with pytest.raises(cycles.ModelError, match="case-y.*wbinvd"):
        cycles.weigh(bad, core, model, "case-y")


def test_byte_read_sets_v1_against_v2_with_fences_and_cycles(doc):
    """The byte read, v1's mix (its patches 1-3) against the series' now
    on the kernel that stops with its "" patch (series2): instructions,
    lfences, stac/clac and calls, modeled cycles."""
    import report
    from conftest import make_case, make_config
    v1 = json.loads((ROOT / "analysis" / "reference" / "mix-v1.json").read_text())
    now = copy.deepcopy(v1)
    now["variants"]["series2"] = now["variants"].pop("series3")
    m = now["variants"]["series2"]["ext4"]["fstatat.empty"]
    m["ops"]["lfence"] = 0
    m["classes"]["fence"] -= 1
    m["classes"]["call"] += 1
    d = copy.deepcopy(doc)
    d["configs"].append(make_config("series2", "ext4", [make_case("fstat", 1150.0)]))
    text = mix.byte_read(report.Report(d), now, v1)
    row = next(x for x in text.splitlines() if x.startswith("| `fstatat.empty`"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[3] == "1 → 0" and cells[5].split(" → ")[1] == str(int(cells[5].split(" → ")[0]) + 1)
    assert "`fstat`" in text and "cycles (modeled)" in text
    # No kernel that stops with the byte read: said, not guessed.
    assert "No mix" in mix.byte_read(report.Report(doc), now, v1)


def test_mix_file_is_one_line_per_case_and_reads_back():
    doc = json.loads((ROOT / "analysis" / "reference" / "mix.json").read_text())
    text = mix.dumps(doc)
    assert json.loads(text) == doc
    cases = sum(len(c) for v in doc["variants"].values() for c in v.values())
    assert sum(1 for line in text.splitlines() if line.startswith("    ")) == cases


def test_kernel_only_counts_leave_user_space_out(tmp_path):
    """The body's indirect call is user space's; the kernel block's are the
    kernel's: a core's mitigations apply to these alone."""
    m = mix.variant_mix(write_run(tmp_path, 6.0))["ext4"]["x"]
    assert m["classes"]["indirect"] == 1
    assert m["kernel"] == {"call": 0, "ret": 0, "indirect": 0}


def test_mitigations_add_per_event_and_need_kernel_counts():
    """Zen 2's safe-RET thunk costs each kernel return; Zen 5 under 6.1
    adds nothing; a mix without kernel-only counts is named, not guessed,
    unless the caller weighs without mitigations."""
    model = cycles.load()
    m = {"total": 12, "classes": dict.fromkeys(mix.CLASSES, 0), "ops": {"syscall": 1},
         "rep": [], "kernel": {"call": 4, "ret": 4, "indirect": 1}}
    m["classes"].update(call=4, ret=4, indirect=1, system=1, other=2)
    lo, hi, parts = cycles.weigh(m, "zen2", model, "x")
    z2 = model["cores"]["zen2"]["mitigations"]["6.1"]
    want = [4 * z2["per_ret"]["cycles"][i] + z2["per_indirect"]["cycles"][i]
            + z2["per_entry"]["cycles"][i] + z2["per_exit"]["cycles"][i] for i in (0, 1)]
    assert parts["mitigations"] == [round(w, 1) for w in want]
    assert "mitigations" not in cycles.weigh(m, "zen5", model, "x")[2]
    # 6.12 on Zen 5: TSA's VERW on each return to user, where the part asks for it.
    z5 = model["cores"]["zen5"]["mitigations"]["6.12"]["per_exit"]["cycles"]
    assert cycles.weigh(m, "zen5", model, "x", base="6.12")[2]["mitigations"] == z5
    assert cycles.weigh(m, "zen2", model, "x", base="6.12")[2]["mitigations"] == \
        parts["mitigations"]
    with pytest.raises(cycles.ModelError, match="zen2: no mitigations for kernel base 5.10"):
        cycles.weigh(m, "zen2", model, "x", base="5.10")
    lo0, hi0, _ = cycles.weigh(m, "zen2", model, "x", mitigations=False)
    assert lo0 < lo and hi0 < hi
    old = {k: v for k, v in m.items() if k != "kernel"}
    with pytest.raises(cycles.ModelError, match="old-case: the mix has no kernel-only counts"):
        cycles.weigh(old, "zen2", model, "old-case")
    assert cycles.weigh(old, "zen2", model, "old-case", mitigations=False)[0] == lo0


def test_mitigations_want_a_source_and_a_count():
    model = copy.deepcopy(cycles.load())
    model["cores"]["zen2"]["mitigations"]["6.12"]["per_ret"]["sources"] = []
    with pytest.raises(cycles.ModelError, match="zen2.mitigations.6.12.per_ret: no source"):
        cycles.validate(model)
    model = copy.deepcopy(cycles.load())
    del model["cores"]["zen2"]["mitigations"]["6.1"]["per_entry"]["insns"]
    with pytest.raises(cycles.ModelError, match="zen2.mitigations.6.1.per_entry: wants insns"):
        cycles.validate(model)
    model = copy.deepcopy(cycles.load())
    del model["cores"]["zen5"]["mitigations"]["6.12"]
    with pytest.raises(cycles.ModelError, match=r"zen5.mitigations: want one entry per kernel"):
        cycles.validate(model)


def test_a_kernel_weighs_with_its_own_base():
    assert cycles.base_of("patched") == "6.1" and cycles.base_of("patched-6.12") == "6.12"
    with pytest.raises(cycles.ModelError, match="nosuch: not a variant"):
        cycles.base_of("nosuch")


def test_host_shapes_and_fitted_parameters(tmp_path):
    """A host's mitigation shapes are its sequence against the same calls
    without it; a row whose parameter cites this host's file is fitted."""
    model = cycles.load()

    def seq(name, icount, iters):
        return {"name": name, "what": name, "size": 0, "icount": icount, "ns": iters / 3,
                "ns_range": [0, 1], "tsc": iters, "loop_iters": iters}
    h = {"schema": 1, "kind": "hostcal", "cpu": "AMD EPYC", "family": 26, "model": 2,
         "erms": True, "fsrm": True, "batch": 2000, "samples": 31,
         "sequences": [seq("asm_call_ret_x10", 22, 36.0), seq("dropret_x10", 52, 296.0),
                       seq("indirect_x10", 23, 36.0), seq("retpoline_x10", 53, 256.0),
                       seq("lock_add", 1, 13.6), seq("lfence", 1, 11.0)]}
    assert cycles.mitigation_shapes(h) == [("dropret_x10", "per_ret", 26.0),
                                           ("retpoline_x10", "per_indirect", 22.0)]
    path = tmp_path / "amd-f26-m2.json"
    core, rows = cycles.against_host(h, model, path=path)
    by = {r["name"]: r for r in rows}
    assert core == "zen5" and by["lock_add"]["fitted"] and not by["lfence"]["fitted"]
    assert not cycles.against_host(h, model, path=tmp_path / "other.json")[1][0]["fitted"]
    path.write_text(json.dumps(h))
    text = "\n".join(mix.hosts_section(model, tmp_path))
    assert "`dropret_x10` 26.0 cycles per return" in text and "fitted" in text


def test_mitigation_finding_needs_kernel_counts(doc):
    """The Zen 2 finding: each call's kernel returns and what the
    mitigations add, on the base and the series; nothing without counts."""
    import report
    model = cycles.load()

    def m(rets):
        c = dict.fromkeys(mix.CLASSES, 0)
        c.update(call=rets, ret=rets, other=100, system=1)
        return {"total": 2 * rets + 101, "classes": c, "ops": {"syscall": 1}, "rep": [],
                "kernel": {"call": rets, "ret": rets, "indirect": 0}}
    d = {"variants": {"stock": {"ext4": {"stat": m(96), "glibc.fstat": m(60)}},
                      "patched": {"ext4": {"stat": m(90), "glibc.fstat": m(20)}}}}
    r = report.Report(doc)
    line = mix.mitigation_finding(r, d, model)
    assert "stat() by path runs 96 kernel returns" in line and "20 and 0 on patched" in line
    assert "Zen 5: none on this path" in line
    del d["variants"]["patched"]["ext4"]["stat"]["kernel"]
    assert mix.mitigation_finding(r, d, model) == ""
