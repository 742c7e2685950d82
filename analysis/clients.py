#!/usr/bin/python3
"""Real clients (ls, stat, find, du): what bench/guest-clients.sh recorded.

usage: clients.py DIR [-o FILE] [--figures OUTDIR]
                        DIR: a run's clients/<variant>/clients (or the
                        directory holding it, with the guest's vm.env)
       clients.py DIR --split CONFIG   (in the guest, after a session)

For each configuration (ext4, nfs3, nfs3.actimeo0) and client: the
stat-family system calls the client made with their masks and flags
(traces/client_calls.bt), what getattr was asked on each file system
(the series' stat:vfs_getattr_enter), its CPU time from perf stat's
task-clock (cost mode: instructions, waits left out) and the NFS RPCs
its run caused (mountstats before and after).  Prints JSON (to FILE
with -o; merge.py keeps it in results.json as "clients", keyed by
variant).

--split: bench/guest-clients.sh traces all of a configuration's clients
in one bpftrace session (traces/client_calls.bt -, maps keyed by pid and
comm) and leaves DIR/CONFIG.session.bt, CONFIG.warm (the pids of the
unmeasured warm-up runs) and CONFIG.order ("N COMM" per measured run, in
the order they ran).  Pids grow, so the measured runs of one comm are its
non-warm pids in ascending order; this writes each run's CONFIG.N.bt in
the single-client form the rest of this program reads, and fails if the
counts disagree.

--figures OUTDIR draws OUTDIR/clients.png and .svg (report.py draws the
same from a results.json): per client, the CPU time of its whole run
(exec, loader and locale included, so not a cost per file) and the
GETATTR RPCs its run sent per file of the directory.
"""
import argparse
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import TABLES_LINK, fmt, md_table  # noqa: E402

CALL = re.compile(r"@calls\[(\w+), (\d+), (\d+)\]: (\d+)")
# getattr by device (major, minor: the events carry no file system name),
# named from the guest's mount table (guest-clients.sh's DIR/devices).
GETATTR = re.compile(r"@getattr\[(\d+), (\d+), (\d+), (\d+)\]: (\d+)")
FLAGS = [(0x100, "NOFOLLOW"), (0x800, "NO_AUTOMOUNT"), (0x1000, "EMPTY_PATH"),
         (0x2000, "FORCE_SYNC"), (0x4000, "DONT_SYNC")]


def flag_names(flags):
    names = [n for bit, n in FLAGS if flags & bit]
    rest = flags & ~sum(bit for bit, _ in FLAGS)
    if rest:
        names.append(hex(rest))
    return "|".join(names) or "0"


def devices(d):
    """{"MAJOR:MINOR": file system type} from D/devices (a line per mount:
    the device as /proc/self/mountinfo gives it, then the type)."""
    p = pathlib.Path(d) / "devices"
    if not p.exists():
        return {}
    return dict(line.split()[:2] for line in p.read_text().splitlines() if len(line.split()) >= 2)


def parse_run(base, devs=None):
    """One client run: BASE.{cmd,bt,perf,rpc} (BASE: CONFIG.N); DEVS names
    the devices getattr ran on (devices())."""
    devs = devs or {}
    def part(ext):
        return pathlib.Path(f"{base}.{ext}")
    rec = {"client": part("cmd").read_text().strip(),
           "calls": [], "getattr": [], "task_clock_ns": None, "rpcs": {}}
    bt = part("bt").read_text(errors="replace")
    for m in CALL.finditer(bt):
        rec["calls"].append({"syscall": m.group(1), "mask": int(m.group(2)),
                             "flags": int(m.group(3)), "count": int(m.group(4))})
    for m in GETATTR.finditer(bt):
        dev = f"{m.group(1)}:{m.group(2)}"
        rec["getattr"].append({"fs": devs.get(dev, dev), "mask": int(m.group(3)),
                               "flags": int(m.group(4)), "count": int(m.group(5))})
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


PCALL = re.compile(r"^@p(calls|getattr)\[(\d+), ([^,]+), (.*)$")


