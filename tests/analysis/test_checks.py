"""tests/checks.py, the shell tests' checks: each passes on good data and
fails on each kind of bad data (fixtures made here, not measured)."""
import copy
import pathlib
import sys

import pytest

from conftest import make_case, make_config

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import checks  # noqa: E402
import drift  # noqa: E402
import statx_results as sr  # noqa: E402


def test_determinism():
    a = {"cases": [{"name": "calib.loop_2000", "median": 2001.0},
                   {"name": "getppid", "median": 332.0}, {"name": "null", "median": 0.0}]}
    assert checks.determinism(a, copy.deepcopy(a))[1] == []
    for name, value, why in (("getppid", 335.0, "differ"), ("null", 5.0, "overhead"),
                             ("calib.loop_2000", 1990.0, "not 2000")):
        b = copy.deepcopy(a)
        for c in b["cases"] + (a["cases"] if name == "calib.loop_2000" else []):
            if c["name"] == name:
                c["median"] = value
        bad = checks.determinism(a, b)[1]
        assert bad and any(why in x for x in bad), (name, bad)
    assert checks.determinism(a, {"cases": []})[1]


def test_tags():
    listing = ("fstat       raw fstat(fd)      main fd p2 (quick)\n"
               "glibc.fstat wrapper fstat()    main fd p3\n"
               "stat        raw newfstatat     main\n")
    cfg = make_config("stock", "ext4", [make_case("glibc.fstat", 10.0, tags=["main", "fd", "p3"])])
    doc = {"schema": 1, **{k: cfg[k] for k in ("label", "fs", "mode", "unit", "env",
                                                 "overhead", "cases")}}
    out, bad = checks.tags(doc, listing)
    assert bad == [] and "glibc.fstat" in out[0]
    more = copy.deepcopy(doc)
    more["cases"].append(make_case("fstat", 5.0, tags=["main", "fd", "p2"]))
    assert any("--list says" in b for b in checks.tags(more, listing)[1])
    untagged = copy.deepcopy(doc)
    untagged["cases"][0]["tags"] = ["main"]
    assert any("tags ['main']" in b for b in checks.tags(untagged, listing)[1])
    broken = copy.deepcopy(doc)
    del broken["schema"]
    assert any("bench/schema.json" in b for b in checks.tags(broken, listing)[1])
    assert checks.tags(doc, "stat raw newfstatat main\n")[1]


def test_hostcal():
    seqs = [{"name": n, "what": n, "size": 4096 if n.startswith("rep_") else 0,
             "icount": 4096 if n.startswith("rep_") else 1, "ns": 1.0, "ns_range": [0.9, 1.1],
             "tsc": 2.0, "loop_iters": 3.0} for n in sorted(checks.HOSTCAL_SEQUENCES)]
    doc = {"schema": 1, "kind": "hostcal", "cpu": "x", "family": 23, "model": 49,
           "erms": False, "fsrm": False, "batch": 2000, "samples": 3, "sequences": seqs}
    assert checks.hostcal(doc)[1] == []
    short = copy.deepcopy(doc)
    short["sequences"] = [x for x in seqs if x["name"] != "mfence"]
    assert any("missing ['mfence']" in b for b in checks.hostcal(short)[1])
    wrong = copy.deepcopy(doc)
    next(x for x in wrong["sequences"] if x["name"] == "rep_stosb_160")["icount"] = 1
    assert any("rep_stosb_160: icount 1" in b for b in checks.hostcal(wrong)[1])
    broken = copy.deepcopy(doc)
    del broken["cpu"]
    assert any("bench/schema.json" in b for b in checks.hostcal(broken)[1])


def timemode_doc(n, met):
    samples = [1.0 + (k * 7 % n) / 100 for k in range(n)]
    m, lo, hi, cover = sr.median_ci(samples)
    r_lo, r_hi, _ = sr.median_ci_ranks(n)
    return {"ci_target": 0.5, "cases": [
        {"name": name, "samples": samples, "median": m, "ci95": [lo, hi],
         "ci_ranks": [r_lo, r_hi], "ci_level": cover, "ci_met": met}
        for name in ("null", "getppid", "stat", "fstat")]}


