#!/usr/bin/python3
"""The checks the shell tests make on what their runs wrote, one function
each (tests/analysis/test_checks.py gives each passing and failing data).

usage: checks.py determinism BOOT1.json BOOT2.json   (tests/boot-determinism.sh)
       checks.py timemode LOOSE.json TIGHT.json      (tests/bench-timemode.sh)
       checks.py tags TAGS.json LIST                 (tests/bench-timemode.sh)
       checks.py study STUDY.json LIST MAX_FILES [SKIP]  (tests/bench-timemode.sh)
       checks.py hostcal HOSTCAL.json                (tests/hostcal.sh)
       checks.py mix MIX.json                        (tests/mix.sh)
       checks.py quick RESULTS.json DRIFT.json       (tests/bench-quick.sh)
       checks.py scale SCALEDIR                      (tests/scale-quick.sh)
       checks.py behaviour BEHAVIOUR.json            (tests/behaviour.sh)

Each prints what it found, then a "FAIL: ..." line per problem, and exits
1 when there is one.
"""
import fnmatch
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "analysis"))
import statx_results as sr  # noqa: E402


def read_json(path):
    with open(path) as f:
        return json.load(f)


def determinism(a, b):
    """Two boots' harness files: the calibration cases and getppid agree
    within 0.1% (a stray interrupt in a median), the empty body is zero,
    and the plain 2000-instruction loop counts as one."""
    out, bad = [], []
    ma = {c["name"]: c["median"] for c in a["cases"]}
    mb = {c["name"]: c["median"] for c in b["cases"]}
    if set(ma) != set(mb) or not ma:
        return out, [f"the boots ran different cases: {sorted(set(ma) ^ set(mb))}"]
    for name in sorted(ma):
        x, y = ma[name], mb[name]
        rel = abs(x - y) / max(abs(x), 1.0)
        out.append(f"{name:24} boot1 {x:10.1f} boot2 {y:10.1f} diff {rel * 100:.4f}%")
        if name == "null" and (abs(x) > 1 or abs(y) > 1):
            bad.append(f"null costs {x}, {y}: the overhead is not subtracted exactly")
        elif name != "null" and rel > 0.001:
            bad.append(f"{name}: {x} and {y} differ by {rel * 100:.3f}%")
    loop = ma.get("calib.loop_2000")
    if loop is None:
        bad.append("no calib.loop_2000 case")
    else:
        out.append(f"calib.loop_2000 = {loop:.1f} (2000 instructions plus call and return)")
        if not 2000 <= loop <= 2020:
            bad.append(f"calib.loop_2000 counts {loop}, not 2000 to 2020")
    return out, bad


def timemode(loose, tight):
    """Time mode's stopping rule: a loose target stops at the first check
    (31 samples, every interval met), an impossible one at the limit (40,
    none met); each interval brackets its median and is the order
    statistics the analysis's rule names, with their coverage
    (statx_results.median_ci); the empty body's interval is recorded but
    does not count."""
    bad = []
    for name, doc, want_n, want_met in (("loose", loose, 31, True), ("tight", tight, 40, False)):
        names = sorted(c["name"] for c in doc["cases"])
        if names != sorted("null,getppid,stat,fstat".split(",")):
            bad.append(f"{name}: cases {names}")
        if "ci_target" not in doc:
            bad.append(f"{name}: no ci_target")
        if "warning" in doc:
            bad.append(f"{name}: a TCG warning outside a TCG guest")
        for c in doc["cases"]:
            lo, hi = c["ci95"]
            if len(c["samples"]) != want_n:
                bad.append(f"{name} {c['name']}: {len(c['samples'])} samples, want {want_n}")
            if c["name"] != "null" and c["ci_met"] is not want_met:
                bad.append(f"{name} {c['name']}: ci_met {c['ci_met']}, want {want_met}")
            if not lo <= c["median"] <= hi:
                bad.append(f"{name} {c['name']}: interval {lo}..{hi} misses the median {c['median']}")
            ranks = list(sr.median_ci_ranks(len(c["samples"]))[:2])
            _, wlo, whi, cover = sr.median_ci(c["samples"])
            if (c.get("ci_ranks") != ranks or [lo, hi] != [wlo, whi]
                    or abs(c.get("ci_level", -1) - cover) > 1e-9):
                bad.append(f"{name} {c['name']}: interval {lo}..{hi} at ranks "
                           f"{c.get('ci_ranks')} ({c.get('ci_level')}), the rule's {wlo}..{whi} "
                           f"at {ranks} ({cover:.4f})")
    out = [] if bad else ["time mode: stops at the target (31 samples) or at the limit (40)"]
    return out, bad


