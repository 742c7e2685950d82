#!/bin/bash
# kbuild.sh - build one kernel variant in a cache outside the repository.
#
# Usage: vm/kbuild.sh VARIANT          build (or find up to date) VARIANT
#        vm/kbuild.sh --dir VARIANT    print where VARIANT's kernel lives
#        vm/kbuild.sh --src VARIANT    print the unpatched source tree
#        vm/kbuild.sh --tree VARIANT   print VARIANT's built tree
#        vm/kbuild.sh --check VARIANT  exit 0 if VARIANT's kernel is built
#                                      and up to date, else 1 with a line
#                                      saying whether it is missing or
#                                      stale; builds nothing, takes no lock
#        vm/kbuild.sh --objs VARIANT OBJ...
#                                      patch and configure VARIANT's tree
#                                      and build only OBJ (fs/stat.o ...):
#                                      a series' compile check without a
#                                      cold build of the whole kernel
#
# A variant (vm/variants/VARIANT.conf) is a base, a patch list and config
# fragments, merged on Debian's config or, with CONFIG_START=defconfig, on
# the kernel's own x86_64 defconfig (a small kernel, quick to build).  BASE (default 6.1) names Debian's linux-source-BASE tarball
# and the linux-config-BASE cloud-amd64 config it is built with; KSRC=/path
# replaces the tarball (a maintainer's tree of that base).
#
#   $KCACHE/src/<ver>/              the extracted tarball, never modified
#   $KCACHE/trees/<src>-<frags>/    one build tree per source and config
#                                   fragments, shared by the variants: a
#                                   variant's patches are applied in place
#                                   (the last ones reverted first), so the
#                                   second variant rebuilds only what its
#                                   patches touch
#   $KCACHE/kernels/<src>-<var>/    bzImage, .config, config diff, build log
#
# Environment: KCACHE (default ~/.cache/statx-study), KSRC, JOBS.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KCACHE=${KCACHE:-$HOME/.cache/statx-study}
JOBS=${JOBS:-$(nproc)}
# Bump when the way a tree is configured or built changes.
RECIPE=3

stage() { printf '[kernel %s] %s\n' "$VARIANT" "$*"; }
die() { printf '[kernel %s] error: %s\n' "${VARIANT:-?}" "$*" >&2; exit 1; }

mode=build
case ${1:-} in
--dir | --src | --tree | --objs | --check)
	mode=${1#--}
	shift
	;;
esac
VARIANT=${1:?usage: kbuild.sh [--dir|--src|--tree|--objs|--check] VARIANT [OBJ...]}
shift
OBJS=("$@")
if [ "$mode" = objs ] && [ ${#OBJS[@]} -eq 0 ]; then
	die "--objs wants the objects to build (fs/stat.o ...)"
fi
VCONF=$ROOT/vm/variants/$VARIANT.conf
[ -f "$VCONF" ] || die "no variant '$VARIANT' (have: $(cd "$ROOT/vm/variants" && echo *.conf | sed 's/\.conf//g'))"
BASE=6.1 SERIES='' SERIES_UPTO='' EXTRA_PATCHES='' FRAGMENTS=base CONFIG_START=debian
# shellcheck source=/dev/null
. "$VCONF"
case $CONFIG_START in debian | defconfig) ;; *) die "CONFIG_START must be debian or defconfig" ;; esac
TARBALL=/usr/src/linux-source-$BASE.tar.xz
DEBCONFIG=/usr/src/linux-config-$BASE/config.amd64_none_cloud-amd64.xz

if [ -n "${KSRC:-}" ]; then
	KSRC=$(cd "$KSRC" && pwd) || die "KSRC=$KSRC is not a directory"
	if [ ! -f "$KSRC/Makefile" ] || [ ! -d "$KSRC/fs" ]; then
		die "KSRC=$KSRC is not a kernel tree"
	fi
	srcid=ksrc-$(printf '%s' "$KSRC" | sha256sum | cut -c1-12)
else
	[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
	srcid=debian-$(dpkg-query -W -f='${Version}' "linux-source-$BASE")
	srcid=${srcid%%~*} # 6.12.118-1~deb12u1: the backport suffix says nothing
fi
TREE=$KCACHE/trees/$srcid-$(echo "$FRAGMENTS" | tr ' ' '+')
[ "$CONFIG_START" = debian ] || TREE=$KCACHE/trees/$srcid-$CONFIG_START+$(echo "$FRAGMENTS" | tr ' ' '+')
OUT=$KCACHE/kernels/$srcid-$VARIANT
if [ -z "${KSRC:-}" ]; then
	PRISTINE=$KCACHE/src/$srcid
else
	PRISTINE=$KSRC
fi
case $mode in
dir) echo "$OUT"; exit 0 ;;
tree) echo "$TREE"; exit 0 ;;
src) echo "$PRISTINE"; exit 0 ;;
esac

