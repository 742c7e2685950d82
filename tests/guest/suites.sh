#!/bin/bash
# suites.sh - runs inside the guest: the series tests, then the
# conformance suite, each on ext4, tmpfs, NFS v3 and NFS v4.2 (one soak
# boot: tests/soak.sh).  TAP in $IO/series.tap and $IO/conformance.tap.
# Usage (in the guest): tests/guest/suites.sh [FUZZ_CALLS]
set -eu
REPO=${REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
rc=0
"$REPO/tests/guest/run.sh" || rc=1
"$REPO/tests/guest/conformance.sh" "$@" || rc=1
exit "$rc"
