#!/usr/bin/python3
"""The measured numbers a patch's commit message carries, from one run.

usage: patch_numbers.py RESULTS [--fill DIR]

Prints, for each @@COST_Pn@@ placeholder of the series' commit messages,
a small table of instructions per call (ext4, the kernel without patch n
against the one with it, with Debian's default and with init_on_alloc=0).
--fill writes the tables into DIR/*.patch (6.1's series) and
DIR/BASE/*.patch (the series carried to another base, from that base's
kernels): in place of the placeholder, or, in a patch already filled
from an earlier run, in place of that run's table (patch n of a series
carries @@COST_Pn@@'s).  Only the message changes; kbuild.sh hashes the
diff alone, so nothing is rebuilt.
"""
import argparse
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import statx_results as sr  # noqa: E402

# Where each base's series lives; a base's messages are filled from its
# own kernels (vm/variants.sh: base, partial series, series).
PATCHES = pathlib.Path(__file__).resolve().parent.parent / "patches"


def series_dir(base):
    return PATCHES if base == sr.MAIN_BASE else PATCHES / base


def series_tags(base):
    """{k: the case tag of patch k of BASE's series}.  On the study's own
    base patch k's cases are tagged pk (bench/cases.c); a patch carried to
    another base keeps its subject, and so its file name but the number,
    there (patches/6.12/), and with it the tag of the 6.1 patch it
    carries."""
    def names(d):
        # format-patch's name without its number: the subject's words.
        return [re.sub(r"^\d+-", "", x.strip()) for x in (d / "series").read_text().splitlines()
                if x.strip() and not x.startswith("#")]
    main = names(PATCHES)
    return {k: f"p{main.index(n) + 1}" for k, n in enumerate(names(series_dir(base)), 1)
            if n in main}


def kernels(doc, base):
    """{patch count: variant} of BASE's base, partial series and series
    that the document has, or {} without its base or its series."""
    have = set(sr.boots(doc))
    ks = {r: [] for r in ("base", "partial", "series")}
    for n, r, k, b in sr.variant_list():
        if b == base and r in ks and n in have:
            ks[r].append((k, n))
    if not ks["base"] or not ks["series"]:
        return {}
    out = {}
    for k, n in sorted(ks["base"][:1] + ks["partial"] + ks["series"][:1]):
        out.setdefault(k, n)
    return out


def blocks_of(doc, base=sr.MAIN_BASE):
    """Placeholder: (tag, kernel before, kernel after, what the two are),
    for each patch of BASE's series.  The cases are those bench/cases.c
    tags with the patch's tag (series_tags()).  Patch k is measured on the
    kernel with patches 1..k against the one with 1..k-1 (the base for
    patch 1), when the run has both (vm/variants.sh: a partial series per
    prefix); otherwise on the first kernel that has it against the last
    one without, the nearest the variants built allow, and the message
    says which."""
    by_count = kernels(doc, base)
    if not by_count:
        return {}
    n, out = max(by_count), {}
    tags = series_tags(base)
    for k in range(1, n + 1):
        if k not in tags:
            continue
        after = next(by_count[c] for c in sorted(by_count) if c >= k)
        before = next(by_count[c] for c in sorted(by_count, reverse=True) if c < k)
        a = next(c for c, v in by_count.items() if v == before)
        b = next(c for c, v in by_count.items() if v == after)
        first = "patch 1" if a == 1 else f"patches 1-{a}"
        if b == k and a == k - 1:
            what = f"patch {k} alone" if k == 1 else f"{first} before, 1-{b} after"
        else:
            what = (f"patches 1-{b} applied" if not a
                    else f"{first} before, 1-{b} after") + f": patch {k} not alone"
        out[f"@@COST_P{k}@@"] = (tags[k], before, after, what)
    return out


def head(doc, variant):
    """A kernel as a table's column names it: the base by name (without
    the suffix of another base: the message says which), a series by its
    patches."""
    k = sr.roles(doc).patches.get(variant)
    if k:
        return f"1-{k}" if k > 1 else "1"
    base = next((b for n, _, _, b in sr.variant_list() if n == variant), sr.MAIN_BASE)
    return variant.removesuffix(f"-{base}")


def label(c, glibc):
    """A case as its row names it: the call, with a statx by path's mask,
    glibc's version for a wrapper, a padded name's length."""
    s = c["call"]
    if s == "statx(path)" and c["mask_name"]:
        s = f"statx(path, {c['mask_name']})"
    if c["kind"] == "wrapper":
        s = f"glibc {glibc} {s}".rstrip()
    if "local" in c["tags"]:
        s += f", {c['name_len']}-byte name"
    return s


# The core the messages' modeled cycles are for (analysis/cycle_model.json).
CYCLE_CORE = "zen5"


