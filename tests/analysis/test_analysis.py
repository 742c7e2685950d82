import copy
import json
import subprocess

import pytest

import statx_results as sr
import report
import summarize
from conftest import ROOT, make_case, make_config

PY = "/usr/bin/python3"


def test_validate_accepts_fixture(doc):
    assert sr.validate(doc) is doc


@pytest.mark.parametrize("breakage", ["schema", "no_configs", "mode", "case_key", "samples"])
def test_validate_rejects_broken(doc, breakage):
    bad = copy.deepcopy(doc)
    if breakage == "schema":
        bad["schema"] = 99
    elif breakage == "no_configs":
        bad["configs"] = []
    elif breakage == "mode":
        bad["configs"][0]["mode"] = "guess"
    elif breakage == "case_key":
        del bad["configs"][1]["cases"][0]["median"]
    else:
        bad["configs"][1]["cases"][0]["samples"] = []
    with pytest.raises(sr.SchemaError):
        sr.validate(bad)


def test_table_and_lookup(doc):
    t = sr.table(doc)
    assert t[("stock [init_on_alloc=0]", "ext4", "stat")]["median"] == 3700.0
    assert sr.case(doc, "patched", "ext4", "fstatat.empty")["median"] == 1160.0
    assert sr.case(doc, "patched", "xfs", "stat") is None


def test_median_ci_brackets_median():
    m, lo, hi = sr.median_ci([10, 11, 9, 10, 12, 10, 9, 11, 10, 10])
    assert lo <= m <= hi
    assert m == 10
    assert sr.median_ci([5, 5, 5]) == (5, 5, 5)


def test_verdict_cost_mode_threshold():
    base = make_case("stat", 1000.0)
    assert sr.verdict(base, make_case("stat", 1004.0), "cost", 0.5)[1] == "ok"
    d, v = sr.verdict(base, make_case("stat", 1006.0), "cost", 0.5)
    assert v == "regressed" and d == pytest.approx(0.6)
    assert sr.verdict(base, make_case("stat", 900.0), "cost", 0.5)[1] == "improved"


def test_verdict_time_mode_needs_significance():
    base = make_case("stat", 100.0, samples=[100, 101, 99, 100, 102, 98, 100, 101])
    noisy = make_case("stat", 101.0, samples=[101, 99, 100, 102, 100, 98, 101, 100])
    slow = make_case("stat", 110.0, samples=[110, 111, 109, 110, 112, 108, 110, 111])
    assert sr.verdict(base, noisy, "time", 0.5)[1] == "ok"
    assert sr.verdict(base, slow, "time", 0.5)[1] == "regressed"


def test_summary_keeps_medians_drops_samples(doc):
    doc["configs"][1]["cases"][0]["samples"] = [7669.0, 7670.0, 7668.0]
    s = summarize.summarize(doc)
    c = sr.case(s, "stock", "ext4", "stat")
    assert c["samples"] == [c["median"]] and c["min"] == 7668.0 and c["max"] == 7670.0


def test_series_section_states_targets(doc):
    text = report.sec_series(report.Report(doc))
    assert "fstatat.empty" in text and "(EFAULT)" in text
    assert "target within 2%" in text
    assert "+2 (+0.03%; target ≤ +0.5%: met)" in text
    assert "`fstatat.empty` (glibc's fstat) is +0.96% from raw `fstat` (target within 2%: met)" in text
    sr.case(doc, "patched", "ext4", "fstatat.empty")["median"] = 1300.0
    text = report.sec_series(report.Report(doc))
    assert "(target within 2%: **not met**)" in text


def test_calibration_section_uses_both_boots(doc):
    text = report.sec_calibration(report.Report(doc))
    assert "4,135" in text and "3,969" in text


def test_sections_replace_and_check(doc, tmp_path):
    res = tmp_path / "summary.json"
    res.write_text(json.dumps(doc))
    md = tmp_path / "REPORT.md"
    md.write_text("hand text\n<!-- generated:series -->\nold\n<!-- end:series -->\nmore\n")
    subprocess.run([PY, str(ROOT / "analysis/report.py"), str(res), "--update", str(md)], check=True)
    text = md.read_text()
    assert text.startswith("hand text\n") and text.endswith("more\n") and "old" not in text
    ok = subprocess.run([PY, str(ROOT / "analysis/report.py"), str(res), "--check", str(md)])
    assert ok.returncode == 0
    md.write_text(text.replace("fstatat.empty", "fstatat.EMPTY", 1))
    bad = subprocess.run([PY, str(ROOT / "analysis/report.py"), str(res), "--check", str(md)],
                         capture_output=True)
    assert bad.returncode != 0


def test_standalone_report_and_figures(doc, tmp_path):
    res = tmp_path / "results.json"
    res.write_text(json.dumps(doc))
    subprocess.run([PY, str(ROOT / "analysis/report.py"), str(res), "-o", str(tmp_path / "out")],
                   check=True)
    out = tmp_path / "out"
    assert (out / "REPORT.md").exists()
    for name in ("filesystems", "series", "nfs"):
        assert (out / f"{name}.png").stat().st_size > 1000
        assert (out / f"{name}.svg").exists()


