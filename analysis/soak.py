#!/usr/bin/python3
"""What a soak run (tests/soak.sh) found: boots, tests, every failure with
its TAP and stacks, and how close the slowest tests came to a timeout.

usage: soak.py DIR [--json FILE]

DIR holds VARIANT/BOOT/ run directories (vm/run.sh -o), each with
series.tap and conformance.tap (kselftest_harness TAP), hangwatch-*/
tests.tsv (each test's guest, busy, idle and host seconds) and
soak-status (the guest command's exit status).  A boot fails when its
status is not 0, when a suite's TAP is missing or ran no test, or when a
test is "not ok".  Prints a summary table; writes DIR/failures.txt with
each failure in full (its TAP lines, hangwatch's snapshot, the console's
last lines) and DIR/soak.json.  Exit status 1 when any boot failed.
"""
import argparse
import csv
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conformance  # noqa: E402  (the TAP parser the suites share)

SUITES = ("series", "conformance")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def timings(boot_dir):
    """{test: row} from every hangwatch-*/tests.tsv of one boot."""
    rows = {}
    for suite in SUITES:
        text = read(os.path.join(boot_dir, f"hangwatch-{suite}", "tests.tsv"))
        if not text:
            continue
        for r in csv.DictReader(text.splitlines(), delimiter="\t"):
            rows[r["test"]] = {k: float(r[k]) for k in ("guest_s", "busy_s", "idle_s", "host_s")}
    return rows


def test_block(tap, name):
    """The TAP lines of one test, from its RUN line to its result."""
    out, on = [], False
    for line in tap.splitlines():
        if re.match(r"#\s+RUN\s+" + re.escape(name) + r" \.\.\.", line):
            on = True
        if on:
            out.append(line)
            if re.match(r"(not )?ok \d+ ", line):
                break
    return out


def boot_result(boot_dir):
    status = read(os.path.join(boot_dir, "soak-status"))
    res = {"status": int(status) if status and status.strip().lstrip("-").isdigit() else None,
           "suites": {}, "failures": [], "problems": []}
    for suite in SUITES:
        tap = read(os.path.join(boot_dir, f"{suite}.tap"))
        if tap is None:
            res["problems"].append(f"no {suite}.tap")
            continue
        parsed = conformance.parse(tap)
        res["suites"][suite] = parsed["totals"]
        if not parsed["tests"]:
            res["problems"].append(f"{suite}: no test ran")
        for name, st in sorted(parsed["tests"].items()):
            if st == "fail":
                res["failures"].append({"suite": suite, "test": name,
                                        "tap": test_block(tap, name),
                                        "hangwatch": hangwatch_lines(tap, name)})
    if res["status"] not in (0, None) and not res["failures"] and not res["problems"]:
        res["problems"].append(f"guest command exit status {res['status']}")
    if res["status"] is None:
        res["problems"].append("no status (the boot did not finish)")
    res["failed"] = bool(res["failures"] or res["problems"] or res["status"])
    return res


