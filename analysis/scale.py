#!/usr/bin/python3
"""Figures and tables for the scaling and workload study (the harness's
cases tagged scale, and fio).

usage: scale.py RESULTDIR... -o OUTDIR

Each RESULTDIR is what bench/guest-scale.sh wrote (scale-<fs>.json, the
harness's files, and fio-<fs>-<stat_type>.json, directly or under raw/),
usually a vm/run.sh run directory, whose vm.env names the kernel variant.
Writes to OUTDIR: depth, files, ls, fio (PNG and SVG; fio only when fio
ran) and scale.md (the markdown() section: depth, directory size, ls -l
per entry, fio against ours).

from_harness() arranges a harness file's cases by study (depth, files,
ls) for the figures; results.json keeps that arrangement (bench/schema.json,
scale_file).  Values are per call, per file or per entry; in cost mode
they are instructions.  "cpu" is the CPU
time of the process that ran the pass (waits left out): under -icount
sleep=off a wait for a device shows on the monotonic clock as a jump to
the next timer deadline, so cold monotonic figures are not latencies.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import TABLES_LINK, fmt, md_table  # noqa: E402

FS_ORDER = ["ext4", "tmpfs", "nfs3", "nfs3.actimeo0", "nfs4"]
DEPTH_CALLS = ["stat", "statx.BASIC_STATS", "statx.TYPE|MODE"]
LS_WAYS = ["getdents+fstatat", "getdents+statx.ls", "getdents+statx.ls.DONT_SYNC",
           "getdents+statx.BASIC_STATS", "debian_ls_syscalls"]
FIO_TYPES = ["stat", "lstat", "statx"]


def _vm_env(d):
    """The boot's record (vm/run.sh's vm.env): variant, release, started, ..."""
    env = d / "vm.env"
    if not env.exists():
        return {}
    return dict(line.split("=", 1) for line in env.read_text().splitlines() if "=" in line)


def _variant(d):
    return _vm_env(d).get("variant", d.name)


def _point(c):
    """A case's figures as a study point: clock and CPU time, the dcache
    around its last sample, NFS operations per file (or per call)."""
    p = {k: c[k] for k in ("median", "samples", "cpu_median", "cpu_samples",
                           "dentries_before", "dentries_after")}
    if "nfs_ops_per_call" in c:
        p["nfs_ops_per_entry"] = c["nfs_ops_per_call"]
    return p


def _study_name(c):
    """depth.D.CALL, files.N.stat.HEAT, ls.N.WAY.HEAT: (what, heat)."""
    what = c["name"].split(".", 2)[2]
    if what.endswith((".hot", ".cold")):
        what, heat = what.rsplit(".", 1)
        return what, heat
    return what, None


def from_harness(doc):
    """A harness file of the scaling study (cases tagged scale), arranged by
    study: depth series by call, and per directory size the stat pass and
    each way of listing, hot and cold; the real ls's per-entry figure is
    its CPU time over the empty directory's (N = 0), per entry."""
    cases = [c for c in doc["cases"] if "scale" in c["tags"]]
    if not cases:
        raise SystemExit(f"{doc.get('label')}: no cases tagged scale")
    out = {"schema": 1, "kind": "scale", "fs": doc["label"], "mode": doc["mode"],
           "unit": doc["unit"], "env": dict(doc["env"]), "overhead": doc["overhead"]}
    depth = [c for c in cases if "depth" in c["tags"]]
    series = {}
    for c in depth:
        call, _ = _study_name(c)
        s = series.setdefault(call, {"mask": c["mask"], "mask_name": c["mask_name"],
                                     "calls_per_sample": c["iters"], "points": {}})
        s["points"][c["param"]] = _point(c)
    depths = sorted({c["param"] for c in depth})
    out["depth"] = {"depths": depths, "series": {
        call: {**s, "points": [s["points"][d] for d in depths]} for call, s in series.items()}}
    ls = [c for c in cases if "ls" in c["tags"]]
    ls_mask = [c for c in ls if _study_name(c)[0] == "getdents+statx.ls"]
    if ls_mask:
        out["ls_mask"], out["ls_mask_name"] = ls_mask[0]["mask"], ls_mask[0]["mask_name"]
    files = {}
    empty = {}
    for c in cases:
        if "depth" in c["tags"]:
            continue
        what, heat = _study_name(c)
        if c["param"] == 0:
            empty[heat] = _point(c)
            continue
        f = files.setdefault(c["param"], {"n": c["param"], "stat": {}, "ls": {}})
        if "files" in c["tags"]:
            f["stat"][heat] = _point(c)
        else:
            way = "real_ls" if "real-ls" in c["tags"] else what
            f["ls"].setdefault(way, {})[heat] = _point(c)
    for f in files.values():
        rl = f["ls"].get("real_ls", {})
        for heat in list(rl):
            if heat in empty:
                rl[f"{heat}_per_entry"] = (rl[heat]["cpu_median"] -
                                           empty[heat]["cpu_median"]) / f["n"]
    if empty:
        out["real_ls_empty"] = empty
    out["files"] = [files[n] for n in sorted(files)]
    out["env"]["n_values"] = sorted(files)
    return out


