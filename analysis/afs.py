"""afs.py - the AFS configuration (issue 19): what a call costs on kafs,
mounting the guest's own OpenAFS cell (vm/afs-lib.sh), with a valid
callback and after another client's write broke it; the file-server
calls each makes; the conformance suite on AFS; beside ext4 and NFS on
the same series from the reference run.

Usage: analysis/afs.py RUNDIR -o analysis/reference/afs.json
           RUNDIR: make afs's results/afs, or make bench's RUN/afs:
           raw/afs.json (the harness) and conformance/output (the TAP)
       analysis/afs.py [AFS_JSON]   print the section
"""
import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import conformance  # noqa: E402
import statx_results as sr  # noqa: E402
from md import TABLES_LINK, fmt, md_table  # noqa: E402

SECTION = ("afs", "AFS: a callback instead of a timeout")
AFS_FILE = pathlib.Path(__file__).resolve().parent / "reference" / "afs.json"
# The suite's check of the mount point inside statx.bench (vm/afs-lib.sh).
MOUNT_POINT_TEST = "global.afs_mount_point_in_volume"
# The table's cases (bench/cases.c): tagged afs, a valid callback, and
# stale, after a break.
TAGS = {"afs", "stale"}


def summarise(rundir):
    """RUNDIR's afs boots; RUNDIR/afs0 (kafs without patches/afs; make
    afs-6.12's afs0-6.12), when there, under "afs0"."""
    d = summarise_one(rundir)
    sub = sorted(pathlib.Path(rundir).glob("afs0*"))
    if len(sub) > 1:
        raise SystemExit(f"{rundir}: more than one kafs without its patch: "
                         + ", ".join(x.name for x in sub))
    if sub:
        d["afs0"] = summarise_one(sub[0])
    return d


def summarise_one(rundir):
    rundir = pathlib.Path(rundir)
    raw = rundir / "raw" / "afs.json"
    if not raw.is_file():
        raise SystemExit(f"{raw}: no AFS results (make afs writes them)")
    h = sr.validate(json.loads(raw.read_text()), "harness_file")
    cases = {}
    # Each case keeps its tags and its row, its place among the harness's
    # cases (bench/cases.c's order): the table's rows come by both.
    for row, c in enumerate(h["cases"]):
        if TAGS & set(c["tags"]) and c.get("errno"):
            raise SystemExit(f"{raw}: case {c['name']} failed ({c['errno']})")
        cases[c["name"]] = {"median": c["median"], "ci95": c["ci95"], "iters": c["iters"],
                            "afs_ops": {k: v for k, v in (c.get("afs_ops_per_call") or {}).items()
                                        if v},
                            "tags": c["tags"], "row": row,
                            **{k: c[k] for k in ("ci_ranks", "ci_level") if k in c}}
    tap = rundir / "conformance" / "output"
    conf = None
    if tap.is_file():
        p = conformance.parse(tap.read_text())
        afs = {n: s for n, s in p["tests"].items() if n.startswith("conf.afs.")
               or n.startswith("global.afs_")}
        if not afs:
            raise SystemExit(f"{tap}: no AFS test ran")
        conf = {"pass": sum(s == "pass" for s in afs.values()),
                "fail": sum(s == "fail" for s in afs.values()),
                "skip": sum(s == "skip" for s in afs.values()),
                "skips": {n: p["skips"][n] for n in afs if n in p["skips"]},
                "failed": sorted(n for n, s in afs.items() if s == "fail"),
                "masks": p["masks"].get("afs", {}),
                "mount_point": afs.get(MOUNT_POINT_TEST, "")}
    env = h["env"]
    started = sr.read_env(rundir / "vm.env").get("started", "")
    d = {"schema": 1, "kind": "afs", "run": rundir.resolve().name, "started": started,
         "release": env.get("release", "?"), "variant": env.get("variant", "?"),
         "servers": env.get("afs_servers", "?"), "mode": h.get("mode", "cost"),
         "cases": cases, "conformance": conf}
    # Every case the section's sentences name (a run without --stale-cmd
    # has no stale one).
    try:
        findings(d, None)
    except KeyError as e:
        raise SystemExit(f"{raw}: no {e.args[0]}")
    return d


