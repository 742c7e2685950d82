#!/bin/bash
# bench-timemode.sh - time mode's stopping rule, and selection by tag, on
# the host's own clock
# (user space only: the harness makes system calls, nothing is loaded):
# rounds are added until every case's 95% interval of the median is
# within --ci-target of it, and no further than --max-samples.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$ROOT/bench"
B=$ROOT/build/statx-bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# The empty body ("null") is among them: its median is about zero, so it
# cannot meet a relative target and must not hold the others up.
cases=null,getppid,stat,fstat
# A loose target is met at the first check; one no clock can meet runs to
# the limit and says so.
# (The loose run picks the same cases by pattern: --cases, then --skip.)
"$B" --mode time --dir "$dir" --cases 'null,getppid,stat*,fstat' --skip 'stat.*,statx*' \
	--samples 31 --max-samples 300 --ci-target 0.5 --json "$dir/loose.json" >"$dir/loose.out"
"$B" --mode time --dir "$dir" --cases "$cases" --samples 11 --max-samples 40 \
	--ci-target 1e-9 --json "$dir/tight.json" >"$dir/tight.out"
cat "$dir/loose.out" "$dir/tight.out"
/usr/bin/python3 "$ROOT/tests/checks.py" timemode "$dir/loose.json" "$dir/tight.json"
# Selection by tag (bench/cases.c): what --list says, and nothing else.
"$B" --list >"$dir/list"
"$B" --mode time --dir "$dir" --tags fd --skip-tags p2 --samples 3 --max-seconds 1 \
	--json "$dir/tags.json" >/dev/null
/usr/bin/python3 "$ROOT/tests/checks.py" tags "$dir/tags.json" "$dir/list"
# A study (the scaling rows, tag scale) runs only when asked, once per
# parameter; cold rows are left out here (dropping caches is the guest's).
mkdir "$dir/study"
"$B" --mode time --dir "$dir/study" --tags scale --skip '*.cold' --max-files 100 \
	--samples 3 --json "$dir/study.json" >/dev/null
/usr/bin/python3 "$ROOT/tests/checks.py" study "$dir/study.json" "$dir/list" 100 '*.cold'