def split_session(session, warm, order):
    """session: client_calls.bt's "-" output; warm: warm-up pids; order:
    [(n, comm)] of the measured runs.  {n: single-client text}."""
    by_pid = {}
    for line in session.splitlines():
        m = PCALL.match(line)
        if m:
            by_pid.setdefault((m.group(3), int(m.group(2))), []).append(
                f"@{m.group(1)}[{m.group(4)}")
    out = {}
    for comm in dict.fromkeys(c for _, c in order):
        runs = [n for n, c in order if c == comm]
        pids = sorted(p for c, p in by_pid if c == comm and p not in warm)
        if len(pids) != len(runs):
            raise ValueError(f"{comm}: {len(runs)} measured runs but pids {pids} "
                             f"(warm-ups {sorted(warm)})")
        for n, pid in zip(runs, pids):
            out[n] = "\n".join(by_pid[(comm, pid)]) + "\n"
    return out


def split_dir(d, cfg):
    d = pathlib.Path(d)
    warm = {int(x) for x in (d / f"{cfg}.warm").read_text().split()}
    order = [(int(n), c) for n, c in (line.split() for line in
                                      (d / f"{cfg}.order").read_text().splitlines() if line)]
    for n, text in split_session((d / f"{cfg}.session.bt").read_text(errors="replace"),
                                 warm, order).items():
        (d / f"{cfg}.{n}.bt").write_text(text)
    return len(order)


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
                    "runs": [parse_run(str(p)[:-len(".cmd")], devices(d)) for p in runs]}
    return out


def _config_label(cfg, c):
    if not c["mount"].startswith("nfs"):
        return cfg
    return cfg + (" (actimeo=0)" if "acregmax=0" in c["mount"] else " (attribute cache on)")


def figures(runs, mode, outdir):
    """runs: {variant: load()'s result}, results.json's "clients".  The
    figure, or nothing without runs; returns the PNGs made."""
    series = [(v, cfg, c) for v, cfgs in (runs or {}).items()
              for cfg, c in sorted(cfgs.items(), key=lambda kv: (kv[1]["mount"].startswith("nfs"),
                                                                 "acregmax=0" in kv[1]["mount"],
                                                                 kv[0]))
              if c["runs"]]
    if not series:
        return []
    plt = sr.pyplot()
    clients = []
    for _, _, c in series:
        clients += [r["client"] for r in c["runs"] if r["client"] not in clients]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 1.0 + 0.75 * len(clients)), sharey=True)
    h = 0.8 / len(series)
    many = len(runs) > 1
    local = []
    for i, (v, cfg, c) in enumerate(series):
        by = {r["client"]: r for r in c["runs"]}
        ys = [y - 0.4 + (i + 0.5) * h for y in range(len(clients))]
        label = (f"{v}, " if many else "") + _config_label(cfg, c)
        cpu = [(y, by[n]["task_clock_ns"]) for y, n in zip(ys, clients)
               if n in by and by[n]["task_clock_ns"]]
        a1.barh([y for y, _ in cpu], [x / 1e6 for _, x in cpu], height=h, color=f"C{i}",
                label=label)
        for y, x in cpu:
            a1.text(x / 1e6, y, f" {x / 1e6:.1f}", va="center", fontsize=7)
        if not c["mount"].startswith("nfs"):
            local.append(label)
            continue
        ga = [(y, by[n]["rpcs"].get("GETATTR", 0) / c["files"]) for y, n in zip(ys, clients)
              if n in by and c["files"]]
        a2.barh([y for y, _ in ga], [x for _, x in ga], height=h, color=f"C{i}", label=label)
        for y, x in ga:
            a2.text(x, y, f" {x:.2f}", va="center", fontsize=7)
    a1.set_yticks(range(len(clients)))
    a1.set_yticklabels(clients, fontsize=9)
    a1.invert_yaxis()
    a1.set_xlabel("CPU time of the whole run (perf task-clock), " +
                  ("M instructions" if mode == "cost" else "ms") +
                  "\nexec, loader and locale included", fontsize=9)
    a2.set_xlabel("GETATTR RPCs per file in the directory\n(the run's RPCs / files)",
                  fontsize=9)
    if local:
        a2.text(0.98, 0.02, f"{', '.join(local)}: local, no RPCs", transform=a2.transAxes,
                ha="right", va="bottom", fontsize=8, color="grey")
    for ax in (a1, a2):
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlim(right=ax.get_xlim()[1] * 1.1)
    a1.legend(fontsize=8, loc="lower right", title="configuration", title_fontsize=8)
    files = sorted({c["files"] for _, _, c in series})
    fig.suptitle(f"Real clients over a directory of {' or '.join(map(str, files))} files, "
                 f"a subdirectory and a symlink ({', '.join(runs)}; {sr.mode_note(mode)})",
                 fontsize=11)
    fig.tight_layout()
    return [sr.save_figure(fig, outdir, "clients")]


