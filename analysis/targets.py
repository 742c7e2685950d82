"""The targets the report checks the series against, and the regression
gate's threshold: each written once, here.  Fractions of the baseline."""

# Patch 1: the stat:* events compiled in and disabled cost at most this
# much on a call (patch 1 alone against stock).
EVENTS_OFF_OVERHEAD = 0.005
# Patches 2-4: a call by descriptor within this much of raw fstat (plus
# the copy-out difference for statx).
FD_PATH_WITHIN = 0.02
# Patch 5: stat() by path costs at most this fraction of stock's.
STAT_BY_PATH_AT_MOST = 0.55
# Patch 5: no case slower than stock by more than this.
NO_CASE_SLOWER = 0.005
# make compare (bench/compare.sh, analysis/compare.py): a case slower than
# the base by more than this is a regression.
GATE_THRESHOLD = 0.005
# Regressions the series makes on purpose: (case name pattern, bound, why).
# make compare lists such a case as accepted, not regressed, when the base
# kernel is compared with a series kernel and the case stays within the
# bound (a fraction); the same case slower on any other pair, or beyond
# the bound, fails the gate.
GATE_ACCEPTED = [
    (r"(stat|statx|open)\.name(1[6-9][0-9]|[2-9][0-9][0-9]|[0-9]{4})", 0.12,
     "patch 5: a name of 160 bytes or more pays for the small object "
     "before its PATH_MAX buffer"),
]


def pct(fraction):
    """0.005 as '0.5%'."""
    return f"{fraction * 100:g}%"

