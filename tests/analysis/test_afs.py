"""analysis/afs.py on small made-up AFS runs (not measured): what it
refuses, and that its section says what the summary holds."""
import json

import pytest

import afs
import statx_results as sr

# The committed run's cases: each as its harness tagged it, and the
# table's, in its order.
REFERENCE = afs.load()["cases"]
CASES = afs.shown(afs.load())


def harness_doc(cases):
    return {"schema": 1, "kind": "harness", "mode": "cost", "unit": "instructions",
            "label": "afs", "fs": "afs", "variant": "afs",
            "env": {"release": "6.1.192-afs", "variant": "afs", "afs_servers": "test"},
            "cases": cases}


def case(name, median, ops=None):
    return {"name": name, "median": median, "ci95": [median, median + 1], "iters": 1,
            "errno": "", "afs_ops_per_call": ops or {}, "tags": REFERENCE[name]["tags"]}


def write_run(tmp_path, names, conf=None):
    cases = [case(n, 1000.0 * (i + 1), {"FetchStatus": 1.0, "CallBack": 1.0}
                  if n.startswith("stale.") and "DONT_SYNC" not in n else {"CallBack": 1.0}
                  if n.startswith("stale.") else {})
             for i, n in enumerate(names)]
    (tmp_path / "raw").mkdir(parents=True)
    (tmp_path / "raw" / "afs.json").write_text(json.dumps(harness_doc(cases)))
    if conf is not None:
        (tmp_path / "conformance").mkdir()
        (tmp_path / "conformance" / "output").write_text(conf)
    return tmp_path


def test_summary_needs_every_case(tmp_path, monkeypatch):
    monkeypatch.setattr(sr, "validate", lambda d, ref=None: d)
    run = write_run(tmp_path, [n for n in CASES if n != "stale.stat"])
    with pytest.raises(SystemExit, match="no stale.stat"):
        afs.summarise(run)


def test_conformance_without_afs_tests_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sr, "validate", lambda d, ref=None: d)
    tap = "#  RUN           conf.ext4.fields_regular_file ...\nok 1 conf.ext4.fields_regular_file\n"
    run = write_run(tmp_path, CASES, tap)
    with pytest.raises(SystemExit, match="no AFS test ran"):
        afs.summarise(run)


def test_section_says_what_the_summary_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(sr, "validate", lambda d, ref=None: d)
    tap = ("#  RUN           conf.afs.fields_fifo ...\n"
           "ok 1 # SKIP AFS keeps no FIFOs\n"
           "# statx-mask afs 0x1 MASK\n"
           "#  RUN           conf.afs.fields_regular_file ...\nok 2 conf.afs.fields_regular_file\n"
           "#  RUN           global.afs_mount_point_in_volume ...\n"
           "ok 3 global.afs_mount_point_in_volume\n")
    write_run(tmp_path / "afs0", CASES, tap.replace("MASK", "0x17ff"))
    # Cases the table does not show run between its own.
    run = ["null"] + CASES[:7] + ["lstat"] + CASES[7:]
    d = afs.summarise(write_run(tmp_path, run, tap.replace("MASK", "0x135f")))
    assert d["conformance"]["pass"] == 2 and d["conformance"]["skip"] == 1
    assert d["conformance"]["mount_point"] == "pass"
    out = tmp_path / "afs.json"
    out.write_text(json.dumps(d))
    text = afs.section(None, out)
    assert "1 FetchStatus" in text and "0x17ff" in text and "0x135f" in text
    assert "A mount point inside the volume (to root.cell)" in text
    assert f"{d['cases']['stale.stat']['median']:,.0f}" in text
    # The table: the cases tagged afs, then the stale ones, as the harness ran them.
    rows = [line.split(" | ")[0][3:-1] for line in text.splitlines() if line.startswith("| `")]
    assert rows == CASES and afs.shown(d) == CASES


def test_committed_summary_follows_the_schema():
    d = afs.load()
    assert d is not None, "analysis/reference/afs.json is missing (make afs)"
    assert d["cases"]["stale.stat"]["afs_ops"].get("FetchStatus") == 1


def test_another_base_is_read_from_its_own_file(tmp_path, monkeypatch):
    """make afs-6.12's run (afs0-6.12 beside afs-6.12) summarised, then
    read by carried(): the masks with and without the patch, the call
    after a break; a file without the unpatched kernel is refused."""
    monkeypatch.setattr(sr, "validate", lambda d, ref=None: d)
    tap = ("# statx-mask afs 0x1 MASK\n"
           "#  RUN           conf.afs.fields_regular_file ...\nok 1 conf.afs.fields_regular_file\n")
    write_run(tmp_path / "run" / "afs0-6.12", CASES, tap.replace("MASK", "0x17ff"))
    d = afs.summarise(write_run(tmp_path / "run", CASES, tap.replace("MASK", "0x135f")))
    ref = tmp_path / "ref"
    ref.mkdir()
    (ref / "afs-6.12.json").write_text(json.dumps(d))
    text = afs.carried(ref)
    assert text.startswith("On 6.12 (`make afs-6.12`")
    assert "0x17ff without patches/afs/6.12, 0x135f with" in text and "1 FetchStatus" in text
    del d["afs0"]
    (ref / "afs-6.12.json").write_text(json.dumps(d))
    with pytest.raises(SystemExit, match="both kernels"):
        afs.carried(ref)
    # two unpatched kernels in one run are one too many
    write_run(tmp_path / "run" / "afs0", CASES, tap.replace("MASK", "0x17ff"))
    with pytest.raises(SystemExit, match="more than one"):
        afs.summarise(tmp_path / "run")