def config_table(path=None):
    """bench/guest-bench.sh's CONFIGS table: [{label, fs, scope, vers,
    opts, netem}], the one place the file-system configurations are
    written."""
    path = path or pathlib.Path(__file__).resolve().parent.parent / "bench" / "guest-bench.sh"
    m = re.search(r"^CONFIGS='\n(.*?)^'", pathlib.Path(path).read_text(), re.S | re.M)
    keys = ("label", "fs", "scope", "vers", "opts", "netem")
    return [dict(zip(keys, line.split())) for line in m.group(1).splitlines() if line.strip()]


# A QUICK run: the floor and every configuration but the full run's (and
# AFS's, which only the afs variant's own boot runs).
QUICK_LABELS = {"floor"} | {c["label"] for c in config_table()
                            if c["scope"] not in ("full", "afs")}


def quick(doc, drift):
    """A QUICK run of stock and patched: every configuration, the empty
    body at zero, NFS operations counted, errors only where expected, the
    series below stock on the descriptor paths, the dispatch count against
    its measured check, and every case placed against the reference."""
    out, bad = [], []
    for v in ("stock", "patched"):
        have = {c["label"] for c in doc["configs"] if c["variant"] == v}
        if QUICK_LABELS - have:
            bad.append(f"{v}: missing {sorted(QUICK_LABELS - have)}")
    for c in doc["configs"]:
        cases = {x["name"]: x for x in c["cases"]}
        # The empty body through the same loop costs nothing once the
        # harness's overhead is subtracted: exact in cost mode.
        if "null" in cases and abs(cases["null"]["median"]) > 1:
            bad.append(f"{c['variant']} {c['label']}: null case {cases['null']['median']}")
        if c["label"].startswith("nfs"):
            for x in c["cases"]:
                if "nfs_ops_per_call" not in x:
                    bad.append(f"{c['label']} {x['name']}: no NFS op counts")
        # Cost mode: every case's figure is its busy time (merge.py), and
        # where nothing idles (a local file system) the busy time and the
        # clock count the same instructions: exactly equal, sample for
        # sample.  On NFS the clock may only be longer (its idle jumps).
        for x in c["cases"]:
            if c["mode"] != "cost":
                continue
            if "clock_median" not in x:
                bad.append(f"{c['variant']} {c['label']} {x['name']}: no busy time (--busy)")
            elif c["fs"] in ("ext4", "tmpfs") or not c["fs"]:
                if x["clock_samples"] != x["samples"]:
                    bad.append(f"{c['variant']} {c['label']} {x['name']}: busy {x['samples']} "
                               f"is not the clock {x['clock_samples']} on a local file system")
            elif x["clock_median"] < x["median"] - 1:
                bad.append(f"{c['variant']} {c['label']} {x['name']}: busy {x['median']} "
                           f"above the clock {x['clock_median']}")
        for x in c["cases"]:
            expect_fail = ((c["variant"] == "stock" and x["name"] in ("statx.fd.null", "fstatat.null"))
                           or x["name"].startswith("nosys."))
            if (x["ret"] < 0) != expect_fail:
                bad.append(f"{c['variant']} {c['label']} {x['name']}: ret {x['ret']} {x['errno']}")
    st = sr.case(doc, "patched", "nfs3.actimeo0", "stat")
    if st is None:
        bad.append("no patched nfs3.actimeo0 stat case")
    else:
        ga = st["nfs_ops_per_call"]["GETATTR"]
        out.append(f"NFS v3 actimeo=0: {ga:.2f} GETATTR per stat()")
        if ga <= 0:
            bad.append("NFS v3 with actimeo=0 made no GETATTR for stat()")
    for name in ("fstatat.empty", "statx.fd.empty"):
        s, p = sr.case(doc, "stock", "ext4", name), sr.case(doc, "patched", "ext4", name)
        if s is None or p is None:
            bad.append(f"ext4 {name}: missing")
            continue
        out.append(f"ext4 {name}: stock {s['median']:.0f}, patched {p['median']:.0f}")
        if not p["median"] < s["median"]:
            bad.append(f"patched {name} is not below stock")
    # bench/dispatch.py's count of x64_sys_call()'s compare tree against
    # the two ENOSYS cases: one handler, two depths; the measured
    # difference is the counted one (cost mode is exact).
    for v in ("stock", "patched"):
        d = doc.get("dispatch", {}).get(v)
        a, b = sr.case(doc, v, "floor", "nosys.134"), sr.case(doc, v, "floor", "nosys.174")
        if not d or a is None or b is None:
            bad.append(f"{v}: no dispatch counts (bench/dispatch.py) or no ENOSYS cases")
            continue
        per = d["per_nr"]
        want = per["134"]["instructions"] - per["174"]["instructions"]
        got = a["median"] - b["median"]
        out.append(f"{v}: dispatch newfstat {per['5']['instructions']}, newfstatat "
                   f"{per['262']['instructions']}; syscall(134) - syscall(174): counted "
                   f"{want:+d}, measured {got:+.1f}")
        if per["134"]["handler"] != per["174"]["handler"] or abs(got - want) > 0.5:
            bad.append(f"{v}: dispatch count {want:+d} against measured {got:+.1f} "
                       f"({per['134']['handler']}, {per['174']['handler']})")
    # The run says how far each of its cases is from the reference.
    placed = {(r["boot"], r["label"], r["case"]) for r in drift["cases"]
              if r["verdict"] != "missing"}
    unplaced = set(sr.table(doc)) - placed
    if unplaced:
        bad.append(f"drift.json does not place {len(unplaced)} cases, e.g. {sorted(unplaced)[:3]}")
    else:
        out.append(f"drift: {drift['counts']}")
    return out, bad


