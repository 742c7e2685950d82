#!/usr/bin/python3
"""Merge one benchmark run's guest outputs into its results.json.

usage: merge.py RUNDIR [-o FILE]

RUNDIR holds guest/<tag>/ for each boot (vm.env, config-diff.txt and
raw/<label>.json from the harness, raw/dispatch.json from
bench/dispatch.py) and traces/<variant>/ (probes/*.json
from the probe-overhead study, labelled probe.<kind>) and
conformance/<variant>/output (tests/guest/conformance.sh) and
scale/<variant>/ (bench/guest-scale.sh) and clients/<variant>/
(bench/guest-clients.sh); the merged file
follows the schema in bench/SCHEMA.md.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import clients  # noqa: E402
import conformance  # noqa: E402
import nfs_sites  # noqa: E402
import profiles  # noqa: E402
import scale  # noqa: E402
import statx_results  # noqa: E402


def per_scenario(rundir, sub, prefix, suffix, parse):
    """{variant: {scenario: parse(text)}} of traces/<variant>/SUB/
    PREFIX<scenario>SUFFIX; a file parse refuses is left out with a
    warning that names it."""
    out = {}
    for f in sorted(rundir.glob(f"traces/*/{sub}/{prefix}*{suffix}")):
        variant, scenario = f.parts[-3], f.name[len(prefix):-len(suffix)]
        try:
            out.setdefault(variant, {})[scenario] = parse(f.read_text())
        except ValueError as e:
            print(f"merge.py: WARNING: {f}: {e}; left out", file=sys.stderr)
    return out


def busy_cost(cases):
    """Cost mode: a case's figure is its busy time (the harness's --busy),
    the instructions the whole guest ran for the call, and not its clock,
    which jumps to the next timer while the guest idles (an NFS call's
    wait for its reply).  median, samples and ci95 become the busy ones;
    the clock's are kept as clock_median, clock_samples and clock_ci95.
    Where nothing idles the two are equal."""
    out = []
    for x in cases:
        x = dict(x)
        if "busy_median" in x:
            x["clock_median"], x["clock_samples"], x["clock_ci95"] = (
                x["median"], x["samples"], x["ci95"])
            x["median"], x["samples"], x["ci95"] = (
                x.pop("busy_median"), x.pop("busy_samples"), x.pop("busy_ci95"))
        out.append(x)
    return out


def merge(rundir):
    rundir = pathlib.Path(rundir)
    configs = []
    dispatch = {}
    # A run of the probe study alone (make probes) has no guest/.
    boots = sorted((rundir / "guest").iterdir()) if (rundir / "guest").is_dir() else []
    # The probe-overhead study's files (traces/guest-traces.sh) share the
    # schema: one configuration per probe kind.
    if (rundir / "traces").is_dir():
        boots += sorted((rundir / "traces").iterdir())
    for boot in boots:
        if not (boot / "vm.env").exists():
            continue
        vm = statx_results.read_env(boot / "vm.env")
        diff = boot / "config-diff.txt"
        raws = sorted(p for p in (boot / "raw").glob("*.json") if p.name != "dispatch.json")
        raws += sorted((boot / "probes").glob("*.json"))
        # bench/dispatch.py: one per kernel (every boot of it agrees).
        if (boot / "raw" / "dispatch.json").exists():
            dispatch.setdefault(vm["variant"],
                                json.loads((boot / "raw" / "dispatch.json").read_text()))
        for raw in raws:
            r = json.loads(raw.read_text())
            try:
                statx_results.validate(r, "harness_file")
            except statx_results.SchemaError as e:
                sys.exit(f"merge.py: {raw}: not a harness file of bench/schema.json: {e}")
            # Time mode: the interval the harness aimed at, and its warning
            # when the clock was an emulator's.
            extra = {k: r[k] for k in ("ci_target", "warning") if k in r}
            configs.append({
                "boot": boot.name,
                "variant": vm["variant"],
                "kernel_append": vm.get("kernel_append", ""),
                "label": r["label"],
                "fs": r["fs"],
                "mode": r["mode"],
                "unit": r["unit"],
                "vm": vm,
                "config_diff": diff.read_text() if diff.exists() else "",
                "env": r["env"],
                "overhead": r["overhead"],
                "cases": busy_cost(r["cases"]) if r["mode"] == "cost" else r["cases"],
                **extra,
            })
    if not configs:
        sys.exit(f"merge.py: no results under {rundir}/guest or {rundir}/traces")
    # The conformance suite's runs (bench/run.sh: conformance/<variant>/).
    conf = {}
    for out in sorted(rundir.glob("conformance/*/output")):
        conf[out.parent.name] = conformance.parse(out.read_text(errors="replace"))
    # The scaling study (bench/guest-scale.sh: scale/<variant>/).
    scale_dirs = sorted(d for d in rundir.glob("scale/*") if list(d.glob("scale-*.json")))
    scale_runs = [scale.for_results(r) for r in scale.load(scale_dirs)] if scale_dirs else []
    # Real clients (bench/guest-clients.sh: clients/<variant>/clients/).
    client_runs = {d.name: clients.load(d) for d in sorted(rundir.glob("clients/*"))
                   if (d / "clients").is_dir()}
    # Where each NFS RPC of a stat() comes from, and each profile's
    # top-symbol table (traces/guest-traces.sh).
    sites = per_scenario(rundir, "traces", "nfs_sites.", ".txt", nfs_sites.parse)
    prof = per_scenario(rundir, "profiles", "top.", ".md", profiles.parse_top)
    modes = {c["mode"] for c in configs}
    doc = {
        "schema": statx_results.SCHEMA,
        "run_id": rundir.name,
        "mode": modes.pop() if len(modes) == 1 else "mixed",
        "configs": configs,
    }
    # The sections a run has (bench/schema.json); one it did not run is absent.
    doc.update((k, v) for k, v in (("dispatch", dispatch), ("conformance", conf),
                                   ("scale", scale_runs), ("clients", client_runs),
                                   ("nfs_sites", sites), ("profiles", prof)) if v)
    try:
        statx_results.validate(doc)
    except statx_results.SchemaError as e:
        sys.exit(f"merge.py: the merged document of {rundir} breaks bench/schema.json: {e}")
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rundir")
    ap.add_argument("-o", "--output", default=None)
    a = ap.parse_args()
    doc = merge(a.rundir)
    out = pathlib.Path(a.output or pathlib.Path(a.rundir) / "results.json")
    # Written whole or not at all: a run killed here leaves no half file.
    tmp = out.with_name(out.name + ".partial")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(out)
    print(f"merge: {len(doc['configs'])} configurations -> {out}")


if __name__ == "__main__":
    main()
