"""REPORT.md's hand-written text holds no figure (issue 36).

Every measured number comes from a generated section (between
"<!-- generated:NAME -->" and "<!-- end:NAME -->", analysis/report.py), so
that a reader can trust the prose around them not to drift from the data.
What hand-written text may hold: dates and run ids, versions (of the
kernel, glibc, QEMU, Python), commit ids, the numbers that are names (a
patch's number, a case's or a configuration's name in backquotes, a core's
name, NFS's version, a file name), and an upstream figure with its source
(a commit id or a URL) on the same line.  A figure anywhere else, in
digits or in words, fails this test with its line number.
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPORT = ROOT / "REPORT.md"

GENERATED = re.compile(r"<!-- generated:(\w+) -->\n.*?<!-- end:\1 -->", re.S)
# Number words a figure can be written in ("one" is not: the pronoun).
WORDS = re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
                   r"thirty|forty|fifty|hundreds?|thousands?|millions?|billions?|twice|"
                   r"thrice|double[sd]?|triple[sd]?|halve[sd]?|dozens?)\b", re.I)
# What a digit may stand in without being a figure, removed before the
# digits are looked for.
NAMES = [
    r"`[^`\n]*`",                                   # code, a case, a file, an option
    r"^\s*\d+\.\s",                                   # a numbered list's number
    r"\]\([^)\s]*\)",                               # a link's target
    r"<!--.*?-->",                                  # a comment
    r"\b\d{8}T\d{6}Z(-\w+)?\b",                     # a run id
    r"\b\d{4}-\d{2}-\d{2}(T[\d:]+Z?)?\b",           # a date
    r"\b[0-9a-f]{12,40}\b",                         # a commit id
    r"\bv?\d+\.\d+(\.\d+)*(-\w+)?\b",               # a version: 6.1, v6.11, 2.36
    r"\b[Pp]atch(es)? \d+((-|–| to | and |, )\d+)*\b",  # a patch of the series
    r"\b[Ss]eries ?v\d\b",                          # a version of the series
    r"\b(Zen|Zen ?\d|Linux|Debian|NFSv|NFS v|v|VFS|x86-|C|Python) ?\d+\b",   # names
    r"\b[A-Za-z_]+\d+[A-Za-z_\d]*\b",               # a name with digits: ext4, nfs3, p1
    r"\b\d+[A-Za-z_]+[A-Za-z_\d]*\b",               # another: 9p, 2nd as a name
    r"\b(Debian|Ubuntu) \d+\b",                     # a release
]


def prose(text):
    """REPORT.md's hand-written lines, numbered: generated sections blanked,
    and code spans (which may wrap) made blank too, their lines kept."""
    def blank(m):
        return "\n" * m.group(0).count("\n")
    text = GENERATED.sub(blank, text)
    text = re.sub(r"`[^`]*`", lambda m: " " + blank(m), text)
    return text.splitlines()


def figures(line):
    """The figures of a hand-written line: digits and number words left once
    every name, date, version and commit id is taken out; none where the
    line cites its source (a commit id or a URL)."""
    if re.search(r"\bcommit [0-9a-f]{12}\b|https?://", line):
        return []
    s = line
    for pat in NAMES:
        s = re.sub(pat, " ", s)
    return re.findall(r"\d[\d,.]*%?", s) + [m.group(0) for m in WORDS.finditer(s)]


def test_report_prose_holds_no_figure():
    bad = [f"REPORT.md:{i}: {', '.join(figures(x))}: {x.strip()[:100]}"
           for i, x in enumerate(prose(REPORT.read_text()), 1) if figures(x)]
    assert not bad, "hand-written figures (move them into a generated section):\n" + \
        "\n".join(bad)


@pytest.mark.parametrize("line, found", [
    ("stat() costs 7,816 instructions", ["7,816"]),
    ("a fifth of the time, twice as fast", ["twice"]),
    ("TYPE is 7% dearer", ["7%"]),
    ("on 6.1 and 6.12, glibc 2.36, run 20261206T103327Z-cost", []),
    ("patch 4 and patches 1-3 on `stat.name160`, nfs3 and ext4", []),
    ("upstream's commit 8c888b31903c saves 40%", []),
    ("as measured (https://example.org/x) 56% faster", []),
    ("measured on 2026-12-06 on a Zen 5", []),
    ("<!-- generated:x -->", []),
])
def test_figures_finds_what_it_must(line, found):
    assert figures(line) == found