def hangwatch_lines(tap, name):
    """hangwatch's lines about NAME: its verdict and the snapshot after it."""
    out, on = [], False
    for line in tap.splitlines():
        if line.startswith(f"# hangwatch: {name} "):
            on = True
        elif on and not line.startswith("# hangwatch: "):
            break
        if on:
            out.append(line)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--json", help="default DIR/soak.json")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        sys.exit(f"soak.py: {a.dir}: no such directory")
    variants = {}
    for v in sorted(os.listdir(a.dir)):
        vdir = os.path.join(a.dir, v)
        if not os.path.isdir(vdir):
            continue
        boots = sorted((b for b in os.listdir(vdir) if b.isdigit()), key=int)
        if boots:
            variants[v] = {b: os.path.join(vdir, b) for b in boots}
    if not variants:
        sys.exit(f"soak.py: {a.dir}: no VARIANT/BOOT directories")

    summary, failures, slow, all_timings = {}, [], {}, []
    for v, boots in variants.items():
        s = summary[v] = {"boots": len(boots), "boots_failed": 0, "tests": 0,
                          "tests_failed": 0, "skipped": 0}
        for b, bdir in boots.items():
            r = boot_result(bdir)
            for t in r["suites"].values():
                s["tests"] += t["pass"] + t["fail"] + t["skip"]
                s["tests_failed"] += t["fail"]
                s["skipped"] += t["skip"]
            if r["failed"]:
                s["boots_failed"] += 1
                failures.append((v, b, bdir, r))
            t = timings(bdir)
            all_timings.append([dict(r, test=k) for k, r in t.items()])
            for test, row in t.items():
                cur = slow.get(test)
                if cur is None or row["guest_s"] > cur["guest_s"]:
                    slow[test] = dict(row, variant=v, boot=int(b))

    print(f"{'variant':10} {'boots':>5} {'failed':>6} {'tests':>7} {'failed':>6} {'skipped':>7}")
    for v, s in summary.items():
        print(f"{v:10} {s['boots']:5} {s['boots_failed']:6} {s['tests']:7} "
              f"{s['tests_failed']:6} {s['skipped']:7}")
    print()
    rows = [r for b in all_timings for r in b]
    if rows:
        # The RTC counts whole host seconds: a test's guest idle time beyond
        # its host seconds plus one is time the guest clock ran ahead.
        ahead = max(rows, key=lambda r: r["idle_s"] - r["host_s"])
        bands = ", ".join(f"{sum(r['guest_s'] >= t for r in rows)} ran {t} s or more"
                          for t in (5, 10, 20, 30))
        print(f"{len(rows)} test runs: {bands} of guest time")
        print(f"guest clock ahead of the host's: at most {max(0.0, ahead['idle_s'] - ahead['host_s'] - 1):.2f} s "
              f"in one test ({ahead['test']}: idle {ahead['idle_s']:.2f} s, host {ahead['host_s']:.0f} s)")
    print("slowest tests (the longest of all boots; guest seconds, of them idle,"
          " and host seconds by the RTC):")
    for test, row in sorted(slow.items(), key=lambda kv: -kv[1]["guest_s"])[:8]:
        print(f"  {test:52} guest {row['guest_s']:7.2f} s  idle {row['idle_s']:6.2f} s"
              f"  host {row['host_s']:4.0f} s  ({row['variant']} boot {row['boot']})")

    with open(os.path.join(a.dir, "failures.txt"), "w") as f:
        for v, b, bdir, r in failures:
            f.write(f"=== {v} boot {b} ({bdir}): status {r['status']}\n")
            for p in r["problems"]:
                f.write(f"problem: {p}\n")
            for fl in r["failures"]:
                f.write(f"--- {fl['suite']}: {fl['test']}\n")
                f.write("\n".join(fl["tap"] + fl["hangwatch"]) + "\n")
            console = read(os.path.join(bdir, "console.log")) or ""
            f.write("--- console, last 30 lines\n")
            f.write("\n".join(console.splitlines()[-30:]) + "\n\n")
    for v, b, bdir, r in failures:
        what = [f"{fl['suite']}: {fl['test']}" for fl in r["failures"]] + r["problems"]
        print(f"FAILED: {v} boot {b}: {'; '.join(what)}")
        for fl in r["failures"]:
            for line in fl["hangwatch"][:3]:
                print(f"  {line}")
    if failures:
        print(f"details: {os.path.join(a.dir, 'failures.txt')}")

    with open(a.json or os.path.join(a.dir, "soak.json"), "w") as f:
        json.dump({"summary": summary, "slowest": slow,
                   "test_runs": sum(len(b) for b in all_timings),
                   "failures": [{"variant": v, "boot": int(b), "status": r["status"],
                                 "problems": r["problems"],
                                 "tests": [fl["test"] for fl in r["failures"]]}
                                for v, b, _, r in failures]}, f, indent=1)
    total = sum(s["boots"] for s in summary.values())
    bad = sum(s["boots_failed"] for s in summary.values())
    print(f"soak: {total - bad} of {total} boots passed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
