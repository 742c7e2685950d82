"""The soak run's verdicts, hangwatch's TAP handling, and a run against
the reference: fixture data made here, never a kernel."""
import copy
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

import conformance
import drift
import report
import soak

ROOT = pathlib.Path(__file__).resolve().parents[2]


# --- drift: a run against the reference -------------------------------------

def with_ci(doc):
    for c in doc["configs"]:
        for case in c["cases"]:
            case["ci95"] = [case["median"], case["median"] + 2]
    return doc


def test_drift_names_only_moves_beyond_the_spread(doc):
    ref = with_ci(copy.deepcopy(doc))
    run = with_ci(copy.deepcopy(doc))
    cases = {c["name"]: c for c in run["configs"][1]["cases"]}   # stock ext4
    cases["stat"]["median"] += 4          # inside the jitter: not a finding
    cases["stat"]["ci95"] = [cases["stat"]["median"], cases["stat"]["median"] + 2]
    cases["fstat"]["median"] *= 1.05      # 5%: far outside both intervals
    cases["fstat"]["ci95"] = [cases["fstat"]["median"], cases["fstat"]["median"]]
    run["configs"][1]["cases"].append({**cases["fstat"], "name": "fstat.new"})
    rows = drift.compare(run, ref)
    by = {(r["label"], r["case"], r["boot"]): r["verdict"] for r in rows}
    assert by[("ext4", "stat", "stock")] == "within"
    assert by[("ext4", "fstat", "stock")] == "moved"
    assert by[("ext4", "fstat.new", "stock")] == "new"
    assert by[("ext4", "stat", "patched")] == "same"
    c = drift.counts(rows)
    assert c["moved"] == 1 and c["within"] == 1 and c["new"] == 1
    assert len(drift.moved_lines(rows)) == 1 and "fstat" in drift.moved_lines(rows)[0]


def test_drift_refuses_runs_of_another_mode(doc):
    other = copy.deepcopy(doc)
    other["mode"] = "time"
    for c in other["configs"]:
        c["mode"] = "time"
    with pytest.raises(drift.ModeMismatch):
        drift.compare(other, doc)


def test_run_report_lists_the_moved_cases(doc, tmp_path):
    ref = with_ci(copy.deepcopy(doc))
    ref["run_id"] = "reference"
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(ref))
    run = copy.deepcopy(doc)
    run["configs"][1]["cases"][1]["median"] += 100    # stock ext4 fstat
    run = with_ci(run)
    text = report.sec_drift(report.Report(run), reference=path)
    assert "1 beyond it" in text and "`fstat`" in text
    assert report.sec_drift(report.Report(ref), reference=path) is None
    assert "missing" in report.sec_drift(report.Report(run), reference=tmp_path / "none")


