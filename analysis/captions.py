#!/usr/bin/python3
"""Each figure of REPORT.md with its caption, the caption's comparisons
worked out from the numbers the figure draws (issue 36): a caption says
"does not move" only where the two kernels' counts are inside the noise,
"agrees" only where the two figures it sets side by side are within the
bound it states.  A generated section (REPORT.md's figures section);
tests/analysis/test_captions.py checks each claim flips with its data.

usage: captions.py SUMMARY     print the section
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import scale  # noqa: E402
import statx_results as sr  # noqa: E402
from md import Report, pct  # noqa: E402

FIGS = "analysis/reference/figures"
# fio against ours: within this fraction of ours is "agrees".
FIO_AGREES = 0.10


def moves(r, a, b, label, name, beyond):
    """How case NAME goes from kernel A to kernel B, in words the data
    supports: "does not move" inside the noise, else its change."""
    ca, cb = r.case(a, label, name), r.case(b, label, name)
    if not ca or not cb or ca["ret"] < 0 or cb["ret"] < 0:
        return None
    if not beyond(ca, cb, label):
        return "does not move beyond the noise"
    return f"moves {pct(cb['median'], ca['median'])}"


def series_caption(r, beyond):
    base, series = r.roles.base, r.roles.series
    fst = moves(r, base, series, "ext4", "fstat", beyond)
    words = [f"The calls by descriptor and by path on ext4, every kernel of the series from "
             f"{base} to {series}, instructions per call; hatched: a call that fails (its "
             "errno and kernels beside it)."]
    if fst:
        words.append(f"Raw `fstat` {fst} from {base} to {series};")
    for name, what in (("fstatat.empty", "glibc's fstat(), the empty name no longer "
                        "copied and looked up"), ("stat", "by path, the small struct filename")):
        m = moves(r, base, series, "ext4", name, beyond)
        if m:
            words.append(f"`{name}` ({what}) {m}.")
    words.append("In cost mode the 4 KiB name buffer's zeroing counts one instruction per "
                 "byte: the right panel is the same without it (init_on_alloc=0).")
    return " ".join(words)


def fio_caption(r):
    """fio's filestat engine against ours: which of its calls agree with
    ours (like for like: stat and lstat of a name), which do not, and why
    its statx is no like-for-like call."""
    runs = scale.from_results(r.doc)
    agree, differ = [], []
    for run in runs:
        for (fs, typ), job in sorted(run["fio"].items()):
            if fs not in run["scale"]:
                continue
            mean = scale.fio_row(job)[1]
            ours, _ = scale.fio_ours(run["scale"][fs], typ)
            ok = abs(mean - ours) <= FIO_AGREES * ours
            (agree if ok and typ in ("stat", "lstat") else differ).append(f"{fs} {typ}")
    if not agree and not differ:
        return None
    out = ["fio's `filestat` engine against our harness, per call."]
    if agree:
        out.append(f"Within {FIO_AGREES:.0%} of ours: {', '.join(agree)} (the same call, a "
                   "name looked up and its attributes returned).")
    if differ:
        out.append(f"Not within it: {', '.join(differ)}; fio's statx is realpath() and then "
                   "statx() of the absolute path with STATX_ALL, not the call ours times.")
    return " ".join(out)


def section(r, beyond):
    """The figures, each with its caption; a figure whose data the run
    lacks is left out."""
    out = []

    def fig(name, alt, caption):
        if caption:
            out.extend([f"![{alt}]({FIGS}/{name})", "", f"*Figure: {caption}*", ""])
    fig("series.png", "the series on ext4", series_caption(r, beyond))
    fig("filename.png", "stat() by name length",
        "stat() by path on ext4 by the length of its name: the base kernel, the series "
        "before and with its struct filename patch, the whole series, and 6.12's two; "
        "instructions per call.")
    fig("mix.png", "instruction mix", "One call's instructions by class (QEMU's exec log), "
        f"{r.roles.base} against {r.roles.series} (hatched); a colour per class.")
    fig("cycles.png", "modeled cycles", "The change from the base kernel to the series in "
        "modeled cycles on each core, at both ends of the model's interval: a bar that does "
        "not cross zero is a change the model decides, whatever the absolute cycles.")
    fig("nfs.png", "NFS", "Each NFS configuration's cases on the whole series: the whole "
        "guest's busy instructions per call (a dot, with its spread as a line through it; "
        "log scale) and the GETATTR RPCs per call.")
    fig("dirty.png", "a writer's stat", "A writer's stat: each call after a one-page pwrite, "
        "its cost beyond the pwrite alone (busy instructions, its spread as a line), and the "
        "NFS WRITE RPCs and bytes it sends.")
    fig("scale/fio.png", "fio against ours", fio_caption(r))
    fig("probes.png", "probe overhead", "What one probe hit on the getattr path adds to a "
        "stat(), by kind of attach point: a panel per loader (bpftrace's program, "
        "probe-count's fixed one); compare bars within a panel.")
    return "\n".join(out) if out else "No figures in this run.\n"


def main():
    import report
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("summary")
    a = ap.parse_args()
    r = Report(sr.load(a.summary))
    sys.stdout.write(section(r, lambda x, y, lb: report.beyond_noise(x, y, r.mode, lb)))


if __name__ == "__main__":
    main()