def scale(r, ls_ways, fio_types):
    """The scaling study's quick run: depth 16 dearer than depth 1 on
    every file system, directories of 10, 100 and 1000 files each with
    every ls way measured, a cold stat pass and the real ls per entry,
    fio's stat types on ext4 and tmpfs."""
    out, bad = [], []
    for fs in ("ext4", "tmpfs", "nfs3"):
        doc = r["scale"].get(fs)
        if not doc:
            bad.append(f"no scale-{fs}.json")
            continue
        depth = doc["depth"]["series"]["stat"]["points"]
        if len(depth) != 16 or not depth[15]["median"] > depth[0]["median"] > 0:
            bad.append(f"{fs}: depth 16 does not cost more than depth 1")
            continue
        ns = [f["n"] for f in doc["files"]]
        if ns != [10, 100, 1000]:
            bad.append(f"{fs}: directory sizes {ns}")
        for f in doc["files"]:
            for way in ls_ways:
                if not f["ls"][way]["hot"]["cpu_median"] > 0:
                    bad.append(f"{fs}: ls {way} at {f['n']} has no figure")
            if not f["stat"].get("cold", {}).get("cpu_median", 0) > 0:
                bad.append(f"{fs}: no cold stat pass at {f['n']}")
            if "hot_per_entry" not in f["ls"].get("real_ls", {}):
                bad.append(f"{fs}: no real ls per entry at {f['n']}")
        out.append(f"{fs}: stat depth 1 {depth[0]['median']:.0f}, depth 16 {depth[15]['median']:.0f}")
    for fs in ("ext4", "tmpfs"):
        for t in fio_types:
            if (fs, t) not in r["fio"]:
                bad.append(f"no fio {fs} {t}")
    return out, bad


