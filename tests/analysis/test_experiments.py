"""The small experiments' summaries: the events' disabled cost boot by
boot (bench/events-cost.sh), the NFSv4 delegation's call sites
(traces/nfs4-sites.sh) and kafs's symlink line.  Fixture files are made
here, not measured."""
import json

import pytest

import afs
import events_cost
import nfs4_sites
from test_analysis import SITES_TRACE


def _boot(d, setting, variant, i, medians):
    b = d / setting / f"{variant}.{i}"
    b.mkdir(parents=True)
    cases = [{"name": n, "call": "fstat(fd)", "kind": "raw", "mask_name": "", "tags": [],
              "name_len": 13, "ret": 0, "median": m} for n, m in medians.items()]
    (b / "cases.json").write_text(json.dumps({"variant": variant, "cases": cases,
                                              "env": {"kernel_cmdline": setting}}))


def test_events_cost_pairs_boots_and_says_exact_only_when_every_pair_agrees(tmp_path):
    for i, (a, b) in enumerate([(100.0, 102.0), (102.0, 104.0), (100.0, 102.0)], 1):
        _boot(tmp_path, "default", "series4", i, {"fstat": a, "stat": 3914.0 + 2 * (i == 1)})
        _boot(tmp_path, "default", "patched", i, {"fstat": b, "stat": 3916.0})
    d = events_cost.summarize(tmp_path, "series4", "patched")
    c = d["settings"]["default"]["cases"]
    assert c["fstat"]["deltas"] == [2.0, 2.0, 2.0] and c["fstat"]["exact"]
    assert c["fstat"]["before_range"] == 2.0
    assert c["stat"]["deltas"] == [0.0, 2.0, 2.0] and not c["stat"]["exact"]
    table = events_cost.table(d)
    assert "+2 in every pair" in table and "+0 to +2" in table
    # the message's table: in place of the placeholder, then of itself
    msg = "Subject: x\n\nbefore\n\n@@EVENTS_COST@@\n\nafter\n---\n diff @@EVENTS_COST@@\n"
    filled = events_cost.fill(msg, table)
    assert table in filled and filled.endswith("---\n diff @@EVENTS_COST@@\n")
    assert events_cost.fill(filled, table.replace("+0 to +2", "+1 to +3")).count("+1 to +3") == 1


def test_events_cost_refuses_a_boot_that_did_not_finish(tmp_path):
    _boot(tmp_path, "default", "series4", 1, {"fstat": 1.0})
    (tmp_path / "default" / "patched.1").mkdir(parents=True)
    with pytest.raises(events_cost.EventsCostError, match="no cases.json"):
        events_cost.summarize(tmp_path, "series4", "patched")


def test_nfs4_sites_names_the_getattr_the_delegation_spares(tmp_path):
    for v, drop in (("patched", 1), ("patched-6.12", 2)):
        d = tmp_path / v
        d.mkdir()
        (d / "vm.env").write_text(f"variant={v}\nrelease=6.x-{v}\n")
        (d / "nfs_sites.closed.txt").write_text(SITES_TRACE)
        # the held file: the ->getattr GETATTR (fileid 17) gone; on the
        # second kernel the d_revalidate one (lookup_fast) too
        held = SITES_TRACE.replace("@rpc[GETATTR, 17, 1, ", "@other[GETATTR, 17, 1, ")
        if drop == 2:
            held = held.replace("    nfs_check_verifier+122\n", "    nfs_unknown+1\n")
        (d / "nfs_sites.deleg.txt").write_text(held)
    s = nfs4_sites.summarise([tmp_path / "patched", tmp_path / "patched-6.12"])
    k = s["kernels"]
    assert [r[2] for r in k["patched"]["spared_by_delegation"]] == ["->getattr"]
    assert k["patched-6.12"]["against"] == "patched"
    assert any("d_revalidate" in r[3] for r in k["patched-6.12"]["spared_against_first"])
    text = nfs4_sites.finding(s)
    assert "spares 1 GETATTR of" in text and "from ->getattr" in text
    brief = nfs4_sites.finding_brief(s)
    assert "patched: 3 GETATTRs closed, 2 delegated (it spares d1/d2/d3/file's GETATTR from ->getattr)" in brief


def test_afs_symlink_line_only_with_both_kernels_stale_lstat():
    def c(fetches):
        return {"stale.lstat": {"median": 1000.0, "ci95": [990.0, 1010.0],
                                "afs_ops": {"FetchStatus": fetches} if fetches else {}}}
    assert afs.symlink_line({}, c(1)) is None
    line = afs.symlink_line(c(0), c(1))
    assert "makes no call without the patch" in line and "1 FetchStatus with it" in line


def test_afs_symlink_table_fills_the_message_not_the_diff():
    d = {"cases": {"stale.lstat": {"median": 97798.0, "afs_ops": {"FetchStatus": 1.0}}},
         "afs0": {"cases": {"stale.lstat": {"median": 16393.0, "afs_ops": {}}}}}
    old = afs.symlink_table(d, "afs.json")
    assert "  FetchStatus calls               0       1" in old
    msg = f"Subject: x\n\ntext\n\n{old}\n\nmore\n---\n{old}\n"
    d["cases"]["stale.lstat"]["median"] = 90000.0
    new = afs.fill(msg, afs.symlink_table(d, "afs.json"))
    head, _, diff = new.partition("\n---\n")
    assert "90,000" in head and "97,798" not in head and "97,798" in diff
    with pytest.raises(SystemExit, match="0 symlink tables"):
        afs.fill("Subject: x\n\nno table\n---\n", old)

