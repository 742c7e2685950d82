"""The interval of the median: one rule (symmetric order statistics with
exact binomial coverage), in the analysis (statx_results.median_ci_ranks,
from scipy) and in the harness (bench/harness.c's median_ci95)."""
import copy
import json
import random
import subprocess

import pytest
from scipy import stats

import drift
import statx_results as sr
import summarize
from conftest import ROOT


def coverage(n, r):
    """P(r <= B <= n - r), B ~ Binomial(n, 1/2): the chance that the r-th
    and (n + 1 - r)-th of n samples bracket the median."""
    return 1.0 - 2.0 * stats.binom.cdf(r - 1, n, 0.5)


@pytest.mark.parametrize("n", range(5, 101))
def test_ranks_are_the_narrowest_symmetric_pair_that_covers(n):
    r_lo, r_hi, cover = sr.median_ci_ranks(n)
    assert r_hi == n + 1 - r_lo and 1 <= r_lo <= r_hi <= n
    assert cover == pytest.approx(coverage(n, r_lo), rel=1e-12)
    if n >= 6:
        assert cover >= 0.95
        # One rank further in, the pair no longer reaches 95%.
        assert r_lo + 1 > r_hi - 1 or coverage(n, r_lo + 1) < 0.95
    else:
        # No pair reaches 95%: the whole range, and what it covers.
        assert (r_lo, r_hi) == (1, n) and cover == pytest.approx(1 - 2 / 2 ** n)


def test_small_samples_report_the_coverage_they_have():
    assert sr.median_ci_ranks(5) == (1, 5, 0.9375)
    assert sr.median_ci_ranks(6) == (1, 6, 0.96875)
    assert sr.median_ci_ranks(1)[:2] == (1, 1)
    with pytest.raises(ValueError):
        sr.median_ci_ranks(0)


def test_nine_samples_give_the_second_and_eighth():
    assert sr.median_ci_ranks(9) == (2, 8, pytest.approx(1 - 2 * 10 / 512))
    s = list(range(1, 10))
    random.Random(9).shuffle(s)
    assert sr.median_ci(s) == (5, 2, 8, pytest.approx(0.9609375))


def test_interval_is_symmetric_in_ranks_not_in_values():
    # The old harness rule took the 2nd smallest to the largest of 9.
    m, lo, hi, _ = sr.median_ci([100, 100, 100, 100, 100, 100, 100, 101, 900])
    assert (m, lo, hi) == (100, 100, 101)


@pytest.fixture(scope="module")
def statx_bench():
    """build/statx-bench, built from this tree's bench/ (make)."""
    subprocess.run(["make", "-s", "-C", str(ROOT / "bench"), "../build/statx-bench"],
                   check=True)
    return str(ROOT / "build" / "statx-bench")


def test_harness_takes_the_same_ranks(statx_bench):
    """The harness's median_ci95() (bench/harness.c, --ci-ranks) against
    scipy: the same ranks and coverage, to 20,000 samples (time mode's
    default --max-samples)."""
    wrong = []
    for n in [*range(5, 101), 1000, 20000]:
        out = subprocess.run([statx_bench, "--ci-ranks", str(n)], capture_output=True,
                             text=True, check=True).stdout.split()
        lo, hi, cover = int(out[0]), int(out[1]), float(out[2])
        want = sr.median_ci_ranks(n)
        if (lo, hi) != want[:2] or cover != pytest.approx(coverage(n, lo), rel=1e-9):
            wrong.append(f"n={n}: harness {lo} {hi} {cover}, scipy {want}")
    assert not wrong, "\n".join(wrong[:10])


def test_schema_has_ranks_and_level_together_or_neither(doc):
    case = doc["configs"][1]["cases"][0]
    sr.validate(doc)                # files from before the fields: neither
    case.update(ci_ranks=[1, 5], ci_level=0.9375)      # its 5 samples
    sr.validate(doc)
    for broken in ({"ci_level": None}, {"ci_ranks": None}, {"ci_level": 1.5},
                   {"ci_ranks": [0, 5]}, {"ci_ranks": [2]}):
        bad = {**case, **broken}
        for k in [k for k, v in broken.items() if v is None]:
            del bad[k]
        doc["configs"][1]["cases"][0] = bad
        with pytest.raises(sr.SchemaError):
            sr.validate(doc)


