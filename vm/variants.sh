#!/bin/bash
# variants.sh - what each kernel variant is, read from vm/variants/*.conf:
# the one place a variant's role is decided, for the Makefile, bench/run.sh
# and the analysis (analysis/statx_results.py roles()).
#
# Usage: vm/variants.sh list       a line per variant: NAME ROLE PATCHES BASE
#        vm/variants.sh measured [BASE]
#                                  the variants make bench measures on BASE
#                                  (default 6.1), in order: base, partials,
#                                  series
#        vm/variants.sh bases      every BASE but 6.1 that has variants
#        vm/variants.sh role NAME  NAME's role
#
# Roles: a variant built from the measurement config alone (FRAGMENTS
# "base", no EXTRA_PATCHES) is the base (no series), a partial series
# (SERIES_UPTO=K: patches 1..K) or the series (every patch in SERIES).
# Any other variant (extra config fragments, a test patch) is "study":
# built for one question (probes, BTF, AFS, the regression gate), never
# one of the kernels the tables compare.  PATCHES is how many patches of
# the series it carries.  BASE is the Debian kernel source it is built
# from (linux-source-BASE): 6.1, the study's own, or a later one (6.12)
# whose base and series the report sets beside 6.1's.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)

# describe CONF: "ROLE PATCHES BASE" for one variant file.
describe() {
	local BASE=6.1 SERIES="" SERIES_UPTO="" EXTRA_PATCHES="" FRAGMENTS="" total=0
	# shellcheck disable=SC1090 # a variant file: KEY=VALUE lines
	. "$1"
	if [ -n "$SERIES" ]; then
		total=$(grep -cv '^[[:space:]]*\(#\|$\)' "$ROOT/$SERIES")
	fi
	local n=${SERIES_UPTO:-$total}
	if [ "$FRAGMENTS" != base ] || [ -n "$EXTRA_PATCHES" ]; then
		echo "study $n $BASE"
	elif [ -z "$SERIES" ]; then
		echo "base 0 $BASE"
	elif [ -n "$SERIES_UPTO" ]; then
		echo "partial $n $BASE"
	else
		echo "series $n $BASE"
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
	list | awk -v b="${2:-6.1}" '$4 != b { next }
		$2 == "base" { print 0, $3, $1 } $2 == "partial" { print 1, $3, $1 }
		$2 == "series" { print 2, $3, $1 }' | sort -k1,1n -k2,2n | awk '{ print $3 }' |
		paste -sd' '
	;;
bases)
	list | awk '$4 != "6.1" && !seen[$4]++ { print $4 }' | sort -V | paste -sd' '
	;;
role)
	[ $# -eq 2 ] || { echo "usage: vm/variants.sh role NAME" >&2; exit 2; }
	[ -f "$ROOT/vm/variants/$2.conf" ] ||
		{ echo "variants.sh: no variant '$2' (vm/variants/$2.conf)" >&2; exit 2; }
	describe "$ROOT/vm/variants/$2.conf" | cut -d' ' -f1
	;;
*)
	echo "usage: vm/variants.sh list | measured [BASE] | bases | role NAME" >&2
	exit 2
	;;
esac