def test_drift_command_line_writes_every_case(doc, tmp_path):
    for name in ("run.json", "ref.json"):
        (tmp_path / name).write_text(json.dumps(with_ci(copy.deepcopy(doc))))
    out = subprocess.run([sys.executable, str(ROOT / "analysis/drift.py"), str(tmp_path / "run.json"),
                          "--reference", str(tmp_path / "ref.json")],
                         capture_output=True, text=True, check=True).stdout
    assert "0 beyond it" in out
    written = json.loads((tmp_path / "drift.json").read_text())
    assert written["counts"]["same"] == written["counts"]["cases"] > 0
    bad = subprocess.run([sys.executable, str(ROOT / "analysis/drift.py"), str(tmp_path / "nope.json")],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "no such file" in bad.stderr


# --- soak.py: what a soak found ----------------------------------------------

TAP_OK = """TAP version 13
1..2
#  RUN           conf.ext4.a ...
#            OK  conf.ext4.a
ok 1 conf.ext4.a
#  RUN           conf.nfs4.b ...
#            OK  conf.nfs4.b
ok 2 conf.nfs4.b
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0
"""

TAP_TIMEOUT = """TAP version 13
1..2
#  RUN           conf.ext4.a ...
#            OK  conf.ext4.a
ok 1 conf.ext4.a
#  RUN           conf.nfs4.b ...
# b: Test terminated by timeout
#          FAIL  conf.nfs4.b
not ok 2 conf.nfs4.b
# hangwatch: conf.nfs4.b timed out; guest 30.00 s: CPU busy 0.10 s, idle 29.90 s; host 1 s
# hangwatch: test conf.nfs4.b, running for guest 28.00 s
# hangwatch: [<0>] p9_client_rpc+0x14a/0x430
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:0 error:0
"""

TSV = "test\tstatus\tguest_s\tbusy_s\tidle_s\thost_s\nconf.ext4.a\tpass\t{g}\t0.1\t{i}\t0\n"


def make_boot(root, variant, n, series=TAP_OK, conf=TAP_OK, status=0, guest=1.0):
    d = root / variant / str(n)
    d.mkdir(parents=True)
    if series is not None:
        (d / "series.tap").write_text(series)
    if conf is not None:
        (d / "conformance.tap").write_text(conf)
    (d / "soak-status").write_text(f"{status}\n")
    (d / "console.log").write_text("[guest] running: tests/guest/suites.sh\nlast line\n")
    (d / "hangwatch-conformance").mkdir()
    (d / "hangwatch-conformance" / "tests.tsv").write_text(TSV.format(g=guest, i=guest - 0.1))


def run_soak(root):
    return subprocess.run([sys.executable, str(ROOT / "analysis/soak.py"), str(root)],
                          capture_output=True, text=True)


def test_soak_passes_when_every_boot_passes(tmp_path):
    for n in (1, 2):
        make_boot(tmp_path, "stock", n, guest=float(n))
        make_boot(tmp_path, "patched", n)
    r = run_soak(tmp_path)
    assert r.returncode == 0, r.stdout
    assert "4 of 4 boots passed" in r.stdout
    s = json.loads((tmp_path / "soak.json").read_text())
    assert s["summary"]["stock"]["tests"] == 8 and not s["failures"]
    assert s["slowest"]["conf.ext4.a"]["guest_s"] == 2.0


def test_soak_reports_a_timeout_with_its_stacks(tmp_path):
    make_boot(tmp_path, "stock", 1)
    make_boot(tmp_path, "patched", 1, conf=TAP_TIMEOUT, status=1)
    r = run_soak(tmp_path)
    assert r.returncode == 1
    assert "FAILED: patched boot 1: conformance: conf.nfs4.b" in r.stdout
    assert "p9_client_rpc" in (tmp_path / "failures.txt").read_text()
    assert "last line" in (tmp_path / "failures.txt").read_text()


@pytest.mark.parametrize("kw, why", [
    ({"conf": None}, "no conformance.tap"),
    ({"series": "TAP version 13\n"}, "series: no test ran"),
    ({"status": 125}, "guest command exit status 125"),
])
def test_soak_never_passes_a_boot_silently(tmp_path, kw, why):
    make_boot(tmp_path, "patched", 1, **kw)
    r = run_soak(tmp_path)
    assert r.returncode == 1 and why in r.stdout


def test_soak_without_boots_is_an_error(tmp_path):
    r = run_soak(tmp_path)
    assert r.returncode != 0 and "no VARIANT/BOOT" in r.stderr
    assert soak.SUITES == ("series", "conformance")


# --- the series tests, stock against patched ------------------------------------

def series_tap(*results):
    lines = ["TAP version 13"]
    for i, (name, res) in enumerate(results, 1):
        lines.append(f"#  RUN           {name} ...")
        lines.append(f"ok {i} {name}" if res == "pass" else
                     f"not ok {i} {name}" if res == "fail" else f"ok {i} # SKIP {res}")
    return conformance.parse("\n".join(lines) + "\n")


def test_series_diff_allows_only_what_the_series_adds():
    stock = series_tap(("series.ext4.a", "pass"), ("series.ext4.events", "stock 6.1 has no stat:* events"))
    patched = series_tap(("series.ext4.a", "pass"), ("series.ext4.events", "pass"))
    assert conformance.series_diff(stock, patched)[1] == []
    bad_skip = series_tap(("series.ext4.a", "pass"), ("series.ext4.events", "something else"))
    assert conformance.series_diff(bad_skip, patched)[1]
    failed = series_tap(("series.ext4.a", "fail"), ("series.ext4.events", "pass"))
    assert conformance.series_diff(stock, failed)[1]
    assert conformance.series_diff(series_tap(), patched)[1] == ["no TAP results"]


# --- hangwatch, user space only (-n: no sysrq, no kernel log) ----------------------

@pytest.fixture(scope="module")
def hangwatch(tmp_path_factory):
    cc = shutil.which("cc") or pytest.fail("no C compiler")
    out = tmp_path_factory.mktemp("hw") / "hangwatch"
    subprocess.run([cc, "-O2", "-Wall", "-Wextra", "-Werror", "-std=gnu11", "-o", str(out),
                    str(ROOT / "tests/guest/hangwatch.c")], check=True)
    return out


def test_hangwatch_passes_tap_through_and_prints_the_stacks_of_a_timeout(hangwatch, tmp_path):
    fake = tmp_path / "fake.sh"
    fake.write_text(
        "echo 'TAP version 13'\n"
        # the child has become sleep (exec'd, not a forked bash still)
        # before the test's start is printed, so the snapshot finds it
        # however late a loaded host runs it (a run beside two guests,
        # 2026-12-07, found the fork still named bash)
        "sleep 3 &\n"
        "until [ \"$(cat /proc/$!/comm 2>/dev/null)\" = sleep ]; do :; done\n"
        "echo '#  RUN           conf.x.slow ...'\n"
        "wait\n"
        "echo '# slow: Test terminated by timeout'\n"
        "echo 'not ok 1 conf.x.slow'\n"
        "echo '#  RUN           conf.x.fast ...'\n"
        "echo 'ok 2 conf.x.fast'\n"
        "exit 3\n")
    r = subprocess.run([str(hangwatch), "-n", "-a", "0.5", "-e", "0.5", "-o", str(tmp_path / "hw"),
                        "--", "bash", str(fake)], capture_output=True, text=True)
    assert r.returncode == 3                          # the command's status
    out = r.stdout.splitlines()
    assert out[:2] == ["TAP version 13", "#  RUN           conf.x.slow ..."]
    assert any(ln.startswith("# hangwatch: conf.x.slow timed out; guest") for ln in out)
    # the snapshot names the sleeping child and its kernel wait
    assert any("(sleep)" in ln for ln in out if ln.startswith("# hangwatch: process"))
    assert "ok 2 conf.x.fast" in out
    rows = (tmp_path / "hw" / "tests.tsv").read_text().splitlines()
    assert rows[0].split("\t") == ["test", "status", "guest_s", "busy_s", "idle_s", "host_s"]
    assert [r.split("\t")[:2] for r in rows[1:]] == [["conf.x.slow", "fail"], ["conf.x.fast", "pass"]]
    assert (tmp_path / "hw" / "conf.x.slow.txt").is_file()
    assert not (tmp_path / "hw" / "conf.x.fast.txt").exists()


def test_hangwatch_refuses_a_missing_command(hangwatch, tmp_path):
    r = subprocess.run([str(hangwatch), "-n", "-o", str(tmp_path / "hw")], capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr


# --- mask names: one decoder per language, and they agree ----------------------

def test_mask_name_agrees_with_the_harness_on_every_reference_case():
    import statx_results as sr
    doc = sr.load(ROOT / "analysis/reference/summary.json")
    pairs = {(c["mask"], c["mask_name"]) for cfg in doc["configs"] for c in cfg["cases"]}
    assert len(pairs) > 5
    for mask, name in pairs:
        assert sr.mask_name(mask) == name, (hex(mask), name)
    assert sr.mask_name(0xfff) == "BASIC_STATS|BTIME"
    assert sr.mask_name(0x8000_0000 | 0x1) == "TYPE|0x80000000"


def test_soak_states_how_far_the_guest_clock_ran_ahead(tmp_path):
    make_boot(tmp_path, "stock", 1, guest=20.5)      # idle 20.4 s, host 0 s by the RTC
    make_boot(tmp_path, "patched", 1, guest=0.5)
    r = run_soak(tmp_path)
    assert r.returncode == 0, r.stdout
    assert "2 test runs: 1 ran 5 s or more, 1 ran 10 s or more, 1 ran 20 s or more" in r.stdout
    assert "at most 19.40 s in one test (conf.ext4.a: idle 20.40 s, host 0 s)" in r.stdout