def cycle_lines(doc, names, before, after, mixdoc=None):
    """Modeled cycles on CYCLE_CORE for the cases the instruction mix has on
    both kernels (analysis/reference/mix.json): (low-high) before and after,
    and the change at each end.  Nothing when the mix lacks either kernel."""
    import cycles
    import mix
    mixdoc = mixdoc if mixdoc is not None else mix.load_mix()
    if not mixdoc:
        return []
    model = cycles.load()
    rows = []
    for n in names:
        a = mixdoc["variants"].get(before, {}).get("ext4", {}).get(n)
        b = mixdoc["variants"].get(after, {}).get("ext4", {}).get(n)
        c = sr.case(doc, before, "ext4", n)
        if not a or not b or not c or c["ret"] < 0:
            continue
        wa = cycles.weigh(a, CYCLE_CORE, model, f"{before}/{n}")
        wb = cycles.weigh(b, CYCLE_CORE, model, f"{after}/{n}")
        glibc = sr.config(doc, before, "ext4")["env"].get("glibc", "")
        rng = [f"{w[0]:.0f}-{w[1]:.0f}" for w in (wa, wb)]
        rows.append(f"    {label(c, glibc):34} {rng[0]:>11} {rng[1]:>11} "
                    f"{mix._change(wa, wb):>12}".rstrip())
    if not rows:
        return []
    return [f"  modeled cycles, {model['cores'][CYCLE_CORE]['short']} (warm core; "
            "analysis/cycle_model.json):"] + rows


# A block's first line: where a filled table starts (FILLED).
INTRO = "  Per call on an ext4 file, Debian's cloud-amd64 config, in QEMU:"


def block(doc, spec, mixdoc=None):
    """The table of a patch's message: modeled cycles first, then the exact
    instruction counts, init_on_alloc=0 before Debian's default, since
    icount counts each byte a rep stosb writes as an instruction and the
    default zeroes the 4 KiB name buffer that way."""
    tag, before, after, what = spec
    names = sr.tagged(doc, tag)
    lines = [INTRO,
             "  cycles modeled for a warm core from each call's instruction mix,",
             "  then instructions counted exactly (-icount; a rep stosb counts",
             "  once per byte it writes):",
             f"  {'':36} {head(doc, before):>7} {head(doc, after):>8} {'change':>8}"]
    lines += cycle_lines(doc, names, before, after, mixdoc)
    for append, title in (("init_on_alloc=0", "instructions, init_on_alloc=0"),
                          ("", "instructions, Debian's default (init_on_alloc=1)")):
        if sr.config(doc, before, "ext4", append) is None:
            continue
        lines.append(f"  {title}:")
        for n in names:
            s = sr.case(doc, before, "ext4", n, append)
            p = sr.case(doc, after, "ext4", n, append)
            if not s or not p:
                continue
            sv = f"{s['median']:.0f}" if s["ret"] >= 0 else s["errno"]
            ch = (f"{(p['median'] - s['median']) / s['median'] * 100:+.1f}%"
                  if s["ret"] >= 0 else "")
            glibc = sr.config(doc, before, "ext4", append)["env"].get("glibc", "")
            lines.append(f"    {label(s, glibc):34} {sv:>7} {p['median']:8.0f} {ch:>8}".rstrip())
    lines.append(f"  (run {doc.get('run_id', '?')}; {what})")
    return "\n".join(lines)


# A filled table: its first line through its "(run ...; ...)" line.
FILLED = re.compile("^" + re.escape(INTRO) + r"\n(?:.*\n)*?  \(run [^;\n]*;[^\n]*\)$",
                    re.MULTILINE)
SUBJECT = re.compile(r"^Subject: \[PATCH (\d+)/\d+\]", re.MULTILINE)


def fill(text, blocks):
    """TEXT with its placeholders, or its one filled table, made BLOCKS'."""
    new = text
    for k, v in blocks.items():
        new = new.replace(k, v)
    if new != text:
        return new
    m = SUBJECT.search(text)
    key = f"@@COST_P{m.group(1)}@@" if m else None
    if key not in blocks:
        return text
    # The message ends at the first "---" line; never touch the diff.
    head, sep, rest = text.partition("\n---\n")
    tables = FILLED.findall(head)
    if len(tables) != 1:
        return text
    return head.replace(tables[0], blocks[key]) + sep + rest


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--fill", metavar="DIR")
    a = ap.parse_args()
    doc = sr.load(a.results)
    # Each base's series from its own kernels: DIR's messages (6.1's) and
    # those of DIR/BASE/ for every other base the run measured.
    for base in dict.fromkeys([sr.MAIN_BASE] + [b for *_, b in sr.variant_list()]):
        blocks = {k: block(doc, v) for k, v in blocks_of(doc, base).items()}
        for k, v in blocks.items():
            print(f"{base} {k}")
            print(v)
        d = pathlib.Path(a.fill) if a.fill else None
        if d is not None and base != sr.MAIN_BASE:
            d = d / base
        if d is None or not d.is_dir():
            continue
        for p in sorted(d.glob("*.patch")):
            text = p.read_text()
            new = fill(text, blocks)
            if new != text:
                p.write_text(new)
                print(f"filled {p}")


if __name__ == "__main__":
    main()
