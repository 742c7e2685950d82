"""Small fixture results in the one schema, made here, not measured: they
test the analysis code, never the kernel."""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "analysis"))


def _reference_cases():
    """{name: case} of the committed reference run: the fixture's cases take
    their tags, call, kind and name length from the harness's own record."""
    import json
    doc = json.loads((ROOT / "analysis" / "reference" / "summary.json").read_text())
    return {x["name"]: x for c in doc["configs"] for x in c["cases"]}


REFERENCE = _reference_cases()


def make_case(name, median, samples=None, ret=0, errno="", getattr_=None, mask=0,
              tags=None, kind="raw"):
    samples = samples or [median] * 5
    ref = REFERENCE.get(name, {})
    c = {"name": name, "call": ref.get("call", name), "kind": ref.get("kind", kind),
         "tags": ref.get("tags", []) if tags is None else tags, "mask": mask,
         "mask_name": "", "flags": ref.get("flags", 0), "name_len": ref.get("name_len", 13),
         "ret": ret, "errno": errno, "iters": 10, "median": median, "samples": samples,
         "ci95": [min(samples), max(samples)]}
    if getattr_ is not None:
        c["nfs_ops_per_call"] = {"GETATTR": getattr_, "LOOKUP": 0.0, "ACCESS": 0.0,
                                 "WRITE": 0.0, "COMMIT": 0.0}
    return c


def make_config(variant, label, cases, append="", mode="cost"):
    return {"variant": variant, "kernel_append": append, "label": label,
            "fs": "" if label == "floor" else label.split(".")[0].rstrip("34"), "mode": mode,
            "unit": "instructions" if mode == "cost" else "ns",
            "vm": {"variant": variant, "release": f"6.1.0-{variant}", "config_hash": "abc",
                   "mode": mode, "accel": "tcg", "accel_note": "", "qemu": "QEMU 7.2",
                   "host_cpu": "cpu"},
            "config_diff": "CONFIG_X n -> y\n", "env": {
                "init_on_alloc": "1", "glibc": "2.36", "release": f"6.1.0-{variant}",
                "mount": "ext4 rw", "cpu": "qemu", "netem_us": "0",
                **({"nfs_vers": label[3], "actimeo": "0" if "actimeo0" in label else "default"}
                   if label.startswith("nfs") else {})},
            "overhead": {"fixed": 40.0, "per_iter": 6.0}, "cases": cases}


@pytest.fixture
def doc():
    def ext4(stat, fstat, empty, null_ok):
        return [make_case("stat", stat), make_case("fstat", fstat),
                make_case("fstatat.empty", empty),
                make_case("statx.BASIC_STATS", stat + 140),
                make_case("statx.fd.empty", empty + 140),
                make_case("statx.fd.null", fstat + 150 if null_ok else 7000,
                          ret=0 if null_ok else -1, errno="" if null_ok else "EFAULT")]
    floor = [make_case("calib.rep_stosb_4096", 4135.0), make_case("calib.rep_stosq_512", 518.0),
             make_case("calib.loop_2000", 2001.0), make_case("getppid", 299.0),
             make_case("null", 0.0)]
    nfs = [make_case("stat", 168000.0, getattr_=1.7), make_case("statx.SIZE", 90000.0, getattr_=1.0)]
    return {"schema": 1, "run_id": "fixture", "mode": "cost", "configs": [
        make_config("stock", "floor", floor),
        make_config("stock", "ext4", ext4(7669.0, 1149.0, 6414.0, False)),
        make_config("patched", "ext4", ext4(7671.0, 1149.0, 1160.0, True)),
        make_config("stock", "ext4", ext4(3700.0, 1149.0, 2500.0, False), append="init_on_alloc=0"),
        make_config("patched", "nfs3.actimeo0", nfs),
    ]}