def load(dirs):
    """One entry per kernel variant: {"name", "dir", "scale": {fs: doc},
    "fio": {(fs, type): fio job}}; directories of the same variant (one
    boot per part of the study) make one entry."""
    out = []
    for d in map(pathlib.Path, dirs):
        base = d / "raw" if list((d / "raw").glob("scale-*.json")) else d
        same = [r for r in out if r["name"] == _variant(d)]
        r = same[0] if same else {"name": _variant(d), "dir": str(d), "scale": {}, "fio": {}}
        for f in sorted(base.glob("scale-*.json")):
            try:
                doc = sr.validate(json.loads(f.read_text()), "harness_file")
            except (ValueError, sr.SchemaError) as e:
                raise SystemExit(f"{f}: not a harness file: {e}")
            r["scale"][doc["label"]] = from_harness(doc)
            if _vm_env(d).get("started"):
                r["scale"][doc["label"]]["env"]["booted"] = _vm_env(d)["started"]
        for f in sorted(base.glob("fio-*-*.json")):
            _, fs, typ = f.stem.split("-", 2)
            r["fio"][(fs, typ)] = json.loads(f.read_text())["jobs"][0]
        if not r["scale"]:
            raise SystemExit(f"{d}: no scale-*.json")
        if not same:
            out.append(r)
    return out


def for_results(r):
    """A run directory's scaling data as merge.py keeps it in results.json
    (JSON keys, fio jobs cut to their latencies)."""
    return {"name": r["name"], "scale": r["scale"],
            "fio": {f"{fs}-{typ}": {"read": {"clat_ns": {
                k: job["read"]["clat_ns"][k] for k in ("mean", "N", "percentile")}}}
                for (fs, typ), job in r["fio"].items()}}


def from_results(doc):
    """The inverse of for_results, for every entry of doc["scale"]."""
    return [{"name": e["name"], "dir": "", "scale": e["scale"],
             "fio": {tuple(k.split("-", 1)): v for k, v in e["fio"].items()}}
            for e in doc.get("scale", [])]


def _fss(r):
    return sorted(r["scale"], key=lambda x: (FS_ORDER.index(x) if x in FS_ORDER else 99, x))


def _unit(results):
    doc = next(iter(results[0]["scale"].values()))
    return doc["unit"], doc["mode"]


def mode_note(results):
    unit, mode = _unit(results)
    if mode == "cost":
        return "cost mode: instructions per call (QEMU -icount shift=0)"
    return f"{mode} mode: {unit} per call"


def fio_ours(doc, typ):
    """Our figure for the call fio's stat_type makes, and what it is."""
    n1000 = [f for f in doc["files"] if f["n"] == 1000]
    if typ in ("stat", "lstat") and n1000:
        return (n1000[0]["stat"]["hot"]["median"],
                "stat(\"fN\"), 1000-file directory, hot")
    pts = doc["depth"]["series"]["statx.BASIC_STATS"]["points"]
    return (pts[4]["median"],
            "statx(BASIC_STATS), 5-component path (fio's absolute path has 5)")


def rpcs_per_entry(point):
    """"GETATTR / LOOKUP" RPCs per directory entry, counted around the
    point's last measured pass (a cold one's drop of the caches included);
    "–" off NFS."""
    ops = point.get("nfs_ops_per_entry")
    if not ops:
        return "–"
    return " / ".join(f"{ops.get(k, 0):.2f}" for k in ("GETATTR", "LOOKUP"))


def fio_row(job):
    c = job["read"]["clat_ns"]
    return c["percentile"]["50.000000"], c["mean"], c["N"]


