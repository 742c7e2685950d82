#!/bin/bash
# bench-refusal.sh - the harness refuses setups that would make its
# figures lie, with a message, before measuring anything.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$ROOT/bench"
B=$ROOT/build/statx-bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
refuse() { # refuse WHY ARGS...: the harness must exit 2 and say "refusing"
	local why=$1 out rc=0
	shift
	out=$("$B" "$@" 2>&1) || rc=$?
	if [ "$rc" = 2 ] && grep -q refusing <<<"$out"; then
		echo "refused ($why): $out"
	else
		echo "NOT refused ($why): status $rc: $out"
		fails=$((fails + 1))
	fi
}
# Here on the host there is no -icount: cost mode has no meaning.
refuse "cost mode outside an -icount guest" --mode cost --cases null
refuse "file system not what was asked" --mode time --dir "$dir" --fs nfs --cases stat
refuse "kernel not the variant asked" --mode time --variant no-such-variant --cases null
refuse "directory missing" --mode time --dir "$dir/missing" --fs ext4 --cases stat
# The case list is well formed: unique names, every kind known.
"$B" --list | awk '{print $1}' | sort | uniq -d | grep . && { echo "duplicate case names"; fails=$((fails + 1)); }
"$B" --list | awk '$2 !~ /^(raw|wrapper|floor|calibration)$/ {print; bad=1} END {exit bad}' ||
	fails=$((fails + 1))
[ "$fails" = 0 ]
