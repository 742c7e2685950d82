#!/usr/bin/python3
"""What the series' lookup-free paths change besides cost: audit records and
NFS's revalidation (tests/guest/behaviour.sh, make behaviour).

usage: behaviour.py RUNDIR... -o FILE   summarise guest runs, one per kernel
       behaviour.py FILE                print its REPORT.md section

RUNDIR is one kernel's guest run: env (kernel=RELEASE), audit.calls and
audit.log (each call's pid, the kernel log's audit records),
nfs.MOUNT.calls (each call before and after the file was replaced on the
server) and nfs.cwd.MOUNT.calls (the AT_FDCWD calls before and after the
server replaced the working directory, each with its GETATTR and LOOKUP
calls).  FILE (analysis/reference/behaviour.json) holds, per kernel, the
records each call made (SYSCALL, CWD, PATH), per NFS mount each call's
result after the replacement (its error, or whether it saw the old inode
or the new one), and per mount each working-directory call's result and
NFS calls.
"""
import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import md_table  # noqa: E402

BEHAVIOUR_FILE = pathlib.Path(__file__).resolve().parent / "reference" / "behaviour.json"
CALL = re.compile(r"phase=(\w+) pid=(\d+) call=(\w+) ret=(-?\d+) errno=(\w+) ino=(\d+) size=(\d+)"
                  r"(?: getattr=(\d+) lookup=(\d+))?")
RECORD = re.compile(r"audit: type=(\d+) audit\([\d.]+:(\d+)\): (.*)")
TYPES = {"1300": "SYSCALL", "1307": "CWD", "1302": "PATH"}
# The calls as the report names them.
LABEL = {"fstat": "fstat(fd)", "fstatat_empty": 'newfstatat(fd, "", EMPTY_PATH)',
         "fstatat_null": "newfstatat(fd, NULL, EMPTY_PATH)",
         "statx_empty": 'statx(fd, "", EMPTY_PATH)', "statx_null": "statx(fd, NULL, EMPTY_PATH)",
         "stat_path": "stat(path)", "statx_path": "statx(path)",
         "cwd_fstatat_empty": 'newfstatat(AT_FDCWD, "", EMPTY_PATH)',
         "cwd_fstatat_null": "newfstatat(AT_FDCWD, NULL, EMPTY_PATH)",
         "cwd_statx_empty": 'statx(AT_FDCWD, "", EMPTY_PATH)',
         "cwd_statx_null": "statx(AT_FDCWD, NULL, EMPTY_PATH)"}


def calls(text):
    return [dict(zip(("phase", "pid", "call", "ret", "errno", "ino", "size", "getattr",
                      "lookup"), m.groups()))
            for m in CALL.finditer(text)]


def audit(rundir):
    """{call: {"ret", "errno", "records": {type: n}}}: the records of the
    event each call's pid made (one probe process per call)."""
    by_serial, serial_of = {}, {}
    for m in RECORD.finditer((rundir / "audit.log").read_text(errors="replace")):
        t, serial, rest = m.groups()
        # PROCTITLE and the rest come with every event: not what differs.
        if t not in TYPES:
            continue
        by_serial.setdefault(serial, []).append(TYPES[t])
        pid = re.search(r"\bpid=(\d+)", rest)
        if t == "1300" and pid:
            serial_of.setdefault(pid.group(1), []).append(serial)
    out = {}
    for c in calls((rundir / "audit.calls").read_text()):
        recs = {}
        for s in serial_of.get(c["pid"], []):
            for t in by_serial[s]:
                recs[t] = recs.get(t, 0) + 1
        out[c["call"]] = {"ret": int(c["ret"]), "errno": c["errno"], "records": recs}
    return out


def nfs(rundir):
    """{mount: {call: {"before": .., "after": ..}}, with "server": the new
    file's inode}: what each call returned after the replacement."""
    out = {}
    for p in sorted(rundir.glob("nfs.*.calls")):
        if p.name.startswith("nfs.cwd."):
            continue
        mount = p.name[len("nfs."):-len(".calls")]
        text = p.read_text()
        rows = {}
        for c in calls(text):
            rows.setdefault(c["call"], {})[c["phase"]] = {
                "ret": int(c["ret"]), "errno": c["errno"], "ino": int(c["ino"]),
                "size": int(c["size"])}
        server = re.search(r"server: ino=(\d+) size=(\d+)", text)
        if not server or not rows:
            raise SystemExit(f"{p}: no server line or no calls: did the run finish?")
        out[mount] = {"calls": rows, "server": {"ino": int(server.group(1)),
                                                 "size": int(server.group(2))}}
    return out


def cwd(rundir):
    """{mount: {call: {"before": .., "after": ..}}}: each working-directory
    call before and after the server replaced the directory, its result and
    the GETATTR and LOOKUP calls it made."""
    out = {}
    for p in sorted(rundir.glob("nfs.cwd.*.calls")):
        mount = p.name[len("nfs.cwd."):-len(".calls")]
        rows = {}
        for c in calls(p.read_text()):
            if c["getattr"] is None:
                raise SystemExit(f"{p}: a call without its NFS counts (fastpath_probe -m)")
            rows.setdefault(c["call"], {})[c["phase"]] = {
                "ret": int(c["ret"]), "errno": c["errno"], "ino": int(c["ino"]),
                "getattr": int(c["getattr"]), "lookup": int(c["lookup"])}
        if not rows:
            raise SystemExit(f"{p}: no calls: did the run finish?")
        out[mount] = rows
    return out


