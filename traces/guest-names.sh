#!/bin/bash
# guest-names.sh - runs inside the guest: how long the names are that real
# programs pass to path-based system calls (traces/name_lengths.bt), for
# the workload-weighted cost of the small struct filename (patch 4).
#
# Usage (in the guest): traces/guest-names.sh OUTDIR
# Writes OUTDIR/names.bt (the map: program, length, count) and
# OUTDIR/workloads (one line per workload: name, the programs it ran,
# its command).  Run it on the unpatched kernel.
set -eu
OUTDIR=$1
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
mkdir -p "$OUTDIR"
[ -e /sys/kernel/tracing/events/stat ] &&
	echo "guest-names: warning: the series is booted; its first copy stops at 160 bytes" >&2

# The workloads: NAME|PROGRAMS (the comm values that are its own)|COMMAND.
# Each runs over the host's read-only root as the guest sees it.
WORK=$(mktemp -d)
WORKLOADS=(
	"find|find|find /usr/include -name '*.h' -newer /usr/include/stdio.h"
	"ls -lR|ls|ls -lR /usr/share/doc"
	"du|du|du -s /usr/lib/x86_64-linux-gnu"
	"git status|git|git -c safe.directory='*' -C $REPO --no-optional-locks status --porcelain"
	"compile (gcc -c)|gcc cc1 as collect2 ld|gcc -O2 -I$REPO/bench -c $REPO/bench/harness.c -o $WORK/harness.o"
	"python3 imports|python3|python3 -c 'import json, email.parser, http.client, unittest, asyncio'"
)
BPFTRACE_STRLEN=200 BPFTRACE_MAP_KEYS_MAX=400000 \
	bpftrace "$REPO/traces/name_lengths.bt" >"$OUTDIR/names.bt" 2>&1 &
pid=$!
wait_banner "$OUTDIR/names.bt" "$pid" || { cat "$OUTDIR/names.bt" >&2; exit 1; }
: >"$OUTDIR/workloads"
for w in "${WORKLOADS[@]}"; do
	IFS='|' read -r name comms cmd <<<"$w"
	echo "names: $name"
	# A workload's own failure (git over a read-only tree, say) still
	# passed its names: note it and go on.
	rc=0
	(cd "$WORK" && eval "$cmd") >/dev/null 2>"$WORK/err" || rc=$?
	[ "$rc" = 0 ] || echo "names: $name exited $rc: $(head -c 300 "$WORK/err")" >&2
	printf '%s|%s|%s|%s\n' "$name" "$comms" "$rc" "$cmd" >>"$OUTDIR/workloads"
done
kill -INT "$pid"
wait "$pid" || true
rm -rf "$WORK"
grep -c '^@n\[' "$OUTDIR/names.bt" | sed 's/^/names: map lines /'
