"""A figure caption's comparison follows its data (issue 36): the words
flip when the numbers do."""
import copy

import captions
import report
import statx_results as sr


def _beyond(r):
    return lambda a, b, label: report.beyond_noise(a, b, r.mode, label)


def test_series_caption_says_fstat_moves_only_when_it_does(doc):
    d = copy.deepcopy(doc)
    for v, m in (("stock", 1149.0), ("patched", 1149.0)):
        sr.case(d, v, "ext4", "fstat").update(median=m, ci95=[m, m])
    r = report.Report(d)
    assert "Raw `fstat` does not move beyond the noise" in captions.series_caption(r, _beyond(r))
    sr.case(d, "patched", "ext4", "fstat").update(median=1169.0, ci95=[1169.0, 1169.0])
    r = report.Report(d)
    assert "Raw `fstat` moves +1.74%" in captions.series_caption(r, _beyond(r))


def test_fio_caption_agrees_only_within_its_bound(monkeypatch):
    run = {"scale": {"ext4": {"files": [{"n": 1000, "stat": {"hot": {"median": 1000.0}}}]}},
           "fio": {("ext4", "stat"): "job"}}
    monkeypatch.setattr(captions.scale, "from_results", lambda doc: [run])
    r = type("R", (), {"doc": {}})()
    monkeypatch.setattr(captions.scale, "fio_row", lambda job: (0.0, 1050.0, 3))
    assert "Within 10% of ours: ext4 stat" in captions.fio_caption(r)
    monkeypatch.setattr(captions.scale, "fio_row", lambda job: (0.0, 1500.0, 3))
    text = captions.fio_caption(r)
    assert "Within" not in text and "Not within it: ext4 stat" in text