def markdown(results):
    """A short report section: the tables of the scaling study."""
    unit, mode = _unit(results)
    u = "instructions" if mode == "cost" else unit
    out = ["## Scaling and workloads (the harness's scale cases, fio)", "",
           f"{mode_note(results)}.  Hot figures follow one unmeasured pass; "
           "cold ones follow `sync; echo 3 > /proc/sys/vm/drop_caches` and are given "
           "twice: by the monotonic clock (\"wall\") and by the CPU time of the "
           "process (\"cpu\", waits left out: in cost mode an idle wait jumps the "
           "clock to the next timer deadline, so cold wall figures are not device "
           "latencies; on NFS over loopback, cpu also leaves out knfsd's own work, which "
           "wall holds).  tmpfs cannot drop its dentries: its cold is hot.", ""]
    for r in results:
        booted = sorted({d["env"]["booted"] for d in r["scale"].values() if "booted" in d["env"]})
        out += [f"### {r['name']}" + (f" (booted {' and '.join(booted)})" if booted else ""),
                "", f"Path depth, hot, {u} per call:", ""]
        rows = []
        for fs in _fss(r):
            s = r["scale"][fs]["depth"]["series"]
            for call in DEPTH_CALLS:
                p = s[call]["points"]
                rows.append([fs, call] + [fmt(p[d - 1]["median"]) for d in (1, 2, 4, 8, 16)] +
                            [fmt((p[15]["median"] - p[0]["median"]) / 15)])
        out += [md_table(["fs", "call", "depth 1", "2", "4", "8", "16", "per component"],
                         rows), ""]

        out += [f"Directory size: stat() of every file by name, {u} per file:", ""]
        rows = []
        for fs in _fss(r):
            for f in r["scale"][fs]["files"]:
                st = f["stat"]
                rows.append([fs, f"{f['n']:,}", fmt(st["hot"]["median"]),
                             fmt(st["cold"]["median"]), fmt(st["cold"]["cpu_median"]),
                             f"{st['hot']['dentries_after']:,}",
                             f"{st['cold']['dentries_before']:,} → "
                             f"{st['cold']['dentries_after']:,}"])
        out += [md_table(["fs", "files", "hot", "cold (wall)", "cold (cpu)",
                          "dentries (hot)", "dentries (cold pass)"], rows), ""]

        doc0 = next(iter(r["scale"].values()))
        out += [f"`ls -l` per entry ({u}, cpu), at each file system's largest "
                f"directory; `statx.ls` is coreutils 9.1's mask "
                f"({doc0['ls_mask_name']}); `debian_ls_syscalls` is what Debian 12's "
                "ls -l calls per entry (statx by \"dir/name\" with AT_NO_AUTOMOUNT, "
                "lgetxattr, getxattr); real ls is /bin/ls -l, its CPU time over an "
                "empty directory's, per entry:", ""]
        rows = []
        for fs in _fss(r):
            f = r["scale"][fs]["files"][-1]
            for way in (w for w in LS_WAYS if w in f["ls"]):
                p = f["ls"][way]
                rows.append([fs, f"{f['n']:,}", way, fmt(p["hot"]["cpu_median"]),
                             fmt(p["cold"]["cpu_median"]),
                             rpcs_per_entry(p["hot"]), rpcs_per_entry(p["cold"])])
            rl = f["ls"]["real_ls"]
            rows.append([fs, f"{f['n']:,}", "real /bin/ls -l", fmt(rl["hot_per_entry"]),
                         fmt(rl["cold_per_entry"]), "", ""])
        out += [md_table(["fs", "entries", "way", "hot", "cold",
                          "GETATTR / LOOKUP per entry, hot", "cold"], rows), ""]

        if r["fio"]:
            out += [f"fio 3.33 `filestat` (1000 files, 3 loops, clocksource=clock_gettime) "
                    f"against ours, {u} per operation.  fio's figure holds its clock read "
                    "and glibc's wrapper, and its percentiles are its histogram's buckets "
                    "(the mean is exact); its statx is realpath() (getcwd, readlink) and "
                    "statx(-1, absolute path, 0, STATX_ALL):", ""]
            rows = []
            for (fs, typ), job in sorted(r["fio"].items(),
                                         key=lambda kv: (_fss(r).index(kv[0][0])
                                                         if kv[0][0] in r["scale"] else 99,
                                                         FIO_TYPES.index(kv[0][1]))):
                med, mean, n = fio_row(job)
                ours, what = fio_ours(r["scale"][fs], typ) if fs in r["scale"] else (None, "")
                rows.append([fs, typ, fmt(mean), fmt(med), f"{n:,}", fmt(ours), what,
                             fmt(mean - ours) if ours is not None else "–"])
            out += [md_table(["fs", "stat_type", "fio mean", "fio median (bucketed)", "ops",
                              "ours", "our call", "fio mean − ours"], rows), ""]
    return "\n".join(out)


