#!/usr/bin/env python3
"""dispatch.py - what the system call number itself costs: the
instructions x64_sys_call() runs to reach each system call's handler.

Linux 6.1.192 (and every stable kernel since the 2024 branch-history
injection fixes) dispatches x86-64 system calls through a switch in
x64_sys_call(), built without jump tables: a tree of compares whose depth
differs from one number to the next.  newfstat (5) and newfstatat (262)
therefore do not start at the same cost, and cost mode sees the difference.

In the guest it reads the running kernel's code (after boot-time patching)
through /proc/kcore with gdb, walks the compare tree for every number and
writes, per number, the instructions from the function's entry to its jump
to the handler, and the handler's name (from /proc/kallsyms).

Usage (in the guest, as root): bench/dispatch.py -o OUT.json
       (on a build tree):      bench/dispatch.py --vmlinux vmlinux -o OUT.json
"""
import argparse
import json
import re
import subprocess
import sys

FUNCTION = "x64_sys_call"
MAX_NR = 512            # x86-64 numbers stop at about 460 in 6.1
LINE = re.compile(r"^\s*(?:=>\s*)?0x([0-9a-f]+)(?:\s*<[^>]*>)?:\s+(\S+)\s*(.*)$")
ADDR = re.compile(r"0x([0-9a-f]+)")
IMM = re.compile(r"^\$0x([0-9a-f]+),%esi$")
COND = {
    "je": lambda a, b: a == b, "jne": lambda a, b: a != b,
    "ja": lambda a, b: a > b, "jae": lambda a, b: a >= b,
    "jb": lambda a, b: a < b, "jbe": lambda a, b: a <= b,
}


def parse(text):
    """gdb's or objdump's disassembly -> [(address, mnemonic, operands)]."""
    code = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            code.append((int(m.group(1), 16), m.group(2), m.group(3).strip()))
    if not code:
        raise ValueError("no instructions in the disassembly")
    return code


def walk(code, nr):
    """Instructions run for number nr, and the address jumped to.

    Compares of the number (%esi) with immediates and conditional jumps,
    ending at a jump or a call out of the function; anything else but a
    no-op (the ftrace slot, patched to a nop at boot,
    or the call it is in a vmlinux file) means the switch is not the plain
    tree this program understands, and it says so rather than guess.
    """
    index = {addr: i for i, (addr, _, _) in enumerate(code)}
    i, count, operands = 0, 0, None
    while i < len(code):
        addr, op, args = code[i]
        count += 1
        if op == "cmp":
            m = IMM.match(args)
            if not m:
                raise ValueError("%#x: cmp %s: not the number against a constant" % (addr, args))
            operands = (nr, int(m.group(1), 16))
        elif op == "test" and args == "%esi,%esi":
            operands = (nr, 0)
        elif op in COND or op == "jmp":
            m = ADDR.match(args)
            if not m:
                raise ValueError("%#x: %s %s: an indirect jump" % (addr, op, args))
            target = int(m.group(1), 16)
            if op == "jmp" or COND[op](*operands):
                if target not in index:
                    return count, target
                i = index[target]
                continue
        elif op.startswith("nop") or op == "endbr64" or (op == "call" and i == 0):
            pass
        elif op == "call" and ADDR.match(args) and int(ADDR.match(args).group(1), 16) not in index:
            # 6.12's switch calls the handler and returns its value (the
            # return thunk after it), where 6.1's tail-jumps to it.
            return count, int(ADDR.match(args).group(1), 16)
        else:
            raise ValueError("%#x: %s %s: not part of a compare tree" % (addr, op, args))
        i += 1
    raise ValueError("ran off the end of %s for number %d" % (FUNCTION, nr))


def symbols(path):
    """address -> name from a kallsyms or System.map file (text symbols)."""
    names = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tT":
                names.setdefault(int(parts[0], 16), parts[2])
    return names


def function_range(names):
    addrs = sorted(names)
    for k, a in enumerate(addrs):
        if names[a] == FUNCTION and k + 1 < len(addrs):
            return a, addrs[k + 1]
    raise SystemExit("dispatch.py: no %s in the symbol table (kptr_restrict? not root?)" % FUNCTION)


def disassemble(start, end, vmlinux):
    show = ["-ex", "disassemble %#x,%#x" % (start, end)]
    if vmlinux:
        cmd = ["gdb", "-batch", "-nx"] + show + [vmlinux]
    else:
        cmd = ["gdb", "-batch", "-nx", "-ex", "target core /proc/kcore"] + show
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--vmlinux", help="a kernel image instead of the running kernel")
    ap.add_argument("--symbols", help="System.map for --vmlinux (default: /proc/kallsyms)")
    args = ap.parse_args()

    names = symbols(args.symbols or "/proc/kallsyms")
    start, end = function_range(names)
    code = parse(disassemble(start, end, args.vmlinux))
    walked = [walk(code, nr) for nr in range(MAX_NR)]
    # Numbers past the table's end reach the switch's default (the kernel
    # does not call x64_sys_call() for them): keep the table's own.
    last = max(nr for nr, (_, target) in enumerate(walked) if target != walked[-1][1])
    per_nr = {str(nr): {"instructions": count, "handler": names.get(target, "%#x" % target)}
              for nr, (count, target) in enumerate(walked[:last + 1])}
    out = {"function": FUNCTION,
           "source": args.vmlinux or "/proc/kcore",
           "counts": "instructions from the entry to the jump to the handler, both included",
           "per_nr": per_nr}
    with open(args.output, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    for nr, name in ((5, "newfstat"), (262, "newfstatat"), (332, "statx"), (4, "newstat")):
        print("dispatch: %s (%d) %d instructions to %s" %
              (name, nr, per_nr[str(nr)]["instructions"], per_nr[str(nr)]["handler"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
