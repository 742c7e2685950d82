"""The UML timing analysis on boots made here, not measured: a boot's
KTAP parsed or refused, the refusal and spread rules, the held-out
check; never a kernel."""
import pytest

import uml_timing as ut

CASES = ut.cases_of()


def boot_log(ticks, wide=(), missing=(), status="ok"):
    """A boot's log: each case at @ticks[case] ticks a call (quantiles
    around it), cases in @wide with a wide interquartile range."""
    lines = ["KTAP version 1", "1..1", "    KTAP version 1", "    # Subtest: statx_timing", "    1..1"]
    for c in CASES:
        if c in missing:
            continue
        m = int(ticks[c] * 1000)
        lo, hi = (m, m * 13 // 10) if c in wide else (m, m + m // 200)
        lines.append(f"    # statx_timing_run: statx_timing: case={c} batch=128 samples=301 mticks "
                     f"min={m} p10={m} p25={lo} p50={m} p75={hi} p90={hi} max={2 * m}")
    lines += [f"    {status} 1 statx_timing_run", f"{status} 1 statx_timing"]
    return "\n".join(lines) + "\n"


BASE = {c: 100.0 + 10 * i for i, c in enumerate(CASES)}
BASE.update(noop=4.0, add_chain=754.0)


def run_dir(tmp_path, boots):
    """DIR as bench/uml-timing.sh writes it: @boots is [(config, log)]."""
    (tmp_path / "boots").mkdir(parents=True)
    order = []
    for n, (cfg, text) in enumerate(boots, 1):
        order.append(f"{n} {cfg}")
        (tmp_path / "boots" / f"{n}.{cfg}.log").write_text(text)
    (tmp_path / "order.txt").write_text("\n".join(order) + "\n")
    return tmp_path


def test_cases_come_from_the_patch_and_the_halves_are_disjoint():
    assert CASES[:2] == ["noop", "add_chain"]
    assert not set(ut.FIT) & set(ut.HELD_OUT)
    assert set(ut.FIT + ut.HELD_OUT + ut.REP_CASES) <= set(CASES)


def test_a_good_boot_parses_and_converts_ticks_with_its_add_chain():
    q = ut.parse_boot(boot_log(BASE), CASES)
    cpt, cyc, _ = ut.boot_cycles(q, CASES)
    assert cpt == pytest.approx(1000 / 750)
    assert cyc["walk"] == pytest.approx((BASE["walk"] - 4) * 1000 / 750)


@pytest.mark.parametrize("text, says", [
    ("Linux version 6.1\nKernel panic\n", "no KTAP"),
    (boot_log(BASE, missing=("getattr",)), "case getattr did not run"),
    (boot_log(BASE, status="not ok"), "did not pass"),
])
def test_a_bad_boot_gives_one_line_naming_it(text, says):
    with pytest.raises(ut.TimingError, match=says):
        ut.parse_boot(text, CASES, "boot 3 (patched.ioa0)")


def test_one_refused_boot_in_six_is_counted_two_fail_the_run(tmp_path):
    boots = [("patched.ioa0", boot_log(BASE)) for _ in range(5)]
    boots.append(("patched.ioa0", boot_log(BASE, wide=("walk",))))
    configs, _, _, failures = ut.timed(run_dir(tmp_path / "a", boots), CASES)
    assert [r["boot"] for r in configs["patched.ioa0"]["refused"]] == [6]
    assert "walk" in configs["patched.ioa0"]["refused"][0]["why"]
    assert failures == []
    boots[0] = ("patched.ioa0", boot_log(BASE, wide=("getattr",)))
    _, _, _, failures = ut.timed(run_dir(tmp_path / "b", boots), CASES)
    assert any("2 of 6 boots refused" in f for f in failures)


def test_an_add_chain_off_the_run_refuses_its_boot(tmp_path):
    slow = dict(BASE, add_chain=900.0)
    boots = [("stock.ioa1", boot_log(BASE)) for _ in range(5)] + [("stock.ioa1", boot_log(slow))]
    configs, _, _, _ = ut.timed(run_dir(tmp_path, boots), CASES)
    assert "add chain" in configs["stock.ioa1"]["refused"][0]["why"]


def test_a_spread_beyond_the_limit_fails_naming_the_case(tmp_path):
    moved = dict(BASE, stat_path=BASE["stat_path"] * 1.08)
    boots = [("stock.ioa0", boot_log(BASE)) for _ in range(5)] + [("stock.ioa0", boot_log(moved))]
    _, _, _, failures = ut.timed(run_dir(tmp_path, boots), CASES)
    assert [f for f in failures if "spread" in f] == [f for f in failures if f.startswith(
        "stock.ioa0: case stat_path spread")] != []


def test_fewer_than_five_boots_fail(tmp_path):
    boots = [("stock.ioa0", boot_log(BASE)) for _ in range(4)]
    _, _, _, failures = ut.timed(run_dir(tmp_path, boots), CASES)
    assert any("wants 5" in f for f in failures)


def test_the_held_out_check_counts_misses_and_failures():
    model = ut.cy.load()
    plain = {k: 0 for k in ut.mx.CLASSES}
    plain["other"] = 1000

    def case(cycles):
        return {"cycles": cycles, "classes": dict(plain), "ops": {}, "rep": []}

    # Fit cases at 0.3 and 0.4 cycles an instruction: the anchored
    # interval is 0.3 to 0.4; held out at 350 (inside), 420 (5% out, a
    # miss) and 600 (a failure).
    cases = {c: case(300 if i % 2 else 400) for i, c in enumerate(ut.FIT)}
    held = dict(zip(ut.HELD_OUT, (350, 420, 600, 350, 350, 350)))
    cases.update({c: case(v) for c, v in held.items()})
    f = ut.fit({"x.ioa0": {"cases": cases}}, model, "zen5", "test")
    assert f["plain"] == [0.3, 0.4]
    verdicts = {h["case"]: h["verdict"] for h in f["held_out"]}
    assert verdicts[ut.HELD_OUT[0]] == "inside"
    assert verdicts[ut.HELD_OUT[1]] == "miss"
    assert verdicts[ut.HELD_OUT[2]] == "fail"
    assert f["verdict"] == "fail"


@pytest.mark.parametrize("text, want", [
    ("rep stos %rax,%es:(%rdi)", ("stos", 8)),
    ("rep stos %eax,%es:(%rdi)", ("stos", 4)),
    ("rep stos %al,%es:(%rdi)", ("stos", 1)),
    ("rep movsq %ds:(%rsi),%es:(%rdi)", ("movsq", 8)),
])
def test_a_rep_string_width_from_objdump_spelling(text, want):
    assert ut.rep_width(text) == want


def test_the_small_filename_messages_carry_the_committed_cycles(tmp_path):
    """Each base's small struct filename patch leads with the measured
    block of analysis/reference/uml_timing.json, as --fill writes it."""
    import json
    import shutil
    shutil.copytree(ut.ROOT / "patches", tmp_path / "patches")
    doc = json.loads(ut.OUT_FILE.read_text())
    assert ut.fill_patches(doc, tmp_path / "patches") == []
    for base, stock, series in ut.FILL:
        d = tmp_path / "patches" / base if base else tmp_path / "patches"
        (p,) = d.glob("0*-" + ut.FILL_PATCH)
        head = p.read_text().partition("\n---\n")[0]
        assert ut.MEASURED.search(head), p
        assert ut.measured_block(doc, stock, series) in head


SWEEPS = ut.sweeps_of()


def sweep_line(name, case, natural=0, inode=0, frame=0, slow_at=(), best=10000, slow=12000):
    """One boot's sweep line as the patch prints it: every position at
    @best mticks a call but @slow_at, at @slow."""
    bits = sum(1 << (a // 8) for a in slow_at)
    hexs = f"{bits:0128x}"
    chunks = ",".join(hexs[i:i + 8] for i in range(0, 128, 8))
    at = slow if natural in slow_at else best
    top = slow if slow_at else best
    return (f"    # statx_timing_run: statx_timing: sweep={name} case={case} batch=128 tries=7 "
            f"step=8 natural={natural} inode={inode} frame={frame} mticks at_natural={at} "
            f"min={best} p50={best} max={top} slowest={slow_at[0] if slow_at else 0} "
            f"slow={len(slow_at)} bits={chunks}")


def test_sweeps_come_from_the_patch_and_time_cases_of_the_suite():
    assert SWEEPS and set(SWEEPS.values()) <= set(CASES)


def test_a_sweep_line_parses_with_its_slow_positions():
    name, case = next(iter(SWEEPS.items()))
    text = "\n".join(sweep_line(n, c, slow_at=(64, 72, 4088) if n == name else ())
                     for n, c in SWEEPS.items())
    got = ut.parse_sweeps(text, SWEEPS)
    assert got[name]["slow_at"] == [64, 72, 4088]
    assert got[name]["min"] == 10000 and got[name]["max"] == 12000


@pytest.mark.parametrize("drop, says", [(True, "did not run"), (False, "slow positions but")])
def test_a_missing_or_inconsistent_sweep_names_itself(drop, says):
    lines = [sweep_line(n, c) for n, c in SWEEPS.items()]
    if drop:
        lines.pop()
    else:
        lines[0] = lines[0].replace("slow=0", "slow=3")
    with pytest.raises(ut.TimingError, match=says):
        ut.parse_sweeps("\n".join(lines), SWEEPS, "boot 7 (stock.ioa1)")


def test_slow_positions_that_move_with_the_inode_name_it_and_predict_the_outlier():
    # Three boots: the slow band sits 64 bytes past the inode in each; in
    # the third the object's own position falls in it, and that boot's
    # timed cycles stand out.
    per = []
    for b, (inode, natural) in enumerate(((512, 0), (1024, 8), (2048, 2112)), 1):
        band = [(inode + 64 + 8 * i) % 4096 for i in range(4)]
        per.append({"boot": b, "step": 8, "natural": natural, "inode": inode, "frame": 3000 + 8 * b,
                    "at_natural": 40.0 if natural in band else 34.0, "min": 34.0, "p50": 34.0,
                    "max": 40.0, "slowest": band[0], "slow": 4,
                    "natural_slow": natural in band, "slow_at": band})
    s = ut.sweep_summary("getattr", per, [34.0, 34.1, 40.2])
    assert s["natural_slow_boots"] == [3] == s["timed_outlier_boots"]
    assert s["anchor_similarity"]["inode"] == 1.0
    assert s["anchor_similarity"]["page"] < 0.5 and s["anchor_similarity"]["frame"] < 0.5


def test_the_report_line_counts_the_boots_and_names_the_anchor():
    per = [{"boot": 1, "step": 8, "natural": 0, "inode": 0, "frame": 0, "at_natural": 34.0, "min": 34.0,
            "p50": 34.0, "max": 40.0, "slowest": 64, "slow": 1, "natural_slow": False,
            "slow_at": [64]},
           {"boot": 2, "step": 8, "natural": 128, "inode": 64, "frame": 8, "at_natural": 40.0, "min": 34.0,
            "p50": 34.0, "max": 40.0, "slowest": 128, "slow": 1, "natural_slow": True,
            "slow_at": [128]}]
    sm = ut.sweep_summary("getattr", per, [34.0, 40.1])
    doc = {"configs": {"stock.ioa1": {"sweeps": {"getattr_stat": sm}}}}
    line = ut.sweep_sentence(doc)
    assert "of 2 kept boots, 1 put it at a slow position and 1 timed `getattr`" in line
    assert "1 of them both" in line and "distance to the inode" in line
    assert "getattr_stat" in ut.sweep_table(doc)