def test_timemode():
    assert checks.timemode(timemode_doc(31, True), timemode_doc(40, False))[1] == []
    assert checks.timemode(timemode_doc(30, True), timemode_doc(40, False))[1]
    assert checks.timemode(timemode_doc(31, True), timemode_doc(40, True))[1]
    off = timemode_doc(31, True)
    off["cases"][1]["ci95"] = [2.0, 3.0]
    assert any("misses the median" in b for b in checks.timemode(off, timemode_doc(40, False))[1])
    # The earlier rule's pair for 31 samples, s[9]..s[22] 0-based: not the ranks named.
    old = timemode_doc(31, True)
    s = sorted(old["cases"][2]["samples"])
    old["cases"][2].update(ci95=[s[9], s[22]], ci_ranks=[10, 23])
    assert any("the rule's" in b for b in checks.timemode(old, timemode_doc(40, False))[1])
    # A harness that wrote no ranks is not the one under test.
    bare = timemode_doc(31, True)
    del bare["cases"][3]["ci_ranks"], bare["cases"][3]["ci_level"]
    assert any("the rule's" in b for b in checks.timemode(bare, timemode_doc(40, False))[1])
    warned = timemode_doc(31, True)
    warned["warning"] = "TCG"
    assert checks.timemode(warned, timemode_doc(40, False))[1]


def quick_doc():
    configs = []
    for v in ("stock", "patched"):
        configs.append(make_config(v, "floor", [
            make_case("null", 0.0), make_case("nosys.134", 257.0, ret=-1, errno="ENOSYS"),
            make_case("nosys.174", 255.0, ret=-1, errno="ENOSYS")]))
        empty = 6400.0 if v == "stock" else 1180.0
        null_fails = v == "stock"
        configs.append(make_config(v, "ext4", [
            make_case("fstatat.empty", empty), make_case("statx.fd.empty", empty + 140),
            make_case("statx.fd.null", 7000.0 if null_fails else 1300.0,
                      ret=-1 if null_fails else 0, errno="EFAULT" if null_fails else "")]))
        configs.append(make_config(v, "tmpfs", [make_case("stat", 3900.0)]))
        for label in ("nfs3", "nfs3.actimeo0", "nfs4", "nfs4.actimeo0"):
            configs.append(make_config(v, label, [make_case("stat", 90000.0, getattr_=1.0)]))
    per = {"5": {"instructions": 19, "handler": "a"}, "262": {"instructions": 26, "handler": "b"},
           "134": {"instructions": 20, "handler": "ni"}, "174": {"instructions": 18, "handler": "ni"}}
    # Cost mode's busy time (merge.py): the clock's own where nothing idles,
    # a longer clock on NFS.
    for c in configs:
        for x in c["cases"]:
            nfs = c["label"].startswith("nfs")
            x.update(clock_median=x["median"] * (2 if nfs else 1),
                     clock_samples=[v * (2 if nfs else 1) for v in x["samples"]],
                     clock_ci95=[v * (2 if nfs else 1) for v in x["ci95"]])
    return {"schema": 1, "run_id": "quick", "mode": "cost", "configs": configs,
            "dispatch": {"stock": {"per_nr": per}, "patched": {"per_nr": copy.deepcopy(per)}}}


def test_quick():
    doc = quick_doc()
    d = {"cases": drift.compare(doc, doc), "counts": {}}
    out, bad = checks.quick(doc, d)
    assert bad == [], bad
    assert any("GETATTR per stat()" in x for x in out)


@pytest.mark.parametrize("breakage, why", [
    (lambda doc, d: doc["configs"].pop(3), "missing"),
    (lambda doc, d: doc["configs"][8]["cases"][0].update(median=9000.0), "not below stock"),
    (lambda doc, d: doc["configs"][0]["cases"][0].update(median=4.0), "null case"),
    (lambda doc, d: doc["configs"][4]["cases"][0].pop("nfs_ops_per_call"), "no NFS op counts"),
    (lambda doc, d: doc["configs"][9]["cases"][0].update(ret=-1, errno="EIO"), "ret -1"),
    (lambda doc, d: doc["dispatch"]["patched"]["per_nr"]["134"].update(instructions=30),
     "dispatch count"),
    (lambda doc, d: d["cases"].pop(), "does not place"),
    (lambda doc, d: doc["configs"][2]["cases"][0].pop("clock_median"), "no busy time"),
    (lambda doc, d: doc["configs"][2]["cases"][0].update(clock_samples=[1.0] * 5),
     "is not the clock"),
    (lambda doc, d: doc["configs"][4]["cases"][0].update(clock_median=10.0), "above the clock"),
])
def test_quick_catches(breakage, why):
    doc = quick_doc()
    d = {"cases": drift.compare(doc, doc), "counts": {}}
    breakage(doc, d)
    bad = checks.quick(doc, d)[1]
    assert any(why in b for b in bad), bad