def load(path=AFS_FILE):
    path = pathlib.Path(path)
    if not path.is_file():
        return None
    return sr.validate(json.loads(path.read_text()), "afs")


def spread(c):
    lo, hi = c["ci95"]
    return f"{fmt(lo)}–{fmt(hi)}"


def calls(c):
    """A case's file-server calls per call (the breaks it met apart)."""
    ops = {k: v for k, v in c["afs_ops"].items() if k != "CallBack"}
    return ", ".join(f"{v:g} {k}" for k, v in sorted(ops.items())) or "none"


def beside(r, name):
    """The same case on the same series' ext4 and NFS v3 (reference run)."""
    if r is None:
        return {}
    s = r.roles.series
    return {lb: r.case(s, lb, name) for lb in ("ext4", "nfs3", "nfs3.actimeo0")}


def shown(d):
    """The table's cases in a summary: those tagged afs or stale, in the
    harness's order (a valid callback first: the stale rows follow)."""
    cs = d["cases"]
    return sorted((n for n, c in cs.items() if TAGS & set(c["tags"])), key=lambda n: cs[n]["row"])


def table(d, r):
    rows = []
    for n in shown(d):
        c = d["cases"][n]
        # A stale case has no counterpart: the others' cases are hot.
        b = {} if "stale" in c["tags"] else beside(r, n)
        nfs = b.get("nfs3")
        rows.append([f"`{n}`", fmt(c["median"]), spread(c), calls(c),
                     fmt(b["ext4"]["median"]) if b.get("ext4") else "–",
                     fmt(nfs["median"]) if nfs else "–"])
    return md_table(["case", "AFS", "95% interval", "file-server calls per call",
                     "ext4", "NFS v3"], rows)


# What 6.12's kafs does that 6.1's does not, and the guest's answer to it
# (vm/afs-lib.sh afs_client_conf).
LOOKUP_6_12 = ("  (6.12's kafs looks a cell up when a mount first uses it, even one added "
               "with its addresses, and fails the mount (EDESTADDRREQ) when the lookup fails; "
               "the guest gives the lookup an answer through kafs-client's cell database.)")


def booted(d):
    """Which run a summary holds: its boot's start when known (make afs's
    results/afs is no run id), else its run."""
    return f"booted {d['started']}" if d.get("started") else f"run `{d['run']}`"


def carried(ref=AFS_FILE.parent):
    """The AFS patch on every other base that has its make afs-BASE file
    (analysis/reference/afs-BASE.json): the mask with and without it,
    the cost, the call after a break, the conformance suite."""
    out = []
    for path in sorted(ref.glob("afs-*.json")):
        base = path.stem[len("afs-"):]
        d = load(path)
        a0 = d.get("afs0")
        conf = d.get("conformance")
        if not a0 or not conf or not a0.get("conformance"):
            raise SystemExit(f"{path}: make afs-{base} writes both kernels' boots and suites")
        m0 = ", ".join(sorted(set(a0["conformance"]["masks"].values())))
        m1 = ", ".join(sorted(set(conf["masks"].values())))
        s0, s1, bk = a0["cases"]["stat"], d["cases"]["stat"], d["cases"]["stale.stat"]
        out.append(f"On {base} (`make afs-{base}`, {d['release']}, {booted(d)}): "
                   f"stx_mask {m0} without patches/afs/{base}, {m1} with; stat() "
                   f"{fmt(s0['median'])} ({spread(s0)}) without, {fmt(s1['median'])} "
                   f"({spread(s1)}) with, and after a break {fmt(bk['median'])} "
                   f"({calls(bk)}); conformance {conf['pass']} passed, {conf['fail']} "
                   f"failed, {conf['skip']} skipped." + (LOOKUP_6_12 if base == "6.12" else ""))
    return "  ".join(out)


