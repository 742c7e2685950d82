"""What every report section shares: a results document read as a table
(Report), and the one way numbers, changes and tables are written in
markdown.  Each section lives in its figure's module (fs_masks.py,
series.py, ...) as section(r); analysis/report.py puts them together."""
import collections
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402

IOA0 = sr.IOA0


# REPORT.md keeps a brief version of its longest sections; the full ones
# live here (analysis/report.py --tables writes it).
TABLES_FILE = "analysis/reference/tables.md"
TABLES_LINK = f"[{TABLES_FILE}]({TABLES_FILE})"


class Report:
    """A results document, its cases by (boot, label, name)."""

    def __init__(self, doc):
        self.doc = doc
        self.mode = doc["mode"]
        self.unit = doc["configs"][0]["unit"]
        self.t = sr.table(doc)
        self.boots = sr.boots(doc)
        self.roles = sr.roles(self.boots)
        self.labels = sr.labels(doc)

    def case(self, boot, label, name):
        return self.t.get((boot, label, name))

    def v(self, boot, label, name):
        c = self.case(boot, label, name)
        return None if c is None else c["median"]

    def medians(self, boot, label):
        """{case name: median} of one boot's configuration; None for a
        case it does not have."""
        return collections.defaultdict(lambda: None, {
            n: c["median"] for (b, lb, n), c in self.t.items() if (b, lb) == (boot, label)})

    def unit_text(self):
        return ("instructions per call (cost mode: QEMU -icount shift=0, "
                "1 guest ns = 1 instruction)" if self.mode == "cost"
                else "ns per call, median (time mode)")


def fmt(x, digits=0):
    """A number with thousands separators, DIGITS after the point; – for none."""
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def pct(new, base):
    """The change from BASE to NEW as a signed percentage; – when undefined."""
    if new is None or base is None or base == 0:
        return "–"
    return f"{(new - base) / base * 100:+.2f}%"


def md_table(head, rows):
    """A markdown table; a | inside a cell (a mask like TYPE|INO) is
    escaped, code spans included, or it would split the cell."""
    def cell(x):
        return re.sub(r"(?<!\\)\|", r"\\|", str(x))
    out = ["| " + " | ".join(cell(h) for h in head) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(cell(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def default_only(section, r):
    """A section on Debian's default command line only (SECTION(r,
    suffixes=("",))), pointing to the tables file for init_on_alloc=0."""
    return (section(r, suffixes=("",)).rstrip() +
            f"\n\nThe same with `{IOA0}`: {TABLES_LINK}.")
