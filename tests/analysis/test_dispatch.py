"""bench/dispatch.py: the walk of x64_sys_call()'s compare tree, on a
small tree written out the way gdb prints the running kernel's code."""
import importlib.util

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location("dispatch", ROOT / "bench" / "dispatch.py")
dispatch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dispatch)

# case 5: newfstat; case 262: newfstatat; else ni_syscall.  The first slot
# is ftrace's, a nop after boot.
TREE = """Dump of assembler code from 0x1000 to 0x1040:
   0x0000000000001000:\tnopl   0x0(%rax,%rax,1)
   0x0000000000001005:\tcmp    $0x106,%esi
   0x000000000000100b:\tje     0x1020
   0x000000000000100d:\tja     0x1028
   0x000000000000100f:\tcmp    $0x5,%esi
   0x0000000000001012:\tjne    0x1028
   0x0000000000001014:\tjmp    0x9000
   0x0000000000001020:\tjmp    0x9100
   0x0000000000001028:\tjmp    0x9200
End of assembler dump.
"""


def test_walk_counts_each_path_to_its_handler():
    code = dispatch.parse(TREE)
    assert dispatch.walk(code, 5) == (7, 0x9000)   # nop cmp je ja cmp jne jmp
    assert dispatch.walk(code, 262) == (4, 0x9100)
    assert dispatch.walk(code, 300) == (5, 0x9200)
    assert dispatch.walk(code, 7) == (7, 0x9200)


def test_walk_refuses_what_is_not_a_compare_tree():
    code = dispatch.parse(TREE.replace("cmp    $0x5,%esi", "mov    %rdi,%rax"))
    with pytest.raises(ValueError, match="not part of a compare tree"):
        dispatch.walk(code, 5)
    code = dispatch.parse(TREE.replace("jmp    0x9200", "jmp    *%rax"))
    with pytest.raises(ValueError, match="indirect"):
        dispatch.walk(code, 300)


def test_walk_ends_at_a_call_out_of_the_function():
    """6.12's switch calls its handler (and returns its value) where
    6.1's jumps to it; an endbr64 at the entry is a no-op executed."""
    tree = (TREE.replace("nopl   0x0(%rax,%rax,1)", "endbr64")
            .replace("jmp    0x9000", "call   0x9000"))
    code = dispatch.parse(tree)
    assert dispatch.walk(code, 5) == (7, 0x9000)
    assert dispatch.walk(code, 262) == (4, 0x9100)
    # a call inside the function is not a handler
    code = dispatch.parse(tree.replace("call   0x9000", "call   0x1020"))
    with pytest.raises(ValueError, match="not part of a compare tree"):
        dispatch.walk(code, 5)