def tags(doc, listing):
    """Selection by tag: the harness's file holds exactly the cases its
    --list gives the tag fd and not the tag p2 (the run's --tags fd
    --skip-tags p2), each with its tags; and the file follows
    bench/schema.json's harness_file."""
    out, bad = [], []
    want = []
    for line in listing.splitlines():
        words = line.replace("(quick)", "").split()
        if "fd" in words[1:] and "p2" not in words[1:]:
            want.append(words[0])
    got = [c["name"] for c in doc["cases"]]
    if not want:
        bad.append("--list gives no case the tag fd without p2")
    if got != want:
        bad.append(f"--tags fd --skip-tags p2 ran {got}, --list says {want}")
    for c in doc["cases"]:
        if "fd" not in c["tags"] or "p2" in c["tags"]:
            bad.append(f"{c['name']}: tags {c['tags']}")
    try:
        sr.validate(doc, "harness_file")
    except sr.SchemaError as e:
        bad.append(f"not a harness file of bench/schema.json: {e}")
    if not bad:
        out.append(f"tags: --tags fd --skip-tags p2 ran {', '.join(got)}")
    return out, bad


def study(doc, listing, max_files, skip=None):
    """A study's selection (--tags scale --max-files MAX_FILES [--skip
    SKIP]): each row --list tags scale (and SKIP does not) ran once per
    parameter, named by its pattern; the
    depth rows at the same depths, the directory rows at the same sizes,
    none above MAX_FILES, a per-file row never at 0 files; a study's
    fields (param, per, cold, CPU time, dcache) on every case."""
    out, bad = [], []
    rows = [line.split()[0] for line in listing.splitlines()
            if "scale" in line.replace("(quick)", "").split()[1:]
            and not (skip and fnmatch.fnmatch(line.split()[0], skip))]
    by_row = {r: [c for c in doc["cases"] if "param" in c and r % c["param"] == c["name"]]
              for r in rows}
    params = {}
    for r, cs in by_row.items():
        kind = "depth" if r.startswith("depth.") else "dir"
        got = sorted(c["param"] for c in cs)
        if not got:
            bad.append(f"row {r} did not run")
            continue
        per_file = cs[0]["per"] == "file"
        if kind == "dir" and (0 in got) == per_file:
            bad.append(f"row {r} ran at {got}: per file without 0, per directory with it")
        got = [p for p in got if p]
        params.setdefault(kind, got)
        if got != params[kind]:
            bad.append(f"row {r} ran at {got}, other {kind} rows at {params[kind]}")
    if sum(len(cs) for cs in by_row.values()) != len(doc["cases"]):
        bad.append("cases that no scale row of --list names")
    if params.get("dir") and max(params["dir"]) > max_files:
        bad.append(f"a directory above --max-files {max_files}: {params['dir']}")
    for c in doc["cases"]:
        if "scale" not in c["tags"] or not {"per", "cold", "cpu_median"} <= set(c):
            bad.append(f"{c['name']}: not a study case ({sorted(c)})")
    try:
        sr.validate(doc, "harness_file")
    except sr.SchemaError as e:
        bad.append(f"not a harness file of bench/schema.json: {e}")
    if not bad:
        out.append(f"study: {len(rows)} rows, depths {params.get('depth')}, "
                   f"directories {params.get('dir')}")
    return out, bad


# What the cycle model weighs: REP string instructions at the kernel's
# sizes, fences, a locked RMW, call/ret, and the plain loop they are read in.
HOSTCAL_SEQUENCES = {"loop_1000", "rep_stosb_4096", "rep_stosb_160", "rep_movsb_4096",
                     "rep_movsb_160", "lfence", "mfence", "lock_add", "call_ret_x10",
                     "asm_call_ret_x10", "ret_thunk_x10", "dropret_x10", "indirect_x10",
                     "retpoline_x10"}


def hostcal(doc):
    """The host calibration's file: bench/schema.json's hostcal, each
    sequence once, every one the model needs, a REP sequence's icount its
    size (QEMU counts an iteration per byte)."""
    out, bad = [], []
    try:
        sr.validate(doc, "hostcal")
    except sr.SchemaError as e:
        return out, [f"not a hostcal file of bench/schema.json: {e}"]
    names = [s["name"] for s in doc["sequences"]]
    if len(set(names)) != len(names):
        bad.append(f"a sequence twice: {names}")
    if HOSTCAL_SEQUENCES - set(names):
        bad.append(f"missing {sorted(HOSTCAL_SEQUENCES - set(names))}")
    for s in doc["sequences"]:
        if s["name"].startswith("rep_") and s["icount"] != s["size"]:
            bad.append(f"{s['name']}: icount {s['icount']}, size {s['size']}")
    if not bad:
        out.append(f"hostcal: {len(names)} sequences on {doc['cpu']}")
    return out, bad


