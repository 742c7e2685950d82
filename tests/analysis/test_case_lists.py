"""No module of analysis/ keeps its own list of case names: a case's tags
in bench/cases.c say which tables and figures show it, and the analysis
selects by tag (bench/SCHEMA.md, Case tags).  A new case then reaches
every table of its tags by its one row in cases.c."""
import ast
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "analysis" / "reference"
# A literal with more case names than this is a list of cases kept by
# hand; two are a pair one sentence compares (stat against fstat).
MOST = 2


def case_names():
    """Every case name the committed reference holds: the harness's record
    of each case in summary.json, and the AFS run's, which alone has the
    stale cases (analysis/afs.py)."""
    doc = json.loads((REFERENCE / "summary.json").read_text())
    names = {x["name"] for c in doc["configs"] for x in c["cases"]}
    for path in sorted(REFERENCE.glob("afs*.json")):
        afs = json.loads(path.read_text())
        names |= set(afs["cases"]) | set(afs.get("afs0", {}).get("cases", {}))
    return names


def lists_of_cases(source, names):
    """[(line, kind, case names)] of each tuple, list or set literal in
    SOURCE, and each dict literal by its keys, that holds more than MOST
    case names."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        found = [x.value for x in items if isinstance(x, ast.Constant) and x.value in names]
        if len(found) > MOST:
            out.append((node.lineno, type(node).__name__.lower(), found))
    return sorted(out)


def test_the_reference_names_the_cases():
    names = case_names()
    assert {"stat", "fstat", "glibc.fstat", "stale.stat"} <= names


def test_a_list_of_cases_is_found():
    names = {"stat", "fstat", "statx.fd.null", "glibc.fstat"}
    src = ("A = ('stat', 'fstat', 'statx.fd.null')\n"
           "def f(r):\n"
           "    return [r.v(n) for n in ['fstat', 'other', 'stat', 'glibc.fstat']]\n"
           "B = {'stat': 1, 'fstat': 2, 'glibc.fstat': 3}\n"
           "C = ('stat', 'fstat')\n")
    assert [(line, kind) for line, kind, _ in lists_of_cases(src, names)] == \
        [(1, "tuple"), (3, "list"), (4, "dict")]


def test_no_module_keeps_a_list_of_cases():
    names = case_names()
    found = [f"{path.relative_to(ROOT)}:{line}: a {kind} of {len(cases)} case names "
             f"({', '.join(cases)})"
             for path in sorted((ROOT / "analysis").glob("*.py"))
             for line, kind, cases in lists_of_cases(path.read_text(), names)]
    assert not found, ("select cases by their tags in bench/cases.c (statx_results.tagged), "
                       "not by a list of names:\n" + "\n".join(found))