def with_interval(case, samples):
    """CASE measured as SAMPLES, its interval as the harness writes it."""
    m, lo, hi, cover = sr.median_ci(samples)
    r_lo, r_hi, _ = sr.median_ci_ranks(len(samples))
    case.update(samples=samples, median=m, ci95=[lo, hi], ci_ranks=[r_lo, r_hi],
                ci_level=cover)
    return case


def test_summary_keeps_the_interval_it_cuts_the_samples_of(doc):
    samples = [7669.0, 7668.0, 7690.0, 7669.0, 7670.0, 7671.0, 7669.0, 8400.0, 7667.0]
    with_interval(sr.case(doc, "stock", "ext4", "stat"), samples)
    c = sr.case(summarize.summarize(doc), "stock", "ext4", "stat")
    assert c["samples"] == [7669.0] and (c["n"], c["min"], c["max"]) == (9, 7667.0, 8400.0)
    # The 2nd and 8th of the 9: neither end is the 8,400 a timer put in.
    assert c["ci95"] == [7668.0, 7690.0] and c["ci_ranks"] == [2, 8]
    assert c["ci_level"] == pytest.approx(0.9609375)


def test_summary_refuses_an_interval_its_samples_do_not_hold(doc):
    case = with_interval(sr.case(doc, "stock", "ext4", "stat"), [float(x) for x in range(1, 10)])
    case["ci95"] = [2.0, 9.0]            # the earlier rule's ends under the new ranks
    with pytest.raises(ValueError, match="order statistics"):
        summarize.summarize(doc)


def test_summary_reads_a_file_from_before_the_ranks(doc):
    case = sr.case(doc, "stock", "ext4", "stat")
    case.update(samples=[float(x) for x in range(1, 10)], ci95=[2.0, 9.0])
    c = sr.case(summarize.summarize(doc), "stock", "ext4", "stat")
    assert c["ci95"] == [2.0, 9.0] and "ci_ranks" not in c and "ci_level" not in c


def test_summary_is_compact_a_line_per_case(doc):
    s = summarize.summarize(doc)
    text = summarize.dumps(s)
    assert json.loads(text) == s
    compact = json.dumps(s, separators=(",", ":"), sort_keys=True)
    # The same characters as the most compact JSON, and a newline per line.
    assert len(text) == len(compact) + text.count("\n")
    cases = [x for c in s["configs"] for x in c["cases"]]
    lines = [line for line in text.splitlines() if line.startswith('{"call":')]
    assert len(lines) == len(cases) and all(
        line.startswith(json.dumps(x, separators=(",", ":"), sort_keys=True))
        for line, x in zip(lines, cases))



def test_committed_summary_is_written_as_summarize_writes():
    path = ROOT / "analysis" / "reference" / "summary.json"
    text = path.read_text()
    # A bool first: pytest would diff two 2 MB strings for minutes.
    same = text == summarize.dumps(json.loads(text))
    assert same, f"{path} is not as analysis/summarize.py writes it"
    assert path.stat().st_size < 2 * 2 ** 20


def test_drift_says_when_the_two_runs_took_intervals_by_different_rules(doc):
    ref = copy.deepcopy(doc)
    assert drift.rule_note(doc, ref) == ""
    for c in doc["configs"]:
        for x in c["cases"]:
            with_interval(x, x["samples"])
    assert drift.rule_note(doc, ref).startswith("The reference's intervals are the earlier")
    assert drift.rule_note(ref, doc).startswith("This run's intervals are the earlier")
    assert drift.rule_note(doc, doc) == ""
    # Either way every case is compared, and an unchanged one is the same.
    assert {r["verdict"] for r in drift.compare(doc, ref)} == {"same"}
