#!/bin/bash
# kdis.sh - runs inside the guest: disassemble kernel functions as they run,
# after boot-time patching (alternatives: stac/clac, lfence, return thunks;
# static keys; ftrace's nops), read through /proc/kcore with gdb.  What
# cost mode counts is this code, not vmlinux's.
# Usage (in the guest): traces/kdis.sh FUNCTION [INSNS]
#   e.g. make vm-run VARIANT=patched CMD='traces/kdis.sh __x64_sys_newfstatat 40'
set -eu
fn=${1:?usage: kdis.sh FUNCTION [INSNS]}
n=${2:-48}
addr=$(awk -v f="$fn" '$3 == f { print $1; exit }' /proc/kallsyms)
[ -n "$addr" ] || { echo "kdis.sh: no symbol $fn in /proc/kallsyms" >&2; exit 1; }
echo "== $fn at 0x$addr (first $n instructions)"
gdb -batch -ex "target core /proc/kcore" -ex "x/${n}i 0x$addr" 2>&1 |
	grep -v '^warning\|^\[New\|^Core was\|^#0'
