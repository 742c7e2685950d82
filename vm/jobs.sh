#!/bin/bash
# jobs.sh - how many guests to run at once by default: one per core, at
# most one per 5 GiB of available memory (a guest has 4 GiB), at least one.
# Used by bench/run.sh and tests/soak.sh.
set -eu
mem=$(awk '/^MemAvailable:/ { print int($2 / 5242880) }' /proc/meminfo)
n=$(nproc)
[ "$mem" -lt "$n" ] && n=$mem
[ "$n" -ge 1 ] || n=1
echo "$n"