# shellcheck source=vm/tree-lib.sh
. "$ROOT/vm/tree-lib.sh"
mapfile -t PATCHES < <(patch_list)
for p in "${PATCHES[@]}"; do
	[ -f "$p" ] || die "patch ${p#"$ROOT"/} (named by the series) is missing"
done

# Everything that decides the kernel, hashed: a match means nothing to do.
inputs_hash() {
	{
		echo "recipe $RECIPE src $srcid variant $VARIANT"
		if [ -n "${KSRC:-}" ]; then
			# GIT_OPTIONAL_LOCKS=0: git status leaves KSRC's index alone.
			(cd "$KSRC" && git rev-parse HEAD 2>/dev/null &&
				GIT_OPTIONAL_LOCKS=0 git status --porcelain 2>/dev/null) || true
		fi
		# Contents only: the same inputs in another clone are the same.
		if [ "$CONFIG_START" = debian ]; then sha256sum <"$DEBCONFIG"; else echo "start $CONFIG_START"; fi
		for f in $FRAGMENTS; do sha256sum <"$ROOT/vm/config/$f.config"; done
		for p in "${PATCHES[@]}"; do patch_body "$p" | sha256sum; done
	} | sha256sum | cut -c1-16
}
want=$(inputs_hash)
have=$(cat "$OUT/inputs" 2>/dev/null || echo none)
if [ "$mode" != objs ] && [ -f "$OUT/bzImage" ] && [ "$have" = "$want" ]; then
	stage "up to date: $OUT/bzImage ($(cat "$OUT/release"))"
	exit 0
fi
# --check stops here, before the lock and the trees.
if [ "$mode" = check ]; then
	if [ ! -f "$OUT/bzImage" ]; then
		echo "[kernel $VARIANT] missing: no kernel built in $OUT ('make kernel VARIANT=$VARIANT' builds it)" >&2
	else
		echo "[kernel $VARIANT] stale: built from inputs $have, but the recipe, Debian config, fragments ($FRAGMENTS) and ${#PATCHES[@]} patches now hash to $want ('make kernel VARIANT=$VARIANT' rebuilds it)" >&2
	fi
	exit 1
fi

mkdir -p "$KCACHE/trees" "$KCACHE/kernels" "$KCACHE/src"
exec 9>"$KCACHE/build.lock"
if ! flock -n 9; then
	stage "waiting for another kernel build to finish"
	flock 9
fi
t0=$(date +%s)

# --- stage: source ---------------------------------------------------------
if [ -z "${KSRC:-}" ]; then
	if [ ! -d "$PRISTINE" ]; then
		stage "extracting $TARBALL"
		rm -rf "$PRISTINE.tmp"
		mkdir -p "$PRISTINE.tmp"
		tar -C "$PRISTINE.tmp" -xf "$TARBALL"
		mv "$PRISTINE.tmp/linux-source-$BASE" "$PRISTINE"
		rmdir "$PRISTINE.tmp"
	fi
fi

