#!/bin/bash
# bench-refusal.sh - the harness refuses setups that would make its
# figures lie, before measuring anything, each with its own exit status.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$ROOT/bench"
B=$ROOT/build/statx-bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
refuse() { # refuse STATUS WHY ARGS...: the harness must exit STATUS
	local want=$1 why=$2 out rc=0
	shift 2
	out=$("$B" "$@" 2>&1) || rc=$?
	if [ "$rc" = "$want" ]; then
		echo "refused with status $rc ($why): $out"
	else
		echo "NOT refused with status $want ($why): status $rc: $out"
		fails=$((fails + 1))
	fi
}
# The statuses are bench/util.h's enum bench_exit.
# Here on the host there is no -icount: cost mode has no meaning.
refuse 6 "cost mode outside an -icount guest" --mode cost --cases null
refuse 3 "file system not what was asked" --mode time --dir "$dir" --fs nfs --cases stat
refuse 4 "kernel not the variant asked" --mode time --variant no-such-variant --cases null
refuse 3 "directory missing" --mode time --dir "$dir/missing" --fs ext4 --cases stat
refuse 2 "an unknown option" --no-such-option
# The case list is well formed: unique names, every kind known.
"$B" --list | awk '{print $1}' | sort | uniq -d | grep . && { echo "duplicate case names"; fails=$((fails + 1)); }
"$B" --list | awk '$2 !~ /^(raw|wrapper|floor|calibration)$/ {print; bad=1} END {exit bad}' ||
	fails=$((fails + 1))
# --list-tsv: the same rows, each its four fields (name, kind, call, tags).
"$B" --list-tsv | awk -F'\t' 'NF != 4 {print; bad=1} END {exit bad}' || fails=$((fails + 1))
cmp -s <("$B" --list | awk '{print $1}') <("$B" --list-tsv | cut -f1) ||
	{ echo "--list-tsv names other rows than --list"; fails=$((fails + 1)); }
[ "$fails" = 0 ]
