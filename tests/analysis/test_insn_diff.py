"""analysis/insn_diff.py: one call's instructions on two kernels, compared
function by function, with what moves between two builds taken out."""
import json

import pytest

import bases
import insn_diff
import mix

K = 0xffffffff81000000


def kernel(tmp_path, name, shift, cases):
    """A traces/mix.py run directory: kallsyms with f, g, h and
    raw_fstat (placed SHIFT apart from the other kernel's), and a window
    per case of [(function, text)], each instruction its own block."""
    d = tmp_path / name
    (d / "ext4").mkdir(parents=True)
    funcs = ("f", "g", "h", "raw_fstat")
    (d / "kallsyms").write_text("".join(f"{K + shift + 0x1000 * i:x} T {n}\n"
                                        for i, n in enumerate(funcs)))
    for case, insns in cases.items():
        tbs, seen, last = [], {}, None
        for fn, text in insns:
            if text.startswith("rep") and text == last:
                pc = tbs[-1]["pc"]          # a REP iteration: the same block again
            else:
                pc = K + shift + 0x1000 * funcs.index(fn) + seen.setdefault(fn, 0)
                seen[fn] += 4
            last = text
            tbs.append({"pc": pc, "cflags": "ff020200", "insns": [[pc, "90", text]]})
        (d / "ext4" / f"{case}.json").write_text(json.dumps(
            {"tbs": tbs, "windows": [{"tbs": list(range(len(tbs))), "interrupted": False,
                                      "rewound": False}]}))
    return d


def test_normalize_takes_out_what_moves_between_builds(tmp_path):
    d = kernel(tmp_path, "a", 0, {})
    syms = mix.Symbols(d / "kallsyms")
    n = insn_diff.normalize
    assert n(f"callq    0x{K + 0x1010:x}", "f", syms, "c") == "callq <g>"
    assert n(f"jne      0x{K + 0x20:x}", "f", syms, "c") == "jne ."
    assert n("jmp      0x55e11df6f2a0", "f", syms, "c") == "jmp (user space)"
    assert n("movq 0xe34a41(%rip), %rbx", "f", syms, "c") == "movq ADDR(%rip), %rbx"
    assert n("movq $-0x74508fd6, %rdi", "f", syms, "c") == "movq $ADDR, %rdi"
    assert n("movzbl -0x7476b8b0(%rax), %edx", "f", syms, "c") == "movzbl ADDR(%rax), %edx"
    assert n("movq 0x60(%rdi), %rax", "f", syms, "c") == "movq 0x60(%rdi), %rax"
    assert n("subq $-0x80, %rsp", "f", syms, "c") == "subq $-0x80, %rsp"


def test_a_path_is_compared_where_it_adds_to_raw_fstat(tmp_path):
    """Both kernels run raw_fstat the same (apart from where it is); the
    path adds f on A and f and g on B: h, which both run alike, and
    raw_fstat are not listed; g's instructions are B's alone."""
    common = [("raw_fstat", "pushq %rbx"), ("raw_fstat", "movq 0xe3(%rip), %rax"),
              ("raw_fstat", "popq %rbx"), ("raw_fstat", "retq")]
    kernel(tmp_path, "ours", 0, {
        "fstat": common,
        "statx.fd.null": [("f", "movl %edi, %ebx"), ("f", f"callq 0x{K + 0x2000:x}"),
                          ("h", "retq"), ("f", "rep stosb %al, (%rdi)"),
                          ("f", "rep stosb %al, (%rdi)"), ("f", "rep stosb %al, (%rdi)")] + common})
    kernel(tmp_path, "up", 0x40000, {
        "fstat": common,
        "statx.fd.null": [("f", "movl %edi, %ebp"), ("f", f"callq 0x{K + 0x42000:x}"),
                          ("h", "retq"), ("f", f"callq 0x{K + 0x41000:x}"),
                          ("g", "testb $1, %ch"), ("g", "retq")] + common})
    doc = insn_diff.pair(tmp_path, "ours", "up", cases=("fstat", "statx.fd.null"))
    fstat, path = doc["cases"]
    assert fstat["functions"] == []              # the same code, placed apart
    assert path["total"] == [10, 10] and path["excess"] == [6, 6]
    f, g = path["functions"]
    assert (f["function"], f["a"], f["b"], f["excess_a"], f["excess_b"]) == ("f", 5, 3, 5, 3)
    assert f["only_a"] == ["movl %edi, %ebx", "rep stosb %al, (%rdi) (x3)"]
    assert f["only_b"] == ["movl %edi, %ebp", "callq <g>"]
    assert f["mnemonics"] == {"rep stosb": 3, "callq": -1}
    assert (g["function"], g["a"], g["b"], g["only_a"], g["only_b"]) == \
        ("g", 0, 2, [], ["testb $1, %ch", "retq"])
    assert sum(f["mnemonics"].values()) == f["a"] - f["b"]
    # The report's line names the function both run, by mnemonic.
    text = bases.insn_sentence({"run": "R", "pairs": [doc]}, cases=("statx.fd.null",))
    assert "`f` 5 / 3 (by mnemonic, ours less up: +3 `rep stosb`, -1 `callq`)" in text
    assert "run by one kernel only: none / `g` 2." in text
    assert "| `g` | 0 (+0) | 2 (+2) | -1 `retq`, -1 `testb` | – | `testb $1, %ch`; `retq` |" \
        in "\n".join(bases.insn_tables({"run": "R", "pairs": [doc]}))


def test_pairs_come_from_the_variants_and_a_missing_kernel_is_refused(tmp_path):
    for k in ("patched", "stock-6.12", "stock"):
        kernel(tmp_path, k, 0, {"fstat": [("raw_fstat", "retq")]})
    assert insn_diff.base_pairs(tmp_path) == [("patched", "stock-6.12")]
    (tmp_path / "stock-6.12" / "kallsyms").unlink()
    assert insn_diff.base_pairs(tmp_path) == []
    with pytest.raises(SystemExit, match="no mix of our series beside"):
        import sys
        sys.argv = ["insn_diff.py", str(tmp_path)]
        insn_diff.main()


def test_the_default_cases_are_raw_fstat_and_the_paths_tagged_fdpath(tmp_path):
    """Without --case: raw fstat() and the cases A's harness file tags
    fdpath, glibc's wrapper first (analysis/bases.py's order); a harness
    file from before the tag is refused, not read as holding no path."""
    d = kernel(tmp_path, "ours", 0, {})
    rows = [("fstat", "raw", "fstat(fd)", ["fd"]),
            ("fstatat.empty", "raw", 'newfstatat(fd, "", EMPTY_PATH)', ["fd", "fdpath"]),
            ("statx.fd.null", "raw", "statx(fd, NULL, EMPTY_PATH)", ["fd", "fdpath"]),
            ("glibc.fstat", "wrapper", "fstat()", ["fd", "fdpath"])]
    harness = {"cases": [{"name": n, "kind": k, "call": c, "tags": t} for n, k, c, t in rows]}
    (d / "ext4.json").write_text(json.dumps(harness))
    assert insn_diff.default_cases(tmp_path, "ours") == \
        ["fstat", "glibc.fstat", "fstatat.empty", "statx.fd.null"]
    for c in harness["cases"]:
        c["tags"] = ["fd"]
    (d / "ext4.json").write_text(json.dumps(harness))
    with pytest.raises(mix.MixError, match="no case tagged fdpath"):
        insn_diff.pair(tmp_path, "ours", "ours")
