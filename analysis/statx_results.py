"""The one results schema (bench/SCHEMA.md): loading, checking, lookups,
and the statistics every analysis script shares."""
import functools
import json
import pathlib
import subprocess
from types import SimpleNamespace

import numpy as np
from scipy import stats

SCHEMA = 1
# The kernel command line the study boots besides Debian's default.
IOA0 = "init_on_alloc=0"

# The one schema (bench/schema.json; bench/SCHEMA.md explains it): every
# section a document may have, checked with python3-jsonschema.
SCHEMA_FILE = pathlib.Path(__file__).resolve().parent.parent / "bench" / "schema.json"


class SchemaError(ValueError):
    pass


def _validator(ref=None):
    import jsonschema
    schema = json.loads(SCHEMA_FILE.read_text())
    if ref:
        schema = {**schema, "$ref": f"#/$defs/{ref}"}
        for k in ("type", "required", "properties"):
            schema.pop(k, None)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate(doc, ref=None):
    """Raise SchemaError unless doc follows bench/schema.json (REF: one of
    its $defs, e.g. "harness_file"); the message names the first field
    that does not, by its path.  Returns doc."""
    errors = sorted(_validator(ref).iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise SchemaError(f"{where}: {e.message[:300]}{more}")
    return doc


def load(path):
    """The results document at PATH, checked; a missing or broken file
    ends the program with one line that names it."""
    p = pathlib.Path(path)
    if not p.is_file():
        raise SystemExit(f"{p}: no such results file (a run of 'make bench' "
                         "writes results/<run-id>/results.json)")
    try:
        with open(p) as f:
            return validate(json.load(f))
    except (json.JSONDecodeError, SchemaError) as e:
        raise SystemExit(f"{p}: not a results file of this study: {e}")


def read_env(path):
    """A guest run's vm.env (vm/run.sh: variant, release, mode, started
    ...) as a dict; {} when the run has none."""
    path = pathlib.Path(path)
    if not path.is_file():
        return {}
    env = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            env[key] = value
    return env


# STATX_* bits as 6.1's uapi defines them; BASIC_STATS first, so that a
# mask holding all of it reads as one name.  The harness writes the same
# names into each case's mask_name (statx_mask_name() in bench/cases.c;
# tests/analysis checks that the two agree on every case).
STATX_NAMES = ((0x7ff, "BASIC_STATS"), (0x1, "TYPE"), (0x2, "MODE"), (0x4, "NLINK"),
               (0x8, "UID"), (0x10, "GID"), (0x20, "ATIME"), (0x40, "MTIME"),
               (0x80, "CTIME"), (0x100, "INO"), (0x200, "SIZE"), (0x400, "BLOCKS"),
               (0x800, "BTIME"), (0x1000, "MNT_ID"), (0x2000, "DIOALIGN"))


def mask_name(mask):
    """A statx mask as names: 0x7ff is BASIC_STATS, 0xfff
    BASIC_STATS|BTIME, bits no name covers in hex, 0 as ''."""
    names, left = [], mask
    for bit, name in STATX_NAMES:
        if left & bit == bit:
            names.append(name)
            left &= ~bit
    if left:
        names.append(f"{left:#x}")
    return "|".join(names)


def boot_name(config):
    """variant, plus the kernel command-line knobs it was booted with."""
    a = config.get("kernel_append") or ""
    return config["variant"] + (f" [{a}]" if a else "")


VARIANTS_SH = pathlib.Path(__file__).resolve().parent.parent / "vm" / "variants.sh"


# The study's own kernel base; other bases (6.12) are set beside it.
MAIN_BASE = "6.1"


@functools.lru_cache(maxsize=None)
def variant_list():
    """[(variant, role, patches, base)]: vm/variants.sh list."""
    out = subprocess.run([str(VARIANTS_SH), "list"], capture_output=True, text=True,
                         check=True).stdout
    return [(n, r, int(k), b) for n, r, k, b in (line.split() for line in out.splitlines())]


@functools.lru_cache(maxsize=None)
def variant_roles():
    """{variant: (role, patches)}: vm/variants.sh, the one place a variant's
    role is decided from its vm/variants/*.conf: "base" (no patches),
    "partial" (the series up to a patch), "series" (all of it) or
    "study" (built for one question).  The roles are those of the study's
    own base (6.1); a variant of another base is "other" here, and
    other_bases() says what it is."""
    return {n: (r if b == MAIN_BASE else "other", k) for n, r, k, b in variant_list()}


def other_bases(boots_or_doc):
    """{base: (base variant, series variant)} for every kernel base but
    6.1 that a document (or a list of boot names) has both kernels of."""
    names = boots(boots_or_doc) if isinstance(boots_or_doc, dict) else boots_or_doc
    have = set(names)
    out = {}
    for base in dict.fromkeys(b for _, _, _, b in variant_list() if b != MAIN_BASE):
        kernels = {r: n for n, r, _, b in variant_list() if b == base and n in have}
        if "base" in kernels and "series" in kernels:
            out[base] = (kernels["base"], kernels["series"])
    return out


PATCHES = pathlib.Path(__file__).resolve().parent.parent / "patches"

# What a patch of a base's series does, as the analysis asks for it: the
# words of its subject, as its format-patch file name spells them.  The
# one place that knows which patch is which; every section asks it for a
# patch's number instead of counting on the series' order.
PATCH_KINDS = {
    "null": "let-statx-take-a-NULL-name",
    "empty": "stat-an-empty-name",
    "wide": "with-AT_EMPTY_PATH-and-other-flags",
    "filename": "keep-struct-filename-in-a-small-object",
    "events": "add-tracepoints-for-getattr",
}


@functools.lru_cache(maxsize=None)
def patch_number(kind, base=MAIN_BASE):
    """The number, in BASE's series, of the patch that does KIND
    (PATCH_KINDS), or None where that series has no such patch."""
    d = PATCHES if base == MAIN_BASE else PATCHES / base
    names = [x.strip() for x in (d / "series").read_text().splitlines()
             if x.strip() and not x.startswith("#")]
    hits = [k for k, n in enumerate(names, 1) if PATCH_KINDS[kind] in n]
    if len(hits) > 1:
        raise ValueError(f"{d}/series: {len(hits)} patches match '{kind}'")
    return hits[0] if hits else None


def with_patches(ro, k):
    """The kernel of roles() RO that carries the first K patches of the
    series (the base for 0), or None where the run has none."""
    return next((v for v in ro.measured if ro.patches.get(v) == k), None)


def _rank(variant):
    role, k = variant_roles().get(variant, ("study", 0))
    return ({"base": 0, "partial": 1, "series": 2, "other": 3}.get(role, 4), k)


def roles(boots_or_doc):
    """The series' kernels among a document's boots (or a list of boot
    names): .base (no patches), .partials (by patch count), .last_partial
    (the series but its last patch), .series (every patch), .measured
    (base, partials, series), .patches {variant: patch count}; None where
    the document has no such kernel."""
    names = boots(boots_or_doc) if isinstance(boots_or_doc, dict) else boots_or_doc
    have = [b for b in dict.fromkeys(names) if " [" not in b]
    vr = variant_roles()

    def of(role):
        return sorted((b for b in have if vr.get(b, ("",))[0] == role), key=_rank)
    base, partials, series = of("base"), of("partial"), of("series")
    return SimpleNamespace(
        base=base[0] if base else None, partials=partials,
        last_partial=partials[-1] if partials else None,
        series=series[0] if series else None,
        measured=base[:1] + partials + series[:1],
        patches={b: vr[b][1] for b in have if b in vr})


def boots(doc):
    """Every boot of a document, the series' kernels in the order of the
    series (base, partial series, the whole series: vm/variants.sh), then
    the others by variant, each by command line: the order of the report's
    columns."""
    def key(c):
        v = c["variant"]
        return (_rank(v), v, c.get("kernel_append") or "")
    out = []
    for c in sorted(doc["configs"], key=key):
        if boot_name(c) not in out:
            out.append(boot_name(c))
    return out


def labels(doc):
    """Every configuration label of a document, in the order of its configs."""
    return list(dict.fromkeys(c["label"] for c in doc["configs"]))


def tagged(doc, *tags, without=()):
    """The names of the cases carrying any of TAGS and none of WITHOUT, in
    the harness's order (bench/cases.c): the one way the analysis picks
    cases, so that a case tagged there reaches every table and figure of
    its tags."""
    want, skip = set(tags), set(without)
    names = {}
    for c in doc["configs"]:
        for case in c["cases"]:
            t = set(case["tags"])
            if t & want and not t & skip:
                names.setdefault(case["name"], None)
    return list(names)


def case_info(doc, name):
    """The first record of case NAME in doc (its call, tags, mask,
    name_len), or None."""
    for c in doc["configs"]:
        for case in c["cases"]:
            if case["name"] == name:
                return case
    return None


def fs_configs(doc):
    """The file-system configurations of a document (not the floor, not
    the probe study), as their first config, in one order: local file
    systems, then NFS by version, the attribute cache on before actimeo=0,
    then by netem delay.  Read from what each configuration recorded
    (bench/guest-bench.sh's table), never from a list of labels."""
    def key(c):
        e = c["env"]
        vers = e.get("nfs_vers") or "0"
        return (c["fs"] == "nfs", tuple(int(x) for x in vers.split(".")),
                e.get("actimeo", "default") != "default", int(e.get("netem_us") or 0),
                c["label"])
    out = {}
    for c in sorted((c for c in doc["configs"] if c["fs"] and "probe" not in c["env"]),
                    key=key):
        out.setdefault(c["label"], c)
    return list(out.values())


def fs_labels(doc, fs=None, actimeo=None, netem=None):
    """Labels of fs_configs(doc), those on file system FS, with the
    attribute cache ACTIMEO ("default", "0") and the delay NETEM (µs)."""
    out = []
    for c in fs_configs(doc):
        e = c["env"]
        if fs is not None and c["fs"] != fs:
            continue
        if actimeo is not None and e.get("actimeo") != actimeo:
            continue
        if netem is not None and int(e.get("netem_us") or 0) != netem:
            continue
        out.append(c["label"])
    return out


def table(doc):
    """{(boot, label, case name): case} over a whole document."""
    out = {}
    for c in doc["configs"]:
        for case in c["cases"]:
            out[(boot_name(c), c["label"], case["name"])] = case
    return out


def config(doc, variant, label, append=""):
    for c in doc["configs"]:
        if (c["variant"] == variant and c["label"] == label
                and (c.get("kernel_append") or "") == append):
            return c
    return None


def case(doc, variant, label, name, append=""):
    c = config(doc, variant, label, append)
    if c is None:
        return None
    for x in c["cases"]:
        if x["name"] == name:
            return x
    return None


def estimate(samples):
    """Median of per-call samples."""
    return float(np.median(np.asarray(samples, dtype=float)))


def median_ci_ranks(n, level=0.95):
    """(r_lo, r_hi, coverage): the 1-based ranks of the two order
    statistics that bound the interval of the median of N samples, and the
    probability that they cover the median whatever the distribution.
    With B ~ Binomial(N, 1/2) the pair (r, N + 1 - r) covers it with
    probability P(r <= B <= N - r) = 1 - 2 P(B <= r - 1); the pair taken
    is the narrowest whose coverage reaches LEVEL.  No pair reaches 95%
    below 6 samples: then the minimum and the maximum, with the coverage
    they have (5 samples: 0.9375), which the caller must report.  The
    harness's median_ci95() (bench/harness.c) follows the same rule; a
    test holds the two together."""
    if n < 1:
        raise ValueError(f"no interval of the median of {n} samples")
    r = np.arange(1, (n + 1) // 2 + 1)
    cover = 1.0 - 2.0 * stats.binom.cdf(r - 1, n, 0.5)
    # Coverage falls as r grows: the pairs that reach LEVEL come first.
    reach = np.flatnonzero(cover >= level)
    i = reach[-1] if len(reach) else 0
    return int(r[i]), int(n + 1 - r[i]), float(cover[i])


def median_ci(samples, level=0.95):
    """(median, lo, hi, coverage): the samples' median and its interval,
    the order statistics median_ci_ranks() names, with the coverage they
    have (below LEVEL only when too few samples reach it)."""
    x = np.sort(np.asarray(samples, dtype=float))
    r_lo, r_hi, cover = median_ci_ranks(len(x), level)
    return float(np.median(x)), float(x[r_lo - 1]), float(x[r_hi - 1]), cover


def verdict(base, new, mode, threshold_pct=0.5, alpha=0.01):
    """Compare two cases' samples.  Returns (delta_pct, verdict) where
    verdict is "ok", "regressed" or "improved".

    Cost mode counts are exact: the delta of medians is the answer and any
    delta beyond the threshold counts.  Time mode asks a Mann-Whitney U test
    whether the samples differ at all, and the medians' delta whether it
    matters (beyond the threshold)."""
    b, n = estimate(base["samples"]), estimate(new["samples"])
    if b == 0:
        delta = 0.0 if n == 0 else float("inf")
    else:
        delta = (n - b) / abs(b) * 100.0
    if mode == "time":
        p = stats.mannwhitneyu(base["samples"], new["samples"],
                               alternative="two-sided").pvalue
        if p >= alpha:
            return delta, "ok"
    if delta > threshold_pct:
        return delta, "regressed"
    if delta < -threshold_pct:
        return delta, "improved"
    return delta, "ok"


# --- figures -------------------------------------------------------------------

def mode_note(mode):
    """How every figure names the mode its numbers were measured in."""
    return ("cost mode: instructions, QEMU -icount" if mode == "cost"
            else "time mode: ns, median")


def pyplot():
    """matplotlib.pyplot without a display."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "statx-study"
    return plt


def figure_main(doc, figures, missing):
    """The command line every figure script has: RESULTS positional, -o DIR
    (DOC is its --help); FIGURES(results, outdir) draws, and an empty
    return prints MISSING (what the results lack) instead of failing."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("-o", "--output", required=True, help="directory for the figure")
    a = ap.parse_args()
    made = figures(load(a.results), a.output)
    for m in made:
        print(f"figure: {m}")
    if not made:
        print(f"{pathlib.Path(sys.argv[0]).name}: {missing} in {a.results}, no figure")


def save_figure(fig, outdir, name):
    """fig as OUTDIR/NAME.png (REPORT.md's) and NAME.svg; returns the PNG's
    path.  No date in the SVG and fixed ids, so that drawing the same
    numbers again gives the same files."""
    import matplotlib.pyplot as plt
    outdir = pathlib.Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    fig.savefig(outdir / f"{name}.png", dpi=110, bbox_inches="tight")
    fig.savefig(outdir / f"{name}.svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return outdir / f"{name}.png"


def kernel_colour(doc, boot):
    """One matplotlib colour per kernel of doc, whatever its command line."""
    kernels = list(dict.fromkeys(b.split(" [")[0] for b in boots(doc)))
    return f"C{kernels.index(boot.split(' [')[0])}"


def case_bars(ax, doc, boots, label, names):
    """Horizontal bars on ax, one per boot and case of configuration label,
    grouped around the case's tick, coloured by kernel (kernel_colour); in
    time mode each carries its median's 95% interval (the harness's ci95).
    A failed call is hatched and named.  Returns the drawn values."""
    t = table(doc)
    h = 0.8 / len(boots)
    drawn_vals, failed = [], {}
    for i, b in enumerate(boots):
        ys = [y - 0.4 + (i + 0.5) * h for y in range(len(names))]
        cases = [t.get((b, label, n)) for n in names]
        vals = [(c or {}).get("median") or 0 for c in cases]
        drawn_vals += [v for v in vals if v > 0]
        err = None
        cis = [(c or {}).get("ci95") for c in cases]
        if doc["mode"] == "time" and any(cis):
            err = [[v - ci[0] if ci else 0 for v, ci in zip(vals, cis)],
                   [ci[1] - v if ci else 0 for v, ci in zip(vals, cis)]]
        drawn = ax.barh(ys, vals, height=h, label=b, color=kernel_colour(doc, b), xerr=err,
                        error_kw={"elinewidth": 0.8, "capsize": 2})
        for bar, c, n in zip(drawn, cases, names):
            if c and c["ret"] < 0:
                bar.set_hatch("//")
                bar.set_alpha(0.5)
                failed.setdefault(n, []).append((b.split(" [")[0], c["errno"], bar.get_width()))
    # One label per failing case, right of its longest failing bar: the
    # kernels it fails on and how.
    for y, n in enumerate(names):
        if n in failed:
            ks, errnos, widths = zip(*failed[n])
            ax.text(max(widths), y, f" {'/'.join(sorted(set(errnos)))} on {', '.join(ks)}",
                    va="center", fontsize=7)
    ax.set_yticks(range(len(names)))
    ax.set_ylim(len(names) - 0.5, -0.5)
    return drawn_vals
