#!/usr/bin/python3
"""Real clients (ls, stat, find, du): what bench/guest-clients.sh recorded.

usage: clients.py DIR [-o FILE]     DIR: a run's clients/<variant>/clients
                                    (or the directory holding it)

For each configuration (ext4, nfs3, nfs3.actimeo0) and client: the
stat-family system calls the client made with their masks and flags
(traces/client_calls.bt), what getattr was asked on each file system
(the series' stat:vfs_getattr_enter), its CPU time from perf stat's
task-clock (cost mode: instructions, waits left out) and the NFS RPCs
its run caused (mountstats before and after).  Prints JSON.
"""
import argparse
import json
import pathlib
import re
import sys

CALL = re.compile(r"@calls\[(\w+), (\d+), (\d+)\]: (\d+)")
GETATTR = re.compile(r"@getattr\[([\w.-]+), (\d+), (\d+)\]: (\d+)")
FLAGS = [(0x100, "NOFOLLOW"), (0x800, "NO_AUTOMOUNT"), (0x1000, "EMPTY_PATH"),
         (0x2000, "FORCE_SYNC"), (0x4000, "DONT_SYNC")]


def flag_names(flags):
    names = [n for bit, n in FLAGS if flags & bit]
    rest = flags & ~sum(bit for bit, _ in FLAGS)
    if rest:
        names.append(hex(rest))
    return "|".join(names) or "0"


def parse_run(base):
    """One client run: BASE.{cmd,bt,perf,rpc} (BASE: CONFIG.N)."""
    def part(ext):
        return pathlib.Path(f"{base}.{ext}")
    rec = {"client": part("cmd").read_text().strip(),
           "calls": [], "getattr": [], "task_clock_ns": None, "rpcs": {}}
    bt = part("bt").read_text(errors="replace")
    for m in CALL.finditer(bt):
        rec["calls"].append({"syscall": m.group(1), "mask": int(m.group(2)),
                             "flags": int(m.group(3)), "count": int(m.group(4))})
    for m in GETATTR.finditer(bt):
        rec["getattr"].append({"fs": m.group(1), "mask": int(m.group(2)),
                               "flags": int(m.group(3)), "count": int(m.group(4))})
    for line in part("perf").read_text().splitlines():
        f = line.split(",")
        if len(f) > 3 and f[2] == "task-clock":
            rec["task_clock_ns"] = float(f[3])
    rpc = part("rpc")
    lines = rpc.read_text().split("\n") if rpc.exists() else []
    if len(lines) >= 2 and lines[0].strip() and lines[1].strip():
        before = dict(x.split("=") for x in lines[0].split())
        after = dict(x.split("=") for x in lines[1].split())
        rec["rpcs"] = {k: int(after[k]) - int(before[k]) for k in after if before.get(k)}
    return rec


def load(d):
    d = pathlib.Path(d)
    if (d / "clients").is_dir():
        d = d / "clients"
    out = {}
    for env in sorted(d.glob("*.env")):
        cfg = env.stem
        info = dict(line.split("=", 1) for line in env.read_text().splitlines() if "=" in line)
        runs = sorted(d.glob(f"{cfg}.[0-9]*.cmd"), key=lambda p: int(p.stem.rsplit(".", 1)[1]))
        out[cfg] = {"files": int(info.get("files", 0)), "mount": info.get("mount", ""),
                    "runs": [parse_run(str(p)[:-len(".cmd")]) for p in runs]}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    doc = load(a.dir)
    if not doc:
        sys.exit(f"clients.py: nothing under {a.dir}")
    text = json.dumps(doc, indent=1) + "\n"
    if a.output:
        pathlib.Path(a.output).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