def summarise(rundirs):
    out = {}
    for d in map(pathlib.Path, rundirs):
        env = dict(line.split("=", 1) for line in (d / "env").read_text().splitlines()
                   if "=" in line)
        variant = env["kernel"].rsplit("-", 1)[-1]
        out[variant] = {"kernel": env["kernel"], "audit": audit(d), "nfs": nfs(d), "cwd": cwd(d)}
    return out


def saw(after, before, server):
    """One call's result after the replacement, in words."""
    if after["ret"] < 0:
        return after["errno"]
    if after["ino"] == server["ino"]:
        return "new file"
    if after["ino"] == before["ino"]:
        return "old file"
    return f"inode {after['ino']}"


def section(path=BEHAVIOUR_FILE):
    path = pathlib.Path(path)
    if not path.is_file():
        return "No behaviour run (make behaviour).\n"
    doc = json.loads(path.read_text())
    ro = sr.roles(list(doc))
    kernels = ro.measured + sorted(k for k in doc if k not in ro.measured)
    out = ["Besides what it costs, a call that skips the lookup skips what the lookup did "
           "(`make behaviour`: tests/guest/behaviour.sh in a guest per kernel, "
           "analysis/behaviour.py).", "",
           "**Audit.** A rule on the stat-family calls of one uid (`auditctl -a always,exit "
           "-S newfstatat -S statx -S fstat -F uid=...`), each call made once by its own "
           "process; the records of its event, the errno where the call failed.  A "
           "PATH record (and the CWD one) exists only where a name was looked up:", ""]
    calls_ = list(doc[kernels[0]]["audit"])
    rows = []
    for c in calls_:
        row = [LABEL.get(c, c)]
        for k in kernels:
            a = doc[k]["audit"].get(c)
            if a is None:
                row.append("–")
                continue
            recs = " + ".join(f"{t}" + (f"×{n}" if n > 1 else "")
                              for t, n in sorted(a["records"].items(),
                                                 key=lambda x: ("SYSCALL", "CWD", "PATH").index(x[0])
                                                 if x[0] in ("SYSCALL", "CWD", "PATH") else 9))
            row.append((recs or "none") + ("" if a["ret"] >= 0 else f" ({a['errno']})"))
        rows.append(row)
    out += [md_table(["call"] + kernels, rows), ""]
    # NFS: the base kernel and the whole series on each mount (the partial
    # series differ from them only where NULL fails, which the audit table
    # shows).
    pair = [k for k in (ro.base, ro.series) if k in doc] or kernels[:2]
    mounts = list(doc[pair[0]]["nfs"])
    cols = [(k, m) for m in mounts for k in pair]
    out += ["**NFS v3.** The file opened over NFS and each call made once, then the file "
            "replaced on the server (a new file renamed over it in the export), then each "
            "call again on the same descriptor or by the same path; what it returned, with "
            "the attribute cache (default options) and without (`actimeo=0`):", ""]
    rows = []
    for c in doc[pair[0]]["nfs"][mounts[0]]["calls"]:
        row = [LABEL.get(c, c)]
        for k, mount in cols:
            m = doc[k]["nfs"].get(mount)
            r = m and m["calls"].get(c)
            if not r or "after" not in r:
                row.append("–")
            elif r["before"]["ret"] < 0:
                row.append(r["before"]["errno"])
            else:
                row.append(saw(r["after"], r["before"], m["server"]))
        rows.append(row)
    names = {m: ("actimeo=0" if "actimeo0" in m else "cache") for m in mounts}
    out += [md_table(["call after the replacement"] + [f"{k}, {names[m]}" for k, m in cols],
                     rows), ""]
    if all(doc[k].get("cwd") for k in pair):
        out += cwd_table(doc, pair, names)
    return "\n".join(out).rstrip() + "\n"


def cwd_table(doc, pair, names):
    """The working directory replaced on the server: each AT_FDCWD call's
    answer and the GETATTR and LOOKUP calls it made, per kernel and mount."""
    mounts = [m for m in doc[pair[0]]["cwd"] if m in names]
    cols = [(k, m) for m in mounts for k in pair]
    rows = []
    for c in doc[pair[0]]["cwd"][mounts[0]]:
        row = [LABEL.get(c, c)]
        for k, mount in cols:
            r = doc[k]["cwd"].get(mount, {}).get(c, {}).get("after")
            row.append("–" if not r else
                       f"{'ok' if r['ret'] >= 0 else r['errno']}, {r['getattr']} GETATTR, "
                       f"{r['lookup']} LOOKUP")
        rows.append(row)
    return ["**NFS v3, the working directory replaced.**  The client's working directory, "
            "an empty directory the server renamed another over (so the client's file "
            "handle is stale), then each call on it; its answer and the NFS calls it made.  "
            "`fstat()` of a descriptor of the directory is the reference for a call that "
            "skips the lookup:", "",
            md_table(["call after the replacement"] + [f"{k}, {names[m]}" for k, m in cols],
                     rows), ""]


def brief(path=BEHAVIOUR_FILE):
    """REPORT.md's version: the audit table and the NFS table's gist; the
    full NFS table in the tables file."""
    from md import TABLES_LINK
    text = section(path)
    if "**NFS v3.**" not in text:
        return text
    head, nfs = text.split("**NFS v3.**", 1)
    return (head.rstrip() + "\n\nNFS v3, the file replaced on the server behind an open "
            f"descriptor, each call's answer on stock and the series: {TABLES_LINK}.\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    if a.output:
        doc = summarise(a.runs)
        pathlib.Path(a.output).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        print(f"behaviour: {', '.join(doc)} -> {a.output}")
    else:
        sys.stdout.write(section(a.runs[0]))


if __name__ == "__main__":
    main()