def figures(results, outdir):
    plt = sr.pyplot()
    outdir.mkdir(parents=True, exist_ok=True)
    note = mode_note(results)
    unit, mode = _unit(results)
    ylab = "instructions" if mode == "cost" else unit
    styles = ["-", "--", ":", "-."]
    made = []

    def save(fig, name):
        made.append(sr.save_figure(fig, outdir, name))

    fss = []
    for r in results:
        fss += [x for x in _fss(r) if x not in fss]

    # Path depth.
    fig, axs = plt.subplots(1, len(fss), figsize=(5.0 * len(fss), 4.0), squeeze=False)
    for ax, fs in zip(axs[0], fss):
        for ri, r in enumerate(results):
            if fs not in r["scale"]:
                continue
            d = r["scale"][fs]["depth"]
            for ci, call in enumerate(DEPTH_CALLS):
                y = [p["median"] for p in d["series"][call]["points"]]
                ax.plot(d["depths"], y, styles[ri % 4], marker="o", ms=3, color=f"C{ci}",
                        label=f"{call} ({r['name']})" if len(results) > 1 else call)
        ax.set_title(fs, fontsize=10)
        ax.set_xlabel("path depth (components, relative path)")
        ax.set_ylabel(f"{ylab} per call")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axs[0][0].legend(fontsize=8)
    fig.suptitle(f"Cost per call against path depth, hot cache ({note})", fontsize=11)
    save(fig, "depth")

    # Directory size, hot and cold.
    fig, axs = plt.subplots(1, len(fss), figsize=(4.6 * len(fss), 4.0), squeeze=False,
                            sharey=True)
    for ax, fs in zip(axs[0], fss):
        for ri, r in enumerate(results):
            if fs not in r["scale"]:
                continue
            fl = r["scale"][fs]["files"]
            n = [f["n"] for f in fl]
            sfx = f" ({r['name']})" if len(results) > 1 else ""
            ax.plot(n, [f["stat"]["hot"]["median"] for f in fl], styles[ri % 4],
                    marker="o", color="C0", label="hot" + sfx)
            ax.plot(n, [f["stat"]["cold"]["cpu_median"] for f in fl], styles[ri % 4],
                    marker="s", color="C3", label="cold, cpu" + sfx)
            ax.plot(n, [f["stat"]["cold"]["median"] for f in fl], styles[ri % 4],
                    marker="^", color="C1", alpha=0.6, label="cold, wall (waits as jumps)" + sfx)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(fs, fontsize=10)
        ax.set_xlabel("files in the directory")
        if ax is axs[0][0]:
            ax.set_ylabel(f"{ylab} per file (stat by name)")
        ax.grid(alpha=0.3, which="both")
    axs[0][0].legend(fontsize=8)
    fig.suptitle(f"stat() of every file of a directory, hot and after drop_caches ({note})",
                 fontsize=11)
    save(fig, "files")

    # ls -l per entry: hot on the top row, cold below (one line per way in
    # each panel, not eleven).
    fig, axs = plt.subplots(2, len(fss), figsize=(4.6 * len(fss), 8.2), squeeze=False,
                            sharey=True)
    r = results[0]
    for col, fs in enumerate(fss):
        if fs not in r["scale"]:
            continue
        fl = r["scale"][fs]["files"]
        n = [f["n"] for f in fl]
        for row, heat in enumerate(("hot", "cold")):
            ax = axs[row][col]
            for wi, way in enumerate(LS_WAYS):
                if any(way not in f["ls"] for f in fl):
                    continue
                ax.plot(n, [f["ls"][way][heat]["cpu_median"] for f in fl], "-", marker="o",
                        ms=3, color=f"C{wi}", label=way)
            ok = [(f["n"], f["ls"]["real_ls"][f"{heat}_per_entry"]) for f in fl
                  if f["ls"]["real_ls"].get(f"{heat}_per_entry", 0) > 0]
            if ok:
                ax.plot(*zip(*ok), "-", marker="D", ms=3, color="k",
                        label="real /bin/ls -l (child CPU over the empty directory's)")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{fs}, {heat}" + (" (after drop_caches)" if heat == "cold" else ""),
                         fontsize=10)
            if row == 1:
                ax.set_xlabel("entries in the directory")
            if col == 0:
                ax.set_ylabel(f"{ylab} per entry (CPU time)")
            ax.grid(alpha=0.3, which="both")
    # Every way drawn anywhere, once (a file system may lack one).
    legend = {}
    for ax in axs.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(lab, h)
    fig.legend(legend.values(), legend.keys(), loc="upper center", ncol=3,
               fontsize=8, bbox_to_anchor=(0.5, 0.0))
    fig.suptitle(f"ls -l per entry: fstatat against statx masks, and the real ls "
                 f"({note}; {r['name']})", fontsize=11)
    save(fig, "ls")

    # fio's filestat against ours, per operation.
    fio = [r for r in results if r["fio"]]
    if fio:
        fig, axs = plt.subplots(1, len(fio), figsize=(8.5 * len(fio), 5.4), squeeze=False)
        for ax, r in zip(axs[0], fio):
            keys = sorted(((fs, typ) for fs, typ in r["fio"] if fs in r["scale"]),
                          key=lambda k: (_fss(r).index(k[0]), FIO_TYPES.index(k[1])
                                         if k[1] in FIO_TYPES else 99))
            ours = {k: fio_ours(r["scale"][k[0]], k[1]) for k in keys}
            w = 0.27
            for i, (name, val) in enumerate((
                    ("fio mean", lambda k: fio_row(r["fio"][k])[1]),
                    ("fio median (its histogram's bucket)", lambda k: fio_row(r["fio"][k])[0]),
                    ("ours: the same call in our harness", lambda k: ours[k][0]))):
                ax.bar([x + (i - 1) * w for x in range(len(keys))], [val(k) for k in keys],
                       width=w, color=["C1", "C7", "C0"][i], label=name)
            top = max(fio_row(r["fio"][k])[1] for k in keys)
            for x, k in enumerate(keys):
                mean = fio_row(r["fio"][k])[1]
                ax.text(x, max(mean, ours[k][0]) + top * 0.02,
                        f"fio − ours\n{mean - ours[k][0]:+,.0f}", ha="center", va="bottom",
                        fontsize=8)
            ax.set_ylim(0, top * 1.2)
            ax.set_xticks(range(len(keys)))
            ax.set_xticklabels([f"{fs}\n{typ}" for fs, typ in keys], fontsize=9)
            ax.set_xlabel("file system and fio's stat_type")
            ax.set_ylabel(f"{ylab} per stat call")
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3,
                      frameon=False)
            whats = {}
            for typ in FIO_TYPES:
                for x in sorted({ours[k][1] for k in keys if k[1] == typ}):
                    whats.setdefault(x, []).append(typ)
            notes = [f"ours for fio's {', '.join(t)}: {x}" for x, t in whats.items()]
            notes.append("fio's figure holds its clock read and glibc's wrapper; its statx is "
                         "realpath() and statx(-1, absolute path, 0, STATX_ALL)")
            if mode == "cost":
                notes.append("fio's clat_ns is guest ns: one per instruction")
            ax.text(0.0, -0.2, "\n".join(notes), transform=ax.transAxes, fontsize=7.5,
                    va="top")
            if len(fio) > 1:
                ax.set_title(r["name"], fontsize=10, pad=24)
        fig.suptitle(f"fio's filestat engine against our harness, per stat call\n({note}; "
                     f"{', '.join(r['name'] for r in fio)})", fontsize=11)
        fig.tight_layout()
        save(fig, "fio")
    return made


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("scaling", "Scaling and workloads")


def section(r):
    runs = from_results(r.doc)
    if not runs:
        return "No scaling study in these results (bench/run.sh runs it).\n"
    text = markdown(runs)
    return text.split("\n", 2)[2] if text.startswith("## ") else text


def brief(r):
    """REPORT.md's version: the path-depth table; directory size, ls -l
    per entry and fio in the tables file (their figures stay)."""
    text = section(r)
    paras = text.split("\n\n")
    drop = ("Directory size", "`ls -l` per entry", "fio ")
    out, skip = [], False
    for para in paras:
        if para.startswith(drop):
            skip = True
            continue
        if skip and para.startswith("|"):
            skip = False
            continue
        skip = False
        out.append(para)
    return "\n\n".join(out).rstrip() + (f"\n\nDirectory size, `ls -l` per entry and fio "
                                          f"against ours, table by table: {TABLES_LINK}.\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("resultdirs", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    results = load(a.resultdirs)
    out = pathlib.Path(a.output)
    made = figures(results, out)
    (out / "scale.md").write_text(markdown(results) + "\n")
    for m in made:
        print(f"figure: {m}")
    print(f"tables: {out / 'scale.md'}")


if __name__ == "__main__":
    main()