def scale_run(flat=None, sizes=(10, 100, 1000), fio=True):
    ways = ("a", "b")
    r = {"scale": {}, "fio": {}}
    for fs in ("ext4", "tmpfs", "nfs3"):
        pts = [{"median": 100.0 + (0 if fs == flat else i)} for i in range(16)]
        r["scale"][fs] = {"depth": {"series": {"stat": {"points": pts}}},
                          "files": [{"n": n, "stat": {"cold": {"cpu_median": 9.0}},
                                     "ls": dict({w: {"hot": {"cpu_median": 5.0}} for w in ways},
                                                real_ls={"hot_per_entry": 3.0})}
                                    for n in sizes]}
    if fio:
        r["fio"] = {(fs, t): {} for fs in ("ext4", "tmpfs") for t in ("stat", "statx")}
    return r, ways, ("stat", "statx")


def test_scale():
    assert checks.scale(*scale_run())[1] == []
    assert any("depth 16" in b for b in checks.scale(*scale_run(flat="tmpfs"))[1])
    assert any("directory sizes" in b for b in checks.scale(*scale_run(sizes=(10, 100)))[1])
    assert any("no fio" in b for b in checks.scale(*scale_run(fio=False))[1])
    r, ways, types = scale_run()
    del r["scale"]["ext4"]["files"][0]["stat"]["cold"]
    assert checks.scale(r, ways, types)[1] == ["ext4: no cold stat pass at 10"]
    r, ways, types = scale_run()
    del r["scale"]["nfs3"]
    assert checks.scale(r, ways, types)[1] == ["no scale-nfs3.json"]


def test_cli_refuses_unknown_checks():
    with pytest.raises(SystemExit):
        checks.main(["checks.py", "nonsense"])


def test_study_selection():
    listing = ("depth.%ld.stat  raw  newfstatat(path)  scale depth\n"
               "files.%ld.stat.hot  raw  x  scale files\n"
               "ls.%ld.real_ls.hot  raw  y  scale real-ls\n"
               "stat  raw  newfstatat(path)  main\n")

    def case(name, param, per):
        return {"name": name, "param": param, "per": per, "cold": False, "cpu_median": 1.0,
                "tags": ["scale"]}
    cases = ([case(f"depth.{d}.stat", d, "call") for d in (1, 2)] +
             [case(f"files.{n}.stat.hot", n, "file") for n in (10, 100)] +
             [case(f"ls.{n}.real_ls.hot", n, "call") for n in (0, 10, 100)])
    doc = {"cases": cases}
    bad = [b for b in checks.study(doc, listing, 100)[1] if "harness file" not in b]
    assert bad == []
    assert any("above --max-files 10" in b for b in checks.study(doc, listing, 10)[1])
    doc["cases"] = cases[:-1]
    assert any("real_ls.hot ran at [10], other dir rows at [10, 100]" in b
               for b in checks.study(doc, listing, 100)[1])
    doc["cases"] = [c for c in cases if c["param"] != 0]
    assert any("per directory with it" in b for b in checks.study(doc, listing, 100)[1])
    assert any("did not run" in b for b in checks.study({"cases": []}, listing, 100)[1])