def findings(d, r, extra=""):
    c = d["cases"]
    st, fs, bk = c["stat"], c["fstat"], c["stale.stat"]
    b = beside(r, "stat")
    ext4 = b["ext4"]["median"] if b.get("ext4") else None
    # (A results document without ext4 or NFS leaves them out.)
    bf = beside(r, "fstat")
    out = []
    line = (f"- **Valid callback:** stat() costs {fmt(st['median'])} instructions "
            f"(95%: {spread(st)}), with no call to the fileserver")
    if ext4:
        line += f"; ext4 {fmt(ext4)}"
    if b.get("nfs3"):
        line += f", NFS v3 with its attribute cache {fmt(b['nfs3']['median'])}"
    line += (f".  The excess is in the path walk: fstat() costs {fmt(fs['median'])}"
             + (f" (ext4 {fmt(bf['ext4']['median'])})" if bf.get("ext4") else "") +
             ".  Every statx mask costs the same and FORCE_SYNC fetches nothing "
             f"({fmt(c['statx.BASIC_STATS.FORCE_SYNC']['median'])}): 6.1's afs_getattr() "
             "validates only when it holds no callback promise, and then asks for "
             "every field: the mask reaches no AFS RPC.")
    out.append(line)
    ratio = bk["median"] / st["median"]
    cb = bk["afs_ops"].get("CallBack", 0)
    line = (f"- **After a break** (the peer client appended to the file; the fileserver "
            f"sent this client {cb:g} CB.CallBack per change): the next stat() costs {fmt(bk['median'])} ({spread(bk)}; "
            f"{calls(bk)}), {ratio:.1f}x the cached call; statx(TYPE) "
            f"{fmt(c['stale.statx.TYPE']['median'])}, the same FetchStatus; DONT_SYNC "
            f"{fmt(c['stale.statx.BASIC_STATS.DONT_SYNC']['median'])} with "
            f"{calls(c['stale.statx.BASIC_STATS.DONT_SYNC'])}: it returns the stale "
            "attributes (tests/guest/afs-faults.sh checks the size).  A count after a "
            "break is the whole guest's: kafs, the loopback network and the fileserver's "
            "own work; on real machines the FetchStatus is a network round trip, which "
            "no count shows.")
    nb = beside(r, "statx.BASIC_STATS.FORCE_SYNC").get("nfs3")
    na = beside(r, "stat").get("nfs3.actimeo0")
    if nb and na:
        line += (f" NFS v3 pays one GETATTR on every FORCE_SYNC ({fmt(nb['median'])}) and, "
                 f"without its cache, {na.get('nfs_ops_per_call', {}).get('GETATTR', 0):g} "
                 f"per stat() ({fmt(na['median'])}); AFS pays once per change.")
    out.append(line)
    conf = d.get("conformance")
    if conf:
        out.append(f"- **Conformance on AFS:** {conf['pass']} passed, {conf['fail']} failed, "
                   f"{conf['skip']} skipped, each skip with its reason (no FIFOs, sockets or "
                   "devices: EPERM; ACLs, not mode bits; no inode flags, DIOALIGN or "
                   "attribute-cache timeout).  Times are whole seconds, ctime is mtime "
                   "(a chmod's, this client's clock), no BTIME." +
                   {"pass": "  A mount point inside the volume (to root.cell) is a "
                            "directory with STATX_ATTR_AUTOMOUNT under AT_NO_AUTOMOUNT, and "
                            "stat() stops there; statx() without the flag returns root.cell's "
                            "root, a mount root on a mount of its own.",
                    "fail": "  The mount point inside the volume FAILED its checks "
                            f"({MOUNT_POINT_TEST})."}.get(conf.get("mount_point", ""), ""))
    a0 = d.get("afs0")
    if a0 and conf and a0.get("conformance"):
        m0 = ", ".join(sorted(set(a0["conformance"]["masks"].values())))
        m1 = ", ".join(sorted(set(conf["masks"].values())))
        s0, s1 = a0["cases"]["stat"], c["stat"]
        x0, x1 = a0["cases"]["statx.BASIC_STATS"], c["statx.BASIC_STATS"]
        out.append(f"- **patches/afs:** 6.1's kafs returns stx_mask {m0} whatever is asked: "
                   "it claims ATIME, CTIME and BLOCKS, which AFS does not keep (afs_getattr() "
                   "has reported them through generic_fillattr() since statx() came in, "
                   f"commit a528d35e8bfc).  With the patch: {m1}.  Cost: "
                   f"stat() {fmt(s0['median'])} ({spread(s0)}) without, {fmt(s1['median'])} "
                   f"({spread(s1)}) with; statx() {fmt(x0['median'])} ({spread(x0)}) against "
                   f"{fmt(x1['median'])} ({spread(x1)})." + (f"  {extra}" if extra else ""))
        line = symlink_line(a0["cases"], c)
        if line:
            out.append(line)
    return out