def mix(doc, model=None):
    """analysis/mix.py's file: every case's classes add up to its total,
    its windows are there, each with its own clock and agreeing with it,
    a case with a clean window agrees with cost mode within the file's
    tolerance, and the cycle model weighs every instruction of every case
    on every core."""
    import cycles
    out, bad = [], []
    model = model or cycles.load()
    n = 0
    for v, configs in doc.get("variants", {}).items():
        for label, cases in configs.items():
            for name, m in cases.items():
                where = f"{v}/{label}/{name}"
                n += 1
                if sum(m["classes"].values()) != m["total"]:
                    bad.append(f"{where}: classes add up to {sum(m['classes'].values())}, "
                               f"the total is {m['total']}")
                if not m["windows"]:
                    bad.append(f"{where}: no window")
                if not (m["interrupted"] or m["waited"]) and \
                        abs(m["diff_pct"]) > doc["tolerance_pct"]:
                    bad.append(f"{where}: {m['diff_pct']:+.2f}% from cost mode")
                # Each window against the clock read around it: the same call.
                if not m.get("clock"):
                    bad.append(f"{where}: no window has its own clock (traces/mix.py before "
                               "the harness read it?)")
                for t, c in m.get("clock") or []:
                    if not m["waited"] and abs(t - c) > c * doc["tolerance_pct"] / 100:
                        bad.append(f"{where}: a window of {t} instructions, its clock {c}")
                for core in model["cores"]:
                    try:
                        # Each kernel with its own base's mitigations.
                        cycles.weigh(m, core, model, where, base=cycles.base_of(v))
                    except cycles.ModelError as e:
                        bad.append(str(e))
    if not n:
        bad.append("no case in the mix")
    if not bad:
        out.append(f"mix: {n} cases, each adding up, each window agreeing with its own clock, "
                   f"agreeing with cost mode and weighed on "
                   f"{len(model['cores'])} cores")
    return out, bad


def behaviour(doc):
    """analysis/behaviour.py's summary of stock and the whole series: the
    lookup a call skips is what audit and NFS see.  On stock,
    newfstatat(fd, "") is a lookup (a PATH record) and NULL fails; with the
    series neither leaves a PATH or CWD record, NULL works, and on NFS an
    empty name returns what fstat() returns.  stat(path) keeps its PATH
    record on both, and finds the replaced file without an attribute cache."""
    out, bad = [], []
    ro = sr.roles(list(doc))
    base, series = ro.base, ro.series
    if not base or not series:
        return out, [f"want the base and the whole series, have {sorted(doc)}"]
    a0, a1 = doc[base]["audit"], doc[series]["audit"]
    for k, a in ((base, a0), (series, a1)):
        out.append(f"{k}: " + "; ".join(f"{c} {'+'.join(sorted(x['records']))}"
                                        for c, x in a.items()))
    if "PATH" not in a0["fstatat_empty"]["records"]:
        bad.append(f"{base}: newfstatat(fd, \"\") left no PATH record: was it a lookup?")
    if a0["fstatat_null"]["errno"] != "EFAULT":
        bad.append(f"{base}: newfstatat(fd, NULL) did not fail with EFAULT")
    for c in ("fstatat_empty", "fstatat_null", "statx_empty", "statx_null"):
        x = a1[c]
        if x["ret"] < 0 or set(x["records"]) != {"SYSCALL"}:
            bad.append(f"{series}: {c} returned {x['ret']} with records {x['records']}, "
                       "want success and the SYSCALL record alone")
    for k, a in ((base, a0), (series, a1)):
        if "PATH" not in a["stat_path"]["records"]:
            bad.append(f"{k}: stat(path) left no PATH record")
    for mount, m in doc[series]["nfs"].items():
        f = m["calls"]["fstat"]["after"]
        for c in ("fstatat_empty", "fstatat_null", "statx_empty", "statx_null"):
            x = m["calls"][c]["after"]
            if (x["ret"], x["errno"], x["ino"]) != (f["ret"], f["errno"], f["ino"]):
                bad.append(f"{series} {mount}: {c} after the replacement {x}, fstat {f}")
    for k in (base, series):
        m = doc[k]["nfs"].get("nfs3.actimeo0")
        if not m:
            bad.append(f"{k}: no NFS run without the attribute cache")
            continue
        x = m["calls"]["stat_path"]["after"]
        if x["ret"] < 0 or x["ino"] != m["server"]["ino"]:
            bad.append(f"{k} nfs3.actimeo0: stat(path) after the replacement {x}, "
                       f"the server's file {m['server']}")
    bad += behaviour_cwd(doc, base, series)
    return out, bad


