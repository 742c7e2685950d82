#!/bin/bash
# kselftest-dir.sh - where the cached kernel tree keeps kselftest_harness.h.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
echo "$("$ROOT/vm/kbuild.sh" --src stock)/tools/testing/selftests"
