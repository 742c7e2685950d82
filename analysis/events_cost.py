#!/usr/bin/python3
"""What the tracepoints cost disabled, boot by boot (bench/events-cost.sh).

usage: events_cost.py DIR --before V --after V [-o JSON] [--fill PATCH]

DIR holds SETTING/VARIANT.I/cases.json, the harness's file of one boot in
cost mode.  For each setting and call: each boot's median, each kernel's
range over its boots, and the change of every pair of boots (boot i of
AFTER against boot i of BEFORE).  A call's change is "exact" when every
pair gives the same change (to 0.5 instruction: the harness's overhead
is subtracted per batch), else it is given as the range the pairs span.

-o writes the JSON kept in analysis/reference/events_cost.json; --fill
writes the table into PATCH's message, in place of @@EVENTS_COST@@ or of
the table an earlier run filled (never into the diff).
"""
import argparse
import json
import pathlib
import re
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import patch_numbers as pn  # noqa: E402

# Two pairs agree when their changes differ by less than this.
EXACT = 0.5
INTRO = "  Disabled, boot by boot (each kernel booted alternately, the same"
PLACEHOLDER = "@@EVENTS_COST@@"


EVENTS_COST_FILE = pathlib.Path(__file__).resolve().parent / "reference" / "events_cost.json"


class EventsCostError(Exception):
    pass


def load(path=EVENTS_COST_FILE):
    path = pathlib.Path(path)
    return json.loads(path.read_text()) if path.is_file() else None


def verdict_line(doc, names, at_most, setting="usercopy_off"):
    """One line for the report's patch-by-patch checks: NAMES' change in
    every pair of boots with hardened usercopy off, against AT_MOST, and
    how far a call moved between boots with Debian's command line."""
    s = doc["settings"].get(setting)
    d = doc["settings"].get("default")
    if s is None:
        return None
    parts, ok = [], True
    for n in names:
        c = s["cases"].get(n)
        if c is None:
            continue
        parts.append(f"`{n}` {change(c)}")
        ok = ok and c["exact"] and c["delta_median"] <= at_most
    if not parts:
        return None
    line = (f"{s['boots']} boots of each (make events-cost), hardened_usercopy=off: "
            + ", ".join(parts) +
            f" (target ≤ +{at_most} instructions: {'met' if ok else '**not met**'})")
    if d:
        moved = max(max(c["before_range"], c["after_range"]) for c in d["cases"].values())
        line += (f"; with Debian's command line a by-path call moves by up to {moved:g} "
                 "between boots of one kernel (the usercopy check of its name)")
    return line


def boots(d, setting, variant):
    """The harness files of VARIANT's boots in SETTING, in boot order."""
    out = []
    for p in (d / setting).glob(f"{variant}.*"):
        m = re.fullmatch(re.escape(variant) + r"\.(\d+)", p.name)
        if not m:
            continue
        f = p / "cases.json"
        if not f.is_file():
            raise EventsCostError(f"{p}: no cases.json (the boot did not finish)")
        out.append((int(m.group(1)), json.loads(f.read_text())))
    if not out:
        raise EventsCostError(f"{d / setting}: no boot of {variant}")
    return [doc for _, doc in sorted(out, key=lambda t: t[0])]


def cmdline(doc):
    return doc.get("env", {}).get("kernel_cmdline", "")


def summarize(d, before, after):
    settings = {}
    for sd in sorted(p for p in d.iterdir() if p.is_dir()):
        b, a = boots(d, sd.name, before), boots(d, sd.name, after)
        if len(b) != len(a):
            raise EventsCostError(f"{sd}: {len(b)} boots of {before}, {len(a)} of {after}")
        names = [c["name"] for c in b[0]["cases"]]
        cases = {}
        for n in names:
            bm, am = [], []
            for docs, out in ((b, bm), (a, am)):
                for doc in docs:
                    c = {x["name"]: x for x in doc["cases"]}.get(n)
                    if c is None or c.get("ret", -1) < 0:
                        raise EventsCostError(f"{sd.name}: {n} did not run, or failed, on a boot of "
                                              f"{doc.get('variant', '?')}")
                    out.append(round(c["median"], 3))
            deltas = [round(y - x, 3) for x, y in zip(bm, am)]
            c0 = {x["name"]: x for x in b[0]["cases"]}[n]
            cases[n] = {
                "call": pn.label(c0, ""),
                "before": bm, "after": am, "deltas": deltas,
                "before_range": round(max(bm) - min(bm), 3),
                "after_range": round(max(am) - min(am), 3),
                "delta_median": statistics.median(deltas),
                "exact": max(deltas) - min(deltas) < EXACT,
            }
        settings[sd.name] = {"cmdline": cmdline(b[0]), "boots": len(b), "cases": cases}
    if not settings:
        raise EventsCostError(f"{d}: no setting")
    return {"kind": "events_cost", "before": before, "after": after, "settings": settings}


def change(c):
    lo, hi = min(c["deltas"]), max(c["deltas"])
    if c["exact"]:
        return f"{c['delta_median']:+.0f} in every pair"
    return f"{lo:+.0f} to {hi:+.0f}"


def table(doc):
    lines = [INTRO,
             "  calls; instructions in cost mode, median of each boot's batches):"]
    for s, sv in doc["settings"].items():
        extra = "Debian's command line" if s == "default" else s.replace("_", " ")
        lines.append(f"  {extra}, {sv['boots']} boots of each:")
        lines.append(f"    {'':34} {'boot to boot':>13} {'change':>18}")
        for c in sv["cases"].values():
            spread = max(c["before_range"], c["after_range"])
            lines.append(f"    {c['call']:34} {spread:>13.0f} {change(c):>18}")
    lines.append(f"  (analysis/reference/events_cost.json; {doc['before']} before, "
                 f"{doc['after']} after)")
    return "\n".join(lines)


FILLED = re.compile("^" + re.escape(INTRO) + r"\n(?:.*\n)*?  \(analysis/reference/events_cost\.json;[^\n]*\)$",
                    re.MULTILINE)


def fill(text, block):
    head, sep, rest = text.partition("\n---\n")
    if PLACEHOLDER in head:
        return head.replace(PLACEHOLDER, block) + sep + rest
    found = FILLED.findall(head)
    if len(found) != 1:
        raise EventsCostError(f"the message has {len(found)} events-cost tables and no {PLACEHOLDER}")
    return head.replace(found[0], block) + sep + rest


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", type=pathlib.Path)
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("-o", "--output", type=pathlib.Path)
    ap.add_argument("--fill", type=pathlib.Path)
    a = ap.parse_args()
    try:
        doc = summarize(a.dir, a.before, a.after)
        block = table(doc)
        print(block)
        if a.output:
            a.output.write_text(json.dumps(doc, indent=1) + "\n")
        if a.fill:
            text = a.fill.read_text()
            new = fill(text, block)
            if new != text:
                a.fill.write_text(new)
                print(f"filled {a.fill}")
    except EventsCostError as e:
        sys.exit(f"events-cost: {e}")


if __name__ == "__main__":
    main()
