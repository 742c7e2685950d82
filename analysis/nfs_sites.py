#!/usr/bin/python3
"""Where each NFS RPC of a stat() comes from, from traces/nfs_getattr_sites.bt.

usage: nfs_sites.py TRACE.txt...      print each trace's table

A trace file (traces/guest-traces.sh) holds bpftrace's maps, then one
"calls N" line (the workload's own count) and a "fileid ID NAME" line
per component of the path.  Each RPC's stack is read for two things: the
VFS step that asked (a permission check on the path, a dentry's
d_revalidate, ->getattr) and the NFS function that sent the inode to
__nfs_revalidate_inode (or sent the RPC itself).  A stack with neither is
kept, as "unattributed": nothing is dropped.
"""
import pathlib
import re
import sys

# The VFS step: the first of these frames from the RPC outwards.  With the
# events on, vfs_getattr_nosec() tail-calls fs_getattr_traced() (series v3;
# v2's was vfs_getattr_nosec_traced), so neither it nor vfs_getattr() is on
# the stack then.
VFS_STEPS = (
    ("inode_permission", "permission check (may_lookup)"),
    ("lookup_fast", "d_revalidate (lookup_fast)"),
    ("lookup_slow", "lookup (lookup_slow)"),
    ("__lookup_slow", "lookup (lookup_slow)"),
    ("fs_getattr_traced", "->getattr"),
    ("vfs_getattr_nosec_traced", "->getattr"),
    ("vfs_getattr_nosec", "->getattr"),
    ("vfs_getattr", "->getattr"),
    ("vfs_open", "open"),
)
# RPC plumbing between the deciding NFS function and sunrpc: skipped.
PLUMBING = re.compile(r"^(nfs3_rpc_wrapper|nfs3_proc_\w+|_?nfs4_proc_\w+|nfs4_call_sync\w*|"
                      r"nfs4_do_call_sync|_nfs4_call_sync\w*|nfs4_\w*sequence\w*|"
                      r"__nfs_revalidate_inode|nfs_revalidate_inode)$")
UNATTRIBUTED = "unattributed"

KEY = re.compile(r"^@rpc\[(\w+), (\d+), (\d+), $")
END = re.compile(r"^\]: (\d+)$")


def frame_name(line):
    """'    nfs_permission+144' -> 'nfs_permission'."""
    return line.strip().split("+")[0]


def classify(stack):
    """(VFS step, NFS function) of a stack (innermost frame first)."""
    step = next((what for f in stack for name, what in VFS_STEPS if f == name), UNATTRIBUTED)
    nfs = next((f for f in stack if f.startswith("nfs") and not PLUMBING.match(f)), None)
    if nfs is None:
        return step, UNATTRIBUTED
    chain = " → __nfs_revalidate_inode" if "__nfs_revalidate_inode" in stack else ""
    return step, nfs + chain


def parse(text):
    """{"calls", "calls_traced", "components": {fileid: name}, "rpcs":
    [{"proc", "fileid", "component", "phase", "step", "nfs", "count",
    "per_call"}]} of one trace file; ValueError names what is missing."""
    calls = traced = None
    components, rpcs = {}, []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = KEY.match(line)
        if m:
            stack, i = [], i + 1
            while i < len(lines) and not END.match(lines[i]):
                stack.append(frame_name(lines[i]))
                i += 1
            if i == len(lines):
                raise ValueError(f"an @rpc entry without its count: {line!r}")
            step, nfs = classify(stack)
            rpcs.append({"proc": m.group(1), "fileid": int(m.group(2)),
                         "phase": "->getattr" if m.group(3) == "1" else
                         "after ->getattr" if m.group(3) == "2" else "path walk",
                         "step": step, "nfs": nfs, "count": int(END.match(lines[i]).group(1)),
                         "stack": stack})
        elif line.startswith("@calls:"):
            traced = int(line.split(":")[1])
        elif line.startswith("calls "):
            calls = int(line.split()[1])
        elif line.startswith("fileid "):
            _, fid, name = line.split(None, 2)
            components[int(fid)] = name
        i += 1
    if calls is None:
        raise ValueError("no 'calls N' line (the workload's count)")
    if traced is None:
        raise ValueError("no @calls map: did bpftrace run?")
    for r in rpcs:
        r["component"] = components.get(r["fileid"], f"fileid {r['fileid']}"
                                        if r["fileid"] else UNATTRIBUTED)
        r["per_call"] = r["count"] / calls
    return {"calls": calls, "calls_traced": traced,
            "components": {str(k): v for k, v in components.items()}, "rpcs": rpcs}


def per_call(site, proc=None):
    """RPCs per call of a parsed trace (of procedure PROC, or all)."""
    return sum(r["per_call"] for r in site["rpcs"] if proc in (None, r["proc"]))


def rows(site):
    """Table rows, one per (procedure, component, step, NFS function),
    in path order: [proc, component, phase, step, nfs, per call]."""
    order = list(site["components"].values())
    agg = {}
    for r in site["rpcs"]:
        # Classified again from the stack it kept: a summary merged
        # before a fix of classify() reads as it would now.
        step, nfs = classify(r["stack"]) if r.get("stack") else (r["step"], r["nfs"])
        k = (r["proc"], r["component"], r["phase"], step, nfs)
        agg[k] = agg.get(k, 0) + r["per_call"]

    def key(k):
        c = k[1]
        return (k[0], order.index(c) if c in order else len(order), k[2], k[3])
    return [list(k) + [v] for k, v in sorted(agg.items(), key=lambda kv: key(kv[0]))]


def main():
    for path in sys.argv[1:] or sys.exit(__doc__):
        site = parse(pathlib.Path(path).read_text())
        print(f"{path}: {site['calls']} calls, "
              f"{per_call(site, 'GETATTR'):.2f} GETATTR and {per_call(site):.2f} RPCs per call")
        for r in rows(site):
            print(f"  {r[0]:8} {r[1]:16} {r[2]:10} {r[3]:32} {r[4]:48} {r[5]:.2f}")


if __name__ == "__main__":
    main()
