"""The targets the report checks the series against, and the regression
gate's threshold: each written once, here.  Fractions of the baseline."""

# The stat:* events' patch (the last): compiled in and disabled, they cost
# a call at most this many instructions (cost mode) over the series
# without them: two patched-out jumps, ->getattr() still a tail call.
EVENTS_OFF_INSTRUCTIONS = 2
# The fast paths' patches: a call by descriptor within this much of raw
# fstat (plus the copy-out difference for statx).
FD_PATH_WITHIN = 0.02
# The struct filename patch: stat() by path costs at most this fraction of
# stock's.
STAT_BY_PATH_AT_MOST = 0.55
# The struct filename patch: no case slower than stock by more than this.
NO_CASE_SLOWER = 0.005
# make compare (bench/compare.sh, analysis/compare.py): a case slower than
# the base by more than this is a regression.
GATE_THRESHOLD = 0.005
# Regressions each base's series is known to make, by kernel base
# (vm/variants.sh bases): (case pattern, configuration pattern, boot
# pattern, bound, why).  make compare lists such a case as accepted, not
# regressed, when a base kernel is compared with a series kernel (whole or
# partial) of the same base and the case stays within the bound (a
# fraction of the base); the same case slower on any other pair of
# kernels, or beyond its bound, fails the gate.  Each was measured
# (REPORT.md).
ANY = r".*"
# A name of 160 bytes or more: one that leaves the small object.
LONG_NAME = r"(stat|statx|open)\.name(1[6-9][0-9]|[2-9][0-9][0-9]|[0-9]{4})"
# The calls by name whose path the events lengthen, a short name's too.
BY_NAME = (r"l?stat|stat\.symlink|statx\.[A-Z_|.]+|statx\.symlink(\.NOFOLLOW)?|glibc\.l?stat"
           r"|(stat|statx)\.name(\d|[1-9]\d|1[0-5]\d)")
# The calls by descriptor, whose path the events lengthen by their two
# patched-out jumps.
BY_FD = r"fstat|fstatat\.(empty|null)|glibc\.fstat|statx\.(fd\.(empty|null)|opath\.empty)"
# Each bound is the change measured in the reference run (20261207T004613Z,
# the series' largest over every configuration and boot) plus the gate's
# own rule for that call: none for a call by descriptor (exact), five
# instructions of allocator jitter for a call that copies a name.
GATE_ACCEPTED = {"6.1": [
    (LONG_NAME, ANY, ANY, 0.106,
     "patch 4: a name of 160 bytes or more pays for the small object "
     "before its PATH_MAX buffer"),
    (BY_NAME, ANY, r".*init_on_alloc=0.*", 0.009,
     "patch 1: statx_getattr(), split out of vfs_statx(), is a call of its own on "
     "every call by name, which patch 4 pays back only where the 4 KiB name buffer "
     "is zeroed"),
    (BY_FD, ANY, ANY, 0.0018,
     "patch 5: the stat:* events, compiled in and disabled, cost two patched-out "
     "jumps (+2 instructions)"),
], "6.12": [
    # patches/6.12: patch 1 is 6.1's patch 4, patch 2 is 6.1's patch 5.
    (LONG_NAME, ANY, ANY, 0.097,
     "6.12 patch 1: a name of 160 bytes or more pays for the small object "
     "before its PATH_MAX buffer"),
    (BY_FD, ANY, ANY, 0.0018,
     "6.12 patch 2: the stat:* events, compiled in and disabled, cost two "
     "patched-out jumps (+2 instructions)"),
]}


def pct(fraction):
    """0.005 as '0.5%'."""
    return f"{fraction * 100:g}%"