# The working directory's calls, and the call stock answers each the same
# way: "" as itself; NULL, which stock refuses (EFAULT), as "".
CWD_SAME_AS = {"cwd_fstatat_empty": "cwd_fstatat_empty", "cwd_fstatat_null": "cwd_fstatat_empty",
               "cwd_statx_empty": "cwd_statx_empty", "cwd_statx_null": "cwd_statx_empty"}


def behaviour_cwd(doc, base, series):
    """A call with AT_FDCWD and an empty name takes the lookup on the series
    as on stock (upstream v6.13's choice): the same audit records, and on
    NFS, with the working directory replaced on the server, the same answer
    and the same GETATTR and LOOKUP calls.  NULL there, which stock refuses
    with EFAULT, behaves as "" does on stock."""
    bad = []
    a0, a1 = doc[base]["audit"], doc[series]["audit"]
    for c, ref in CWD_SAME_AS.items():
        if c not in a1 or ref not in a0:
            bad.append(f"no audit run of {c} on {series} or of {ref} on {base}")
            continue
        if c != ref and a0.get(c, {}).get("errno") != "EFAULT":
            bad.append(f"{base}: {c} did not fail with EFAULT: {a0.get(c)}")
        x, want = a1[c], a0[ref]
        if (x["ret"], x["records"]) != (want["ret"], want["records"]):
            bad.append(f"{series}: {c} returned {x['ret']} with records {x['records']}; "
                       f"{base}'s {ref}: {want['ret']} with {want['records']}")
    missing = [f"{k}: no run with the working directory replaced on the server"
               for k in (base, series) if not doc[k].get("cwd")]
    if missing:
        return bad + missing
    for mount, rows in doc[series]["cwd"].items():
        ref_rows = doc[base]["cwd"].get(mount)
        if not ref_rows:
            bad.append(f"{base}: no working-directory run on {mount}")
            continue
        for c, ref in CWD_SAME_AS.items():
            for phase in ("before", "after"):
                x = rows.get(c, {}).get(phase)
                want = ref_rows.get(ref, {}).get(phase)
                keys = ("ret", "errno", "getattr", "lookup")
                if not x or not want or [x[k] for k in keys] != [want[k] for k in keys]:
                    bad.append(f"{series} {mount} {phase} the replacement: {c} {x}; "
                               f"{base}'s {ref}: {want}")
    return bad


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    what, args = argv[1], argv[2:]
    if what == "determinism" and len(args) == 2:
        out, bad = determinism(*map(read_json, args))
    elif what == "timemode" and len(args) == 2:
        out, bad = timemode(*map(read_json, args))
    elif what == "study" and len(args) in (3, 4):
        out, bad = study(read_json(args[0]), pathlib.Path(args[1]).read_text(), int(args[2]),
                         *args[3:])
    elif what == "hostcal" and len(args) == 1:
        out, bad = hostcal(read_json(args[0]))
    elif what == "mix" and len(args) == 1:
        out, bad = mix(read_json(args[0]))
    elif what == "tags" and len(args) == 2:
        out, bad = tags(read_json(args[0]), pathlib.Path(args[1]).read_text())
    elif what == "quick" and len(args) == 2:
        out, bad = quick(sr.load(args[0]), read_json(args[1]))
    elif what == "behaviour" and len(args) == 1:
        out, bad = behaviour(read_json(args[0]))
    elif what == "scale" and len(args) == 1:
        import scale as sc
        (r,) = sc.load(args)
        out, bad = scale(r, sc.LS_WAYS, sc.FIO_TYPES)
    else:
        sys.exit(__doc__)
    print("\n".join(out))
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