def _vm_env(d):
    """The guest's vm.env beside or above a clients directory."""
    for p in (d / "vm.env", d.parent / "vm.env"):
        if p.exists():
            return sr.read_env(p)
    return {}


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("clients", "Real clients")


def section(r, network_only=False):
    """Every client run as a table per mount (NETWORK_ONLY: only the NFS
    mounts without an attribute cache, where the mask matters most)."""
    runs = r.doc.get("clients")
    if not runs:
        return "No real-client runs in these results (bench/run.sh runs them).\n"
    out = []
    for variant, cfgs in runs.items():
        for cfg, c in cfgs.items():
            if network_only and "acregmax=0" not in c["mount"]:
                continue
            fs = "nfs" if cfg.startswith("nfs") else cfg.split(".")[0]
            what = c["mount"].split()[0] + (", actimeo=0" if "acregmax=0" in c["mount"] else "")
            out += [f"{variant}, {cfg} ({what}): a directory of {c['files']} files, "
                    "a subdirectory and a symlink; each client run once before, to warm "
                    "caches and translation:", ""]
            rows, seen = [], set()
            for run in c["runs"]:
                seen |= {x["mask"] for x in run["calls"] if x["syscall"] == "statx"}
                seen |= {x["mask"] for x in run["getattr"] if x["fs"] == fs}
                calls = "; ".join(
                    f"{x['syscall']}" + (f" `{x['mask']:#x}`" if x["syscall"] == "statx" else "") +
                    f" {flag_names(x['flags'])} ×{x['count']}"
                    for x in sorted(run["calls"], key=lambda x: -x["count"]))
                ga = "; ".join(f"`{x['mask']:#x}` {flag_names(x['flags'])} ×{x['count']}"
                               for x in run["getattr"] if x["fs"] == fs) or "–"
                rp = run["rpcs"]
                rows.append([f"`{run['client']}`", calls, ga,
                             fmt(run["task_clock_ns"] / 1e6, 1) if run["task_clock_ns"] else "–",
                             " ".join(f"{k} {v}" for k, v in rp.items() if v) or "–"])
            out += [md_table(["client", "stat-family calls (mask, flags ×n)",
                              f"getattr on {fs} (mask, flags ×n)",
                              "CPU (M instr.)" if r.mode == "cost" else "CPU (ms)",
                              "NFS RPCs"], rows), ""]
            if seen:
                out += ["Masks: " + "; ".join(f"`{m:#x}` {sr.mask_name(m) or 'none'}"
                                              for m in sorted(seen)) + ".", ""]
    return "\n".join(out)


def brief(r):
    """REPORT.md's version: the NFS mounts without an attribute cache,
    where the mask changes what a client costs; the others in the tables
    file."""
    return (section(r, network_only=True).rstrip() +
            f"\n\nThe same clients on the other mounts: {TABLES_LINK}.")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("-o", "--output")
    ap.add_argument("--figures", metavar="OUTDIR")
    ap.add_argument("--split", metavar="CONFIG")
    a = ap.parse_args()
    if a.split:
        try:
            n = split_dir(a.dir, a.split)
        except (OSError, ValueError) as e:
            sys.exit(f"clients.py --split {a.split}: {e}")
        print(f"clients: {a.split}: {n} runs split out of one session")
        return
    doc = load(a.dir)
    if not doc:
        sys.exit(f"clients.py: nothing under {a.dir}")
    if a.figures:
        d = pathlib.Path(a.dir)
        env = _vm_env(d / "clients" if (d / "clients").is_dir() else d)
        for m in figures({env.get("variant", "?"): doc}, env.get("mode", "cost"), a.figures):
            print(f"figure: {m}", file=sys.stderr)
    text = json.dumps(doc, indent=1) + "\n"
    if a.output:
        pathlib.Path(a.output).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