# A tree for more fragments than base starts as a copy of the base tree
# when that one is built: Kbuild records which options each object read,
# so only what the extra options and the variant's patches touch is
# rebuilt, not the whole kernel.
SEED=$KCACHE/trees/$srcid-base
if [ ! -d "$TREE" ] && [ "$FRAGMENTS" != base ] && [ "$CONFIG_START" = debian ] &&
	[ -f "$SEED/vmlinux" ]; then
	stage "starting from the built base tree ($SEED)"
	rm -rf "$TREE.tmp"
	cp -a --reflink=auto "$SEED" "$TREE.tmp"
	rm -f "$TREE.tmp/.statx-cold-steps"
	# objtool's build records (tools/objtool) name the tree by its
	# absolute path; left alone, objtool is rebuilt, and every object
	# that objtool checks with it (most of them).
	grep -rlF --include='*.cmd' --include='*.d' "$SEED/" "$TREE.tmp" |
		xargs -r perl -pi -e "s{\Q$SEED/\E}{$TREE/}g"
	mv "$TREE.tmp" "$TREE"
fi
if [ ! -d "$TREE" ]; then
	rm -rf "$TREE.tmp"
	if [ -z "${KSRC:-}" ]; then
		stage "copying source"
		cp -a --reflink=auto "$PRISTINE" "$TREE.tmp"
	else
		stage "copying KSRC=$KSRC"
		rsync -a --exclude=.git "$PRISTINE/" "$TREE.tmp/"
	fi
	mkdir -p "$TREE.tmp/.statx-applied"
	mv "$TREE.tmp" "$TREE"
fi
cd "$TREE"
mkdir -p .statx-applied

# --- stage: patches --------------------------------------------------------
keep=$(applied_prefix "${PATCHES[@]}")
if [ -n "${KSRC:-}" ]; then
	keep=0 # resync with the maintainer's tree under our patches
fi
revert_applied "$keep"
if [ -n "${KSRC:-}" ]; then
	stage "syncing from KSRC (changed files only)"
	rsync -rl --checksum --exclude=.git --exclude='.statx-*' "$PRISTINE/" ./
fi
apply_from "$keep" "${PATCHES[@]}"

# --- stage: config ---------------------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
xzcat "$DEBCONFIG" >"$work/debian.config"
if [ "$CONFIG_START" = debian ]; then
	stage "configuring: Debian cloud-amd64, modules dropped, + $FRAGMENTS"
	sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' "$work/debian.config" >"$work/nomod.config"
else
	stage "configuring: the kernel's x86_64 defconfig, modules dropped, + $FRAGMENTS"
	make -s KCONFIG_CONFIG="$work/defconfig" defconfig >"$work/defconfig.log" 2>&1 ||
		{ cat "$work/defconfig.log" >&2; die "make defconfig failed"; }
	sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' "$work/defconfig" >"$work/nomod.config"
fi
frags=()
for f in $FRAGMENTS; do frags+=("$ROOT/vm/config/$f.config"); done
printf 'CONFIG_LOCALVERSION="-%s"\n' "$VARIANT" >"$work/localversion.config"
(cd "$work" && KCONFIG_CONFIG=merged "$TREE/scripts/kconfig/merge_config.sh" -m \
	nomod.config "${frags[@]}" localversion.config >merge.log 2>&1) ||
	{ cat "$work/merge.log" >&2; die "merge_config.sh failed"; }
if ! cmp -s "$work/merged" .statx-config-input; then
	cp "$work/merged" .config
	make -s olddefconfig >"$work/olddefconfig.log" 2>&1 ||
		{ cat "$work/olddefconfig.log" >&2; die "olddefconfig failed"; }
	cp "$work/merged" .statx-config-input
fi
# Every line of the fragments must have survived Kconfig's dependencies;
# where fragments disagree, the last one's line is what was asked for.
bad=$(cat "${frags[@]}" | grep -E '^(CONFIG_|# CONFIG_.* is not set)' | tac |
	awk '{ o = $0; sub(/^# /, "", o); sub(/[= ].*/, "", o) } !seen[o]++' | tac |
	while read -r l; do
	case $l in
	'# '*) o=${l#\# }; o=${o%% *}
		if grep -q "^$o=" .config; then echo "  $l (got $(grep "^$o=" .config))"; fi ;;
	*) grep -qxF "$l" .config || echo "  $l (got $(grep "^${l%%=*}=" .config || echo unset))" ;;
	esac
