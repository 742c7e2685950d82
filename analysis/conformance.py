#!/usr/bin/python3
"""The conformance suite's TAP output: counts, masks, fuzz, and the check
that stock and patched differ only where the series means them to.

usage: conformance.py OUTPUT                      summary of one run (JSON)
       conformance.py --diff STOCK PATCHED        exit 1 on a difference
                                                  the series does not intend
       conformance.py --series-diff STOCK PATCHED the series tests' TAP:
                                                  exit 1 on a failure, or a
                                                  skip the series does not
                                                  explain

OUTPUT is what tests/guest/conformance.sh printed (kselftest_harness TAP).
Test names are conf.<fs>.<test> (global.<test> for fs-independent ones).
The series intends one difference: statx(fd, NULL, AT_EMPTY_PATH) works,
so in the fuzz run some EFAULTs become successes (or the descriptor's own
error); everything else must be the same, test by test and count by count.
"""
import argparse
import json
import re
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402
from md import TABLES_LINK, md_table  # noqa: E402

FUZZ = re.compile(r"# fuzz: (\S+) (\d+) calls, (\d+) succeeded; (.*)")
MASK = re.compile(r"# statx-mask (\S+) (0x[0-9a-f]+) (0x[0-9a-f]+)")


def parse(text):
    """{"tests": {name: pass|fail|skip}, "skips": {name: reason},
    "by_fs": {fs: {pass, fail, skip}},
    "masks": {fs: {asked: got}}, "fuzz": {fs: {...}}, "totals": {...}}"""
    tests, skips, current, masks, fuzz = {}, {}, None, {}, {}
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"#\s+RUN\s+(\S+) \.\.\.", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"(ok|not ok) \d+ (.*)", line)
        if m and current:
            if m.group(2).startswith("# SKIP"):
                tests[current] = "skip"
                skips[current] = m.group(2)[len("# SKIP"):].strip()
            else:
                tests[current] = "pass" if m.group(1) == "ok" else "fail"
            current = None
            continue
        m = MASK.match(line)
        if m:
            masks.setdefault(m.group(1), {})[m.group(2)] = m.group(3)
            continue
        m = FUZZ.match(line)
        if m:
            counts = {k: int(v) for k, v in re.findall(r"(E[A-Z]+) (\d+)", m.group(4))}
            fuzz[m.group(1)] = {"calls": int(m.group(2)), "ok": int(m.group(3)),
                                "errno": counts}
    by_fs = {}
    for name, status in tests.items():
        parts = name.split(".")
        fs = parts[1] if parts[0] == "conf" and len(parts) == 3 else "any"
        by_fs.setdefault(fs, {"pass": 0, "fail": 0, "skip": 0})[status] += 1
    totals = {k: sum(v[k] for v in by_fs.values()) for k in ("pass", "fail", "skip")}
    return {"tests": tests, "skips": skips, "by_fs": by_fs, "masks": masks,
            "fuzz": fuzz, "totals": totals}


def diff(stock, patched):
    """The differences the series does not intend, as lines (none: OK)."""
    bad = []
    if not stock["tests"] or not patched["tests"]:
        return ["no TAP results"]
    if set(stock["tests"]) != set(patched["tests"]):
        bad.append(f"different tests: {sorted(set(stock['tests']) ^ set(patched['tests']))}")
    for name in sorted(set(stock["tests"]) & set(patched["tests"])):
        s, p = stock["tests"][name], patched["tests"][name]
        if s != p or p == "fail":
            bad.append(f"{name}: stock {s}, patched {p}")
    if stock["masks"] != patched["masks"]:
        bad.append("statx-mask lines differ")
    for fs in sorted(set(stock["fuzz"]) | set(patched["fuzz"])):
        s, p = stock["fuzz"].get(fs), patched["fuzz"].get(fs)
        if not s or not p or s["calls"] != p["calls"]:
            bad.append(f"fuzz {fs}: not the same calls")
            continue
        # Flag and name errors cannot change; EFAULT can only become a
        # success or the descriptor's own error.
        for e in ("EINVAL", "ENOENT", "ENOTDIR", "ENAMETOOLONG", "ELOOP"):
            if s["errno"].get(e) != p["errno"].get(e):
                bad.append(f"fuzz {fs}: {e} {s['errno'].get(e)} -> {p['errno'].get(e)}")
        if p["errno"].get("EFAULT", 0) > s["errno"].get("EFAULT", 0):
            bad.append(f"fuzz {fs}: more EFAULT with the series")
        if p["ok"] < s["ok"]:
            bad.append(f"fuzz {fs}: fewer successes with the series")
    return bad


def series_diff(stock, patched):
    """The series tests on stock and patched: (table lines, bad lines).
    Both must pass; stock may skip only what the series adds (its skip
    reason names "stock 6.1"), patched only a file system not mounted."""
    rows, bad = [], []
    if not stock["tests"] or not patched["tests"]:
        return rows, ["no TAP results"]
    if set(stock["tests"]) != set(patched["tests"]):
        bad.append(f"different test lists: {sorted(set(stock['tests']) ^ set(patched['tests']))}")
    for name in sorted(patched["tests"]):
        s, p = stock["tests"].get(name, "missing"), patched["tests"][name]
        rows.append(f"{name:60} stock={s:5} patched={p:5}" + ("" if s == p else "   <- differs"))
        if "fail" in (s, p):
            bad.append(f"{name}: stock {s}, patched {p}")
        if s == "skip" and p != "skip" and "stock 6.1" not in stock["skips"].get(name, ""):
            bad.append(f"stock skipped {name}: {stock['skips'].get(name)}")
        if p == "skip" and "not mounted" not in patched["skips"].get(name, ""):
            bad.append(f"patched skipped {name}: {patched['skips'].get(name)}")
    return rows, bad


