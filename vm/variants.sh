#!/bin/bash
# variants.sh - what each kernel variant is, read from vm/variants/*.conf:
# the one place a variant's role is decided, for the Makefile, bench/run.sh
# and the analysis (analysis/statx_results.py roles()).
#
# Usage: vm/variants.sh list       a line per variant: NAME ROLE PATCHES
#        vm/variants.sh measured   the variants make bench measures, in
#                                  order: base, partials, series
#        vm/variants.sh role NAME  NAME's role
#
# Roles: a variant built from the measurement config alone (FRAGMENTS
# "base", no EXTRA_PATCHES) is the base (no series), a partial series
# (SERIES_UPTO=K: patches 1..K) or the series (every patch in SERIES).
# Any other variant (extra config fragments, a test patch) is "study":
# built for one question (probes, BTF, AFS, the regression gate), never
# one of the kernels the tables compare.  PATCHES is how many patches of
# the series it carries.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)

# describe CONF: "ROLE PATCHES" for one variant file.
describe() {
	local SERIES="" SERIES_UPTO="" EXTRA_PATCHES="" FRAGMENTS="" total=0
	# shellcheck disable=SC1090 # a variant file: KEY=VALUE lines
	. "$1"
	if [ -n "$SERIES" ]; then
		total=$(grep -cv '^[[:space:]]*\(#\|$\)' "$ROOT/$SERIES")
	fi
	local n=${SERIES_UPTO:-$total}
	if [ "$FRAGMENTS" != base ] || [ -n "$EXTRA_PATCHES" ]; then
		echo "study $n"
	elif [ -z "$SERIES" ]; then
		echo "base 0"
	elif [ -n "$SERIES_UPTO" ]; then
		echo "partial $n"
	else
		echo "series $n"
	fi
}

list() {
	local f
	for f in "$ROOT"/vm/variants/*.conf; do
		echo "$(basename "$f" .conf) $(describe "$f")"
	done
}

case ${1:-} in
list)
	list
	;;
measured)
	# base first, then partials by patch count, then the series.
	list | awk '$2 == "base" { print 0, $3, $1 } $2 == "partial" { print 1, $3, $1 }
		$2 == "series" { print 2, $3, $1 }' | sort -k1,1n -k2,2n | awk '{ print $3 }' |
		paste -sd' '
	;;
role)
	[ $# -eq 2 ] || { echo "usage: vm/variants.sh role NAME" >&2; exit 2; }
	[ -f "$ROOT/vm/variants/$2.conf" ] ||
		{ echo "variants.sh: no variant '$2' (vm/variants/$2.conf)" >&2; exit 2; }
	describe "$ROOT/vm/variants/$2.conf" | cut -d' ' -f1
	;;
*)
	echo "usage: vm/variants.sh list | measured | role NAME" >&2
	exit 2
	;;
esac