def _behaviour():
    def call(ret, recs, errno="0", ino=13):
        return {"ret": ret, "errno": errno, "ino": ino, "records": {r: 1 for r in recs}}
    lookup = ["SYSCALL", "CWD", "PATH"]
    stock_audit = {"fstat": call(0, ["SYSCALL"]), "fstatat_empty": call(0, lookup),
                   "fstatat_null": call(-1, ["SYSCALL"], "EFAULT"),
                   "statx_empty": call(0, lookup), "statx_null": call(-1, ["SYSCALL"], "EFAULT"),
                   "stat_path": call(0, lookup), "statx_path": call(0, lookup)}
    fast = {c: call(0, ["SYSCALL"]) for c in ("fstat", "fstatat_empty", "fstatat_null",
                                             "statx_empty", "statx_null")}
    patched_audit = {**fast, "stat_path": call(0, lookup), "statx_path": call(0, lookup)}
    # AT_FDCWD: "" looked up on both; NULL refused by stock, looked up as
    # "" by the series.
    for c in ("cwd_fstatat_empty", "cwd_statx_empty"):
        stock_audit[c] = call(0, lookup)
        patched_audit[c] = call(0, lookup)
    for c in ("cwd_fstatat_null", "cwd_statx_null"):
        stock_audit[c] = call(-1, ["SYSCALL"], "EFAULT")
        patched_audit[c] = call(0, lookup)

    def cwd(null_ok):
        def one(ret, errno, g, l):
            return {"ret": ret, "errno": errno, "ino": 0, "getattr": g, "lookup": l}
        rows = {}
        for c in ("cwd_fstatat_empty", "cwd_statx_empty", "cwd_fstatat_null", "cwd_statx_null"):
            ok = null_ok or "null" not in c
            rows[c] = {"before": one(0 if ok else -1, "0" if ok else "EFAULT", 1 if ok else 0, 0),
                       "after": one(-1, "ESTALE" if ok else "EFAULT", 2 if ok else 0, 1 if ok else 0)}
        return {"nfs3.actimeo0": rows}

    def res(ret, errno, ino):
        return {"ret": ret, "errno": errno, "ino": ino, "size": 4}

    def nfs(after_fd):
        calls = {c: {"before": res(0, "0", 15), "after": after_fd}
                 for c in ("fstat", "fstatat_empty", "fstatat_null", "statx_empty", "statx_null")}
        calls["stat_path"] = {"before": res(0, "0", 15), "after": res(0, "0", 16)}
        return {"nfs3.actimeo0": {"calls": calls, "server": {"ino": 16, "size": 24}}}
    return {"stock": {"audit": stock_audit, "nfs": nfs(res(-1, "ESTALE", 0)), "cwd": cwd(False)},
            "patched": {"audit": patched_audit, "nfs": nfs(res(-1, "ESTALE", 0)),
                        "cwd": cwd(True)}}


def test_behaviour():
    assert checks.behaviour(_behaviour())[1] == []
    for change, why in (
            (lambda d: d["patched"]["audit"]["fstatat_empty"]["records"].update(PATH=1),
             "SYSCALL record alone"),
            (lambda d: d["stock"]["audit"]["fstatat_empty"]["records"].pop("PATH"),
             "no PATH record"),
            (lambda d: d["patched"]["audit"]["statx_null"].update(ret=-1), "returned -1"),
            (lambda d: d["patched"]["nfs"]["nfs3.actimeo0"]["calls"]["statx_empty"].update(
                after={"ret": 0, "errno": "0", "ino": 15, "size": 4}), "fstat"),
            (lambda d: d["stock"]["nfs"]["nfs3.actimeo0"]["calls"]["stat_path"]["after"].update(
                ino=15), "stat(path) after"),
            (lambda d: d.pop("stock"), "want the base"),
            # series v2: "" with AT_FDCWD took the descriptor path
            (lambda d: d["patched"]["audit"]["cwd_statx_empty"].update(records={"SYSCALL": 1}),
             "cwd_statx_empty returned 0 with records"),
            (lambda d: d["patched"]["audit"]["cwd_fstatat_null"].update(ret=-1, errno="EFAULT"),
             "cwd_fstatat_null returned -1"),
            (lambda d: d["patched"]["cwd"]["nfs3.actimeo0"]["cwd_statx_null"]["after"].update(
                getattr=1), "cwd_statx_null"),
            (lambda d: d["stock"].pop("cwd"), "no run with the working directory")):
        d = _behaviour()
        change(d)
        bad = checks.behaviour(d)[1]
        assert bad and any(why in x for x in bad), (why, bad)


def test_mix_wants_each_window_on_its_own_clock():
    import mix
    classes = dict.fromkeys(mix.CLASSES, 0)
    classes.update(memory=4, other=2)
    case = {"classes": classes, "total": 6, "windows": [6, 6], "interrupted": False,
            "waited": False, "diff_pct": 0.0, "kernel": {"call": 0, "ret": 0, "indirect": 0},
            "ops": {}, "rep": [], "clock": [[6, 6], [6, 6]]}
    doc = {"tolerance_pct": 1.0, "variants": {"patched": {"ext4": {"x": case}}}}
    assert checks.mix(doc)[1] == []
    for clock, why in (([], "no window has its own clock"),
                       ([[6, 6], [6, 9]], "a window of 6 instructions, its clock 9")):
        bad = copy.deepcopy(doc)
        bad["variants"]["patched"]["ext4"]["x"]["clock"] = clock
        assert any(why in x for x in checks.mix(bad)[1]), why