# --- its section of REPORT.md -------------------------------------------------

# (name between REPORT.md's generated markers, title in a run's own report)
SECTION = ("conformance", "Conformance")


def section(r):
    conf = r.doc.get("conformance")
    if not conf:
        return "No conformance run in these results (bench/run.sh runs it).\n"
    ro = sr.roles(sorted(conf))
    variants = [v for v in ro.measured if v in conf]
    variants += [v for v in sorted(conf) if v not in variants]
    fss = []
    for v in variants:
        fss += [fs for fs in conf[v]["by_fs"] if fs not in fss]
    out = ["Tests passed / failed / skipped, per file system and kernel "
           "(tests/guest/statx_conformance_test.c; \"any\": tests that do not "
           "depend on the file system).", ""]
    rows = []
    for fs in fss:
        row = [fs]
        for v in variants:
            c = conf[v]["by_fs"].get(fs)
            row.append(f"{c['pass']} / {c['fail']} / {c['skip']}" if c else "-")
        rows.append(row)
    rows.append(["all"] + [f"{conf[v]['totals']['pass']} / {conf[v]['totals']['fail']} / "
                           f"{conf[v]['totals']['skip']}" for v in variants])
    out += [md_table(["file system"] + variants, rows), ""]
    skips = {}
    for v in variants:
        for name, why in conf[v].get("skips", {}).items():
            skips.setdefault(name, set()).add(why)
    if skips:
        out += ["Skipped, and why:", ""]
        out += [f"- `{n}`: {'; '.join(sorted(w))}" for n, w in sorted(skips.items())]
        out.append("")
    fuzz_rows = []
    for v in variants:
        for fs, f in conf[v].get("fuzz", {}).items():
            e = f["errno"]
            fuzz_rows.append([v, fs, f"{f['calls']}", f"{f['ok']}"] +
                             [str(e.get(k, 0)) for k in ("EFAULT", "EBADF", "EINVAL", "ENOENT",
                                                         "ENOTDIR", "ENAMETOOLONG", "ELOOP")])
    if fuzz_rows:
        out += ["Fuzz runs (fixed seed; statx() and newfstatat() with random "
                "descriptors, names, flags, masks and buffers): calls, successes "
                "and errors.", "",
                md_table(["kernel", "fs", "calls", "ok", "EFAULT", "EBADF", "EINVAL",
                          "ENOENT", "ENOTDIR", "ENAMETOOLONG", "ELOOP"], fuzz_rows), ""]
    if ro.base and ro.series:
        bad = diff(conf[ro.base], conf[ro.series])
        out.append(f"{ro.base.capitalize()} against {ro.series}: " + (
            "the same results test by test; in the fuzz run only EFAULTs "
            "turned into successes or EBADF (the NULL name with AT_EMPTY_PATH), "
            "as the series intends." if not bad else
            "differences the series does not intend: " + "; ".join(bad) + "."))
        out.append("")
    masks = conf[variants[-1]].get("masks", {})
    if masks:
        asked = []
        for fs in masks:
            asked += [a for a in masks[fs] if a not in asked]
        out += [f"stx_mask returned for each requested mask ({variants[-1]}; a regular "
                "file just created, so NFS's attribute cache is fresh):", "",
                md_table(["asked"] + list(masks),
                         [[f"{sr.mask_name(int(a, 16)) or 'none'} `{a}`"] +
                          [f"`{masks[fs].get(a, '-')}`" for fs in masks]
                          for a in asked]), ""]
    return "\n".join(out)


def brief(r):
    """REPORT.md's version: the totals and the stock-against-patched
    verdict; skips, fuzz counts and returned masks go to the tables file."""
    full = section(r)
    ro = sr.roles(sorted(r.doc.get("conformance") or {}))
    verdict = f"{(ro.base or '').capitalize()} against {ro.series}"
    keep = []
    for para in full.split("\n\n"):
        if para.startswith(("Tests passed", "| file system", verdict)):
            keep.append(para)
    return "\n\n".join(keep) + f"\n\nSkips and why, the fuzz runs' counts and the masks returned: {TABLES_LINK}.\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", nargs="+")
    ap.add_argument("--diff", action="store_true")
    ap.add_argument("--series-diff", action="store_true")
    a = ap.parse_args()
    runs = [parse(open(p, errors="replace").read()) for p in a.output]
    if a.series_diff:
        if len(runs) != 2:
            sys.exit("--series-diff takes STOCK and PATCHED")
        rows, bad = series_diff(*runs)
        print("\n".join(rows + [f"unintended: {b}" for b in bad]))
        sys.exit(1 if bad else 0)
    if not a.diff:
        json.dump(runs[0], sys.stdout, indent=1)
        print()
        return
    if len(runs) != 2:
        sys.exit("--diff takes STOCK and PATCHED")
    stock, patched = runs
    for fs in sorted(patched["by_fs"]):
        s, p = stock["by_fs"].get(fs, {}), patched["by_fs"][fs]
        print(f"{fs:6} stock {s.get('pass', 0)}/{s.get('fail', 0)}/{s.get('skip', 0)}"
              f"  patched {p['pass']}/{p['fail']}/{p['skip']}  (pass/fail/skip)")
    for fs in sorted(patched["fuzz"]):
        print(f"fuzz {fs}: stock {stock['fuzz'].get(fs, {}).get('ok')} ok, "
              f"patched {patched['fuzz'][fs]['ok']} ok of {patched['fuzz'][fs]['calls']}")
    bad = diff(stock, patched)
    for line in bad:
        print("unintended:", line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