done)
[ -z "$bad" ] || die "config fragment lines Kconfig did not keep:
$bad"

if [ "$mode" = objs ]; then
	stage "building ${OBJS[*]} only"
	export KBUILD_BUILD_USER=statx KBUILD_BUILD_HOST=study
	make -j"$JOBS" "${OBJS[@]}" >"$work/objs.log" 2>&1 ||
		{ tail -n 40 "$work/objs.log" >&2; die "building ${OBJS[*]} failed"; }
	stage "built ${OBJS[*]} in $TREE"
	exit 0
fi

# --- stage: build ----------------------------------------------------------
# A line a minute while make runs: kbuild's steps done (the log's quiet
# lines) out of what the tree's last cold build took, or, before any, the
# stock tree's cold build here (2,613 steps, 2026-12-04), elapsed time
# and what is left at the rate so far.
STEPS_FILE=$TREE/.statx-cold-steps
cold=0
[ -f vmlinux ] || cold=1
progress() { # progress PID LOG START: while PID (this script) lives
	local pid=$1 log=$2 start=$3 total=2613 next n el left
	[ -f "$STEPS_FILE" ] && total=$(cat "$STEPS_FILE")
	next=$((start + 60))
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		[ "$(date +%s)" -ge "$next" ] || continue
		next=$((next + 60))
		n=$(grep -c '^  [A-Z]' "$log" 2>/dev/null || true)
		el=$(($(date +%s) - start))
		if [ "$cold" = 1 ] && [ "${n:-0}" -gt 0 ] && [ "$n" -lt "$total" ]; then
			left=$((el * (total - n) / n))
			stage "$n of about $total steps ($((100 * n / total))%), $((el / 60)) min $((el % 60)) s, about $(((left + 59) / 60)) min left"
		else
			stage "${n:-0} steps, $((el / 60)) min $((el % 60)) s"
		fi
	done
}
stage "building bzImage with $JOBS jobs (log: $OUT.build.log)"
tb=$(date +%s)
export KBUILD_BUILD_USER=statx KBUILD_BUILD_HOST=study
KBUILD_BUILD_TIMESTAMP=$(date -u -d @0)
export KBUILD_BUILD_TIMESTAMP
progress $$ "$OUT.build.log" "$tb" &
ppid=$!
mrc=0
make -j"$JOBS" bzImage >"$OUT.build.log" 2>&1 || mrc=$?
kill "$ppid" 2>/dev/null || true
wait "$ppid" 2>/dev/null || true
if [ "$mrc" != 0 ]; then
	tail -n 40 "$OUT.build.log" >&2
	die "build failed; full log: $OUT.build.log"
fi
tend=$(date +%s)
[ "$cold" = 0 ] || grep -c '^  [A-Z]' "$OUT.build.log" >"$STEPS_FILE" || true

# --- stage: install --------------------------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT"
cp arch/x86/boot/bzImage "$OUT/bzImage"
cp .config "$OUT/config"
mv "$OUT.build.log" "$OUT/build.log"
make -s kernelrelease >"$OUT/release"
grep -v '^CONFIG_LOCALVERSION=' .config | sha256sum | cut -c1-16 >"$OUT/config-hash"
# What differs from Debian's config, modules turned off aside.
"$TREE/scripts/diffconfig" "$work/debian.config" .config |
	awk '/^-.* m$/ || / m -> n$/ {n++; next} {print} END {print "# modules dropped: " n+0}' \
		>"$OUT/config-diff.txt"
{
	echo "variant=$VARIANT"
	echo "source=$srcid"
	echo "fragments=$FRAGMENTS"
	printf 'patches='
	for p in "${PATCHES[@]}"; do printf '%s ' "$(basename "$p")"; done
	echo
	echo "build_seconds=$((tend - tb))"
	echo "total_seconds=$((tend - t0))"
} >"$OUT/info"
echo "$want" >"$OUT/inputs"
stage "built $(cat "$OUT/release") in $((tend - t0)) s: $OUT/bzImage"
