#!/bin/bash
# names-trace-test.sh - runs inside the guest (an unpatched kernel):
# traces/name_lengths.bt against a known workload (tests/guest/stat_n.c)
# counts each name exactly as often as it was passed, a name longer than
# its string limit cut there, and analysis/name_mix.py's parse of the
# session gives those lengths.
set -eu
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../../vm/guest-lib.sh
. "$REPO/vm/guest-lib.sh"
D=/mnt/ext4/nt
mkdir -p "$D"
echo data >"$D/f"
OUT=${IO:-/tmp}/names-trace
mkdir -p "$OUT"
# A name of LEN bytes naming $D/f: slashes padded in after $D.
padded() { printf '%s%*s/f' "$D" $(($1 - ${#D} - 2)) '' | tr ' ' '/'; }
short=$D/f long=$(padded 170) cut=$(padded 250)
if [ ${#long} != 170 ] || [ ${#cut} != 250 ]; then
	echo "FAIL: padded names"
	exit 1
fi

BPFTRACE_STRLEN=200 BPFTRACE_MAP_KEYS_MAX=4096 \
	bpftrace "$REPO/traces/name_lengths.bt" >"$OUT/names.bt" 2>&1 &
bt=$!
wait_banner "$OUT/names.bt" "$bt" || { echo "FAIL: name_lengths.bt did not start"; cat "$OUT/names.bt"; exit 1; }
"$REPO/build/stat_n" stat 7 "$short"
"$REPO/build/stat_n" stat 5 "$long"
"$REPO/build/stat_n" stat 3 "$cut"
kill -INT "$bt"
wait "$bt" || true
echo "probe|stat_n|0|stat_n" >"$OUT/workloads"

fails=0
expect() { # expect NAME-AS-KEYED COUNT WHAT
	local got
	got=$(grep -F "@n[stat_n, $1]: " "$OUT/names.bt" | sed 's/.*]: //' || true)
	if [ "${got:-0}" = "$2" ]; then
		echo "ok: $3: $2"
	else
		echo "FAIL: $3: counted ${got:-none}, want $2"
		fails=$((fails + 1))
	fi
}
expect "$short" 7 "a ${#short}-byte name"
expect "$long" 5 "a 170-byte name"
expect "${cut:0:199}" 3 "a 250-byte name, cut at 199 bytes"
# The parse: these lengths with these counts among stat_n's names.
python3 - "$OUT" "${#short}" "$REPO/analysis" <<'PY' || fails=$((fails + 1))
import sys
sys.path.insert(0, sys.argv[3])
import name_mix
w = name_mix.parse(sys.argv[1])["workloads"][0]
h, short = w["hist"], sys.argv[2]
bad = [(k, n, h.get(k)) for k, n in ((short, 7), ("170", 5), ("199", 3)) if h.get(k, 0) < n]
if bad or w["cut"] < 3 or w["longest"] != 199:
    print(f"FAIL: name_mix.parse: {bad}, cut {w['cut']}, longest {w['longest']}")
    sys.exit(1)
print(f"ok: name_mix.parse: {short}, 170 and 199 bytes counted; {w['inline']} of {w['names']} inline")
PY
[ "$fails" = 0 ] || { echo "names-trace-test: $fails failed"; exit 1; }
echo "names-trace-test: all passed"