def test_merge_reads_guest_outputs(tmp_path):
    boot = tmp_path / "guest" / "stock"
    (boot / "raw").mkdir(parents=True)
    (boot / "vm.env").write_text("variant=stock\nkernel_append=\nmode=cost\n")
    raw = make_config("stock", "ext4", [make_case("stat", 10.0)])
    raw = {k: raw[k] for k in ("label", "fs", "mode", "unit", "env", "overhead", "cases")}
    raw["schema"] = 1
    (boot / "raw" / "ext4.json").write_text(json.dumps(raw))
    subprocess.run([PY, str(ROOT / "analysis/merge.py"), str(tmp_path)], check=True)
    merged = sr.load(tmp_path / "results.json")
    assert merged["configs"][0]["variant"] == "stock"
    assert sr.case(merged, "stock", "ext4", "stat")["median"] == 10.0


def test_scripts_have_help():
    for s in ("report.py", "merge.py", "summarize.py"):
        out = subprocess.run([PY, str(ROOT / "analysis" / s), "--help"], capture_output=True,
                             text=True, check=True).stdout
        assert "usage" in out.lower()


def _names(base, long_extra):
    """Name-length cases: short names cost base, 160 bytes and up long_extra more."""
    return [make_case("stat", base), make_case("stat.name159", base + 800),
            make_case("stat.name160", base + 800 + long_extra),
            make_case("stat.name4096", 9000.0, ret=-1, errno="ENAMETOOLONG")]


def test_filename_section_checks_both_targets(doc):
    doc["configs"] += [make_config("stock", "ext4", _names(7800.0, 0)),
                       make_config("series3", "ext4", _names(7810.0, 0)),
                       make_config("patched", "ext4", _names(3900.0, 0))]
    # The name cases sit in configs of their own here; fold them into ext4.
    for v in ("stock", "series3", "patched"):
        cs = [c for c in doc["configs"] if c["variant"] == v and c["label"] == "ext4"
              and not c["kernel_append"]]
        for extra in cs[1:]:
            names = {x["name"] for x in extra["cases"]}
            cs[0]["cases"] = [x for x in cs[0]["cases"] if x["name"] not in names] + extra["cases"]
            doc["configs"].remove(extra)
    text = report.sec_filename(report.Report(doc))
    assert "| case | stock | series3 | patched | patch 4 alone | series vs stock |" in text
    assert "`stat` by path costs 50.0% of stock (target ≤ 55% on Debian's default: met)" in text
    assert "cases more than 0.5% slower than stock: none (target none: met)" in text
    assert "(ENAMETOOLONG)" in text
    sr.case(doc, "patched", "ext4", "stat.name160")["median"] = 8700.0
    text = report.sec_filename(report.Report(doc))
    assert "`stat.name160` +1.16% (target none: **not met**)" in text


def test_patch_numbers_measure_each_patch_on_its_own_base(doc):
    import patch_numbers
    doc["configs"].append(make_config("series3", "ext4", [make_case("stat", 7680.0),
                                                           make_case("fstat", 1150.0)]))
    text = patch_numbers.block(doc, patch_numbers.BLOCKS["@@COST_P1@@"])
    assert "stock" in text and "1-3" in text and "7669" in text and "7680" in text
    assert "patches 1-3 applied" in text
    text = patch_numbers.block(doc, patch_numbers.BLOCKS["@@COST_P4@@"])
    assert "7680" in text and "7671" in text and "patches 1-3 before, 1-4 after" in text


def _tap(tests, fuzz_ok, efault, enoent=10, masks="0x17ff"):
    """kselftest_harness TAP as tests/guest/conformance.sh prints it."""
    lines = ["TAP version 13", f"1..{len(tests)}"]
    for i, (name, status) in enumerate(tests, 1):
        lines.append(f"#  RUN           {name} ...")
        if name.endswith("mask_per_requested_bit"):
            lines.append(f"# statx-mask {name.split('.')[1]} 0x1 {masks}")
        if name.endswith("fuzz"):
            lines.append(f"# fuzz: {name.split('.')[1]} 100 calls, {fuzz_ok} succeeded; "
                         f"EBADF 5 EFAULT {efault} EINVAL 7 ENOENT {enoent} ENOTDIR 3 "
                         "ENAMETOOLONG 1 ELOOP 2")
        if status == "skip":
            lines.append(f"ok {i} # SKIP not on this fs")
        else:
            lines.append(f"{'ok' if status == 'pass' else 'not ok'} {i} {name}")
    return "\n".join(lines) + "\n"


TESTS = [("conf.ext4.mask_per_requested_bit", "pass"), ("conf.ext4.fuzz", "pass"),
         ("conf.nfs3.attributes_from_inode_flags", "skip"), ("global.dioalign_block_device", "pass")]