def symlink_line(c0, c1):
    """What patches/afs's second patch (symlinks get afs_getattr()) does to
    lstat() of a symlink this client holds no callback promise on: C0
    without patches/afs, C1 with; None when the run had no such case
    (older files)."""
    if "stale.lstat" not in c0 or "stale.lstat" not in c1:
        return None
    l0, l1 = c0["stale.lstat"], c1["stale.lstat"]
    return ("- **Symlinks (patches/afs, patch 2):** lstat() of a symlink kafs holds no "
            "callback promise on (made anew before each call) makes "
            f"{calls(l0).replace('none', 'no call')} without the patch ({fmt(l0['median'])} "
            f"instructions, {spread(l0)}) and {calls(l1)} with it ({fmt(l1['median'])}, "
            f"{spread(l1)}): afs_getattr() validates the symlink.")


# The symlink table in patches/afs's patch 2 (and its 6.12 copy): its head
# line through the line naming the file it comes from.
SYMLINK_HEAD = f"  {'':24}{'without':>9}{'with':>8}"
SYMLINK_TABLE = re.compile("^" + re.escape(SYMLINK_HEAD) +
                           r"\n(?:.*\n)*?\(statx-study: analysis/reference/[^\n]*, case stale\.lstat\.\)$",
                           re.MULTILINE)


def symlink_table(d, name):
    """Patch 2's table from summary D (kept as analysis/reference/NAME):
    lstat() of a symlink with no promise, without the patch and with it."""
    l0, l1 = d["afs0"]["cases"]["stale.lstat"], d["cases"]["stale.lstat"]

    def n(c):
        return f"{c['afs_ops'].get('FetchStatus', 0):g}"
    return "\n".join([SYMLINK_HEAD,
                      f"  {'FetchStatus calls':24}{n(l0):>9}{n(l1):>8}",
                      f"  {'instructions':24}{fmt(l0['median']):>9}{fmt(l1['median']):>8}",
                      "", f"(statx-study: analysis/reference/{name}, case stale.lstat.)"])


def fill(text, block):
    """TEXT (a patch) with its symlink table made BLOCK: in the message
    only, never in the diff; one table, or an error."""
    head, sep, rest = text.partition("\n---\n")
    found = SYMLINK_TABLE.findall(head)
    if len(found) != 1:
        raise SystemExit(f"afs: {len(found)} symlink tables in the message, want one")
    return head.replace(found[0], block) + sep + rest


def section(r=None, path=AFS_FILE):
    d = load(path)
    if d is None:
        return f"No AFS run ({pathlib.Path(path).name} is missing; `make afs` writes it).\n"
    head = (f"kafs on {d['release']} (the whole series with kafs, RxRPC and veth built in) "
            f"mounting the guest's own cell: {d['servers']} ({booted(d)}); "
            "instructions per call, cost mode; ext4 and NFS v3 from the reference run's "
            "same series.")
    return "\n".join([head, "", *findings(d, r, carried()), "", table(d, r), ""])


def brief(r=None, path=AFS_FILE):
    d = load(path)
    if d is None:
        return section(r, path)
    return "\n".join(findings(d, r, carried())) + f"  Every case: {TABLES_LINK}.\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path", nargs="?", default=str(AFS_FILE))
    ap.add_argument("-o", "--output")
    ap.add_argument("--fill", metavar="PATCH",
                    help="write the symlink table of the summary written (-o) into PATCH")
    a = ap.parse_args()
    if a.fill and not a.output:
        ap.error("--fill needs -o: the table comes from the summary it writes")
    if a.output:
        d = sr.validate(summarise(a.path), "afs")
        pathlib.Path(a.output).write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
        print("\n".join(findings(d, None)))
        if a.fill:
            patch = pathlib.Path(a.fill)
            text = patch.read_text()
            new = fill(text, symlink_table(d, pathlib.Path(a.output).name))
            if new != text:
                patch.write_text(new)
                print(f"filled {patch}")
    else:
        print(section(None, a.path), end="")


if __name__ == "__main__":
    main()
