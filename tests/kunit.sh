#!/bin/bash
# kunit.sh - the series' KUnit test of struct filename (the small struct
# filename patch's fs/filename_kunit.c), built into each base's whole
# series as User-Mode Linux (vm/uml.sh) and run: kunit.py parses its KTAP,
# and every KUNIT_CASE the patch adds ran and passed.  Then, in the same
# UML kernel, the timing suite (patches/uml/, bench/uml-timing.sh): it
# runs, passes, and every case's and every sweep's line parses
# (analysis/uml_timing.py --check-boot); its numbers are not judged here.
# Usage: tests/kunit.sh [VARIANT...]   (default: patched)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ $# -gt 0 ] || set -- patched
rc=0
for v in "$@"; do
	# The patch that adds the test, in the variant's series.
	# shellcheck disable=SC1090 # a variant file: KEY=VALUE lines
	series=$(. "vm/variants/$v.conf" && echo "${SERIES:?}")
	patch=$(grep -l '^+++ b/fs/filename_kunit.c' "$(dirname "$series")"/0*.patch)
	want=$(sed -n '/^+++ b\/fs\/filename_kunit.c/,/^diff --git/p' "$patch" |
		sed -n 's/^+	KUNIT_CASE(\([a-z0-9_]*\)),$/\1/p')
	[ -n "$want" ] || { echo "kunit: $v: no KUNIT_CASE in $patch"; exit 1; }
	out=$(vm/uml.sh kunit "$v" filename 2>&1) || {
		echo "$out" | tail -n 40
		echo "kunit: $v: the filename suite failed or did not run"
		rc=1
		continue
	}
	echo "$out" | grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete' || true
	for t in $want; do
		if ! grep -q "\[PASSED\] $t\$" <<<"$out"; then
			echo "kunit: $v: $t did not run and pass"
			rc=1
		fi
	done
	echo "kunit: $v: $(wc -w <<<"$want") cases of $(basename "$patch"), each passed"
	log=$(mktemp)
	words=$(vm/uml.sh --timing-cmd "$v")
	mapfile -t cmd <<<"$words"
	timeout 300 "${cmd[@]}" </dev/null >"$log" 2>&1 || true
	if ! /usr/bin/python3 analysis/uml_timing.py --check-boot "$log"; then
		tail -n 20 "$log"
		echo "kunit: $v: the statx_timing suite failed, did not run, or printed a line that does not parse"
		rc=1
	fi
	rm -f "$log"
done
exit $rc