def test_conformance_parse_counts_per_fs():
    import conformance
    r = conformance.parse(_tap(TESTS, 20, 30))
    assert r["by_fs"]["ext4"] == {"pass": 2, "fail": 0, "skip": 0}
    assert r["by_fs"]["nfs3"]["skip"] == 1 and r["by_fs"]["any"]["pass"] == 1
    assert r["fuzz"]["ext4"] == {"calls": 100, "ok": 20, "errno": {
        "EBADF": 5, "EFAULT": 30, "EINVAL": 7, "ENOENT": 10, "ENOTDIR": 3,
        "ENAMETOOLONG": 1, "ELOOP": 2}}
    assert r["masks"]["ext4"]["0x1"] == "0x17ff"


@pytest.mark.parametrize("patched, ok", [
    (_tap(TESTS, 25, 25), True),                      # EFAULTs became successes
    (_tap(TESTS, 20, 30), True),                      # nothing changed
    (_tap(TESTS, 25, 25, enoent=11), False),          # a name error changed
    (_tap(TESTS, 19, 31), False),                     # fewer successes
    (_tap(TESTS[:1] + [("conf.ext4.fuzz", "fail")] + TESTS[2:], 25, 25), False),
    (_tap(TESTS[:3], 25, 25), False),                 # a test went missing
    (_tap(TESTS, 25, 25, masks="0x7ff"), False),      # a mask answer changed
])
def test_conformance_diff_allows_only_the_null_name(patched, ok):
    import conformance
    stock = conformance.parse(_tap(TESTS, 20, 30))
    assert (conformance.diff(stock, conformance.parse(patched)) == []) == ok


def test_dirty_section_is_read_against_the_write_alone(doc):
    d = copy.deepcopy(doc)
    cfg = next(c for c in d["configs"] if c["variant"] == "patched" and c["label"] == "ext4"
               and not c["kernel_append"])
    cfg["cases"] += [make_case("dirty.write", 1000.0), make_case("dirty.stat", 5000.0),
                     make_case("dirty.statx.SIZE", 1200.0)]
    text = report.sec_dirty(report.Report(d))
    assert "| ext4 | stat | 1,000 | 4,000 |" in text
    assert "| ext4 | statx.SIZE | 1,000 | 200 |" in text


def test_merge_reads_conformance_runs(tmp_path):
    boot = tmp_path / "guest" / "stock"
    (boot / "raw").mkdir(parents=True)
    (boot / "vm.env").write_text("variant=stock\nkernel_append=\nmode=cost\n")
    raw = make_config("stock", "ext4", [make_case("stat", 10.0)])
    raw = {k: raw[k] for k in ("label", "fs", "mode", "unit", "env", "overhead", "cases")}
    (boot / "raw" / "ext4.json").write_text(json.dumps(raw))
    (tmp_path / "conformance" / "stock").mkdir(parents=True)
    (tmp_path / "conformance" / "stock" / "output").write_text(_tap(TESTS, 20, 30))
    subprocess.run([PY, str(ROOT / "analysis/merge.py"), str(tmp_path)], check=True)
    merged = sr.load(tmp_path / "results.json")
    assert merged["conformance"]["stock"]["totals"] == {"pass": 3, "fail": 0, "skip": 1}
    assert "3 / 0 / 1" in report.sec_conformance(report.Report(merged))


def test_clients_parse_calls_getattr_cost_and_rpcs(tmp_path):
    import clients
    d = tmp_path / "clients"
    d.mkdir()
    (d / "nfs3.env").write_text("files=100\nmount=nfs rw,acregmax=0\n")
    (d / "nfs3.1.cmd").write_text("ls -l DIR\n")
    (d / "nfs3.1.bt").write_text("Attaching 7 probes...\n@calls[statx, 606, 2304]: 103\n"
                                 "@calls[newfstatat, 0, 4096]: 28\n@getattr[nfs, 606, 0]: 103\n"
                                 "@getattr[9p, 2047, 0]: 28\n")
    (d / "nfs3.1.perf").write_text("# started\n\n29.81,msec,task-clock,29805467,100.00,0.098,CPUs\n")
    (d / "nfs3.1.rpc").write_text("GETATTR=1700 LOOKUP=101\nGETATTR=2639 LOOKUP=101\n")
    doc = clients.load(tmp_path)
    run = doc["nfs3"]["runs"][0]
    assert run["calls"][0] == {"syscall": "statx", "mask": 606, "flags": 2304, "count": 103}
    assert run["getattr"][0]["fs"] == "nfs" and run["task_clock_ns"] == 29805467
    assert run["rpcs"] == {"GETATTR": 939, "LOOKUP": 0}
    assert clients.flag_names(2304) == "NOFOLLOW|NO_AUTOMOUNT"
    d2 = copy.deepcopy(sr.load(ROOT / "analysis/reference/summary.json"))
    d2["clients"] = {"patched": doc}
    text = report.sec_clients(report.Report(d2))
    assert "statx `0x25e` NOFOLLOW\\|NO_AUTOMOUNT ×103" in text and "GETATTR 939" in text
    assert "actimeo=0" in text
