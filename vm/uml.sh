#!/bin/bash
# uml.sh - a variant's kernel built as User-Mode Linux: KUnit runs there,
# and its kernel code runs natively, as an ordinary process on this CPU.
#
# Usage: vm/uml.sh build VARIANT         build (or find up to date) the UML
#                                        kernel of VARIANT
#        vm/uml.sh kunit VARIANT [GLOB]  build it, run the KUnit suites GLOB
#                                        (default: all) and print kunit.py's
#                                        parse of their KTAP; fails unless
#                                        every test ran and passed
#        vm/uml.sh --dir VARIANT         print where the UML kernel lives
#        vm/uml.sh --timing-cmd VARIANT [ARG...]
#                                        print, a word a line, the command
#                                        that boots the built UML kernel to
#                                        run the statx_timing suite alone
#                                        and halt, ARG added: its one
#                                        command line, for tests/kunit.sh
#                                        and bench/uml-timing.sh (run
#                                        as is, or under gdb)
#
# VARIANT is one of vm/variants/*.conf: its base's source and its series
# (the x86 config fragments do not apply here); then, when there is one,
# patches/uml/BASE/series (the UML study's own patches, never part of the
# series).  The config is UML's defconfig with vm/config/uml.kunitconfig.
#
#   $KCACHE/uml/<src>/tree/      a copy of the source, patched in place; it
#                                is never built in place (kbuild refuses an
#                                O= build in a tree that has been), so the
#                                x86 trees cannot serve
#   $KCACHE/uml/<src>/build/     kunit.py's build directory (O=), shared by
#                                every variant of the base: a switch
#                                rebuilds what the patches touch
#   $KCACHE/uml/<src>/<VARIANT>/ linux, its config, the inputs' hash
#
# Environment: KCACHE (default ~/.cache/statx-study), JOBS.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KCACHE=${KCACHE:-$HOME/.cache/statx-study}
JOBS=${JOBS:-$(nproc)}
PY=/usr/bin/python3
# Bump when the way a UML kernel is configured or built changes.
RECIPE=1

stage() { printf '[uml %s] %s\n' "$VARIANT" "$*"; }
die() { printf '[uml %s] error: %s\n' "${VARIANT:-?}" "$*" >&2; exit 1; }

mode=${1:-}
case $mode in
build | kunit | --dir | --timing-cmd) shift ;;
*) echo "usage: vm/uml.sh build|kunit|--dir|--timing-cmd VARIANT [GLOB|ARG...]" >&2; exit 2 ;;
esac
VARIANT=${1:?usage: vm/uml.sh build|kunit|--dir|--timing-cmd VARIANT [GLOB|ARG...]}
shift
GLOB=${1:-*}
VCONF=$ROOT/vm/variants/$VARIANT.conf
[ -f "$VCONF" ] || die "no variant '$VARIANT' (have: $(cd "$ROOT/vm/variants" && echo *.conf | sed 's/\.conf//g'))"
BASE=6.1 SERIES='' SERIES_UPTO='' EXTRA_PATCHES=''
# shellcheck source=/dev/null
. "$VCONF"
if [ -f "$ROOT/patches/uml/$BASE/series" ]; then
	while read -r p; do
		EXTRA_PATCHES="$EXTRA_PATCHES patches/uml/$BASE/$p"
	done < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ROOT/patches/uml/$BASE/series")
fi
TARBALL=/usr/src/linux-source-$BASE.tar.xz
[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps'"
srcid=debian-$(dpkg-query -W -f='${Version}' "linux-source-$BASE")
srcid=${srcid%%~*}
PRISTINE=$KCACHE/src/$srcid
UML=$KCACHE/uml/$srcid
TREE=$UML/tree
BUILD=$UML/build
OUT=$UML/$VARIANT
KUNITCONFIG=$ROOT/vm/config/uml.kunitconfig
if [ "$mode" = --dir ]; then
	echo "$OUT"
	exit 0
fi
if [ "$mode" = --timing-cmd ]; then
	[ -x "$OUT/linux" ] || die "no UML kernel in $OUT: run 'vm/uml.sh build $VARIANT'"
	printf '%s\n' "$OUT/linux" mem=256M console=tty kunit_shutdown=halt \
		kunit.filter_glob=statx_timing "$@"
	exit 0
fi

# shellcheck source=vm/tree-lib.sh
. "$ROOT/vm/tree-lib.sh"
mapfile -t PATCHES < <(patch_list)
for p in "${PATCHES[@]}"; do
	[ -f "$p" ] || die "patch ${p#"$ROOT"/} is missing"
done

inputs_hash() {
	{
		echo "recipe $RECIPE src $srcid variant $VARIANT"
		sha256sum <"$KUNITCONFIG"
		for p in "${PATCHES[@]}"; do patch_body "$p" | sha256sum; done
	} | sha256sum | cut -c1-16
}

build() {
	local want t0
	want=$(inputs_hash)
	if [ -x "$OUT/linux" ] && [ "$(cat "$OUT/inputs" 2>/dev/null)" = "$want" ]; then
		stage "up to date: $OUT/linux"
		return
	fi
	mkdir -p "$KCACHE/src" "$UML"
	exec 9>"$KCACHE/build.lock"
	if ! flock -n 9; then
		stage "waiting for another kernel build to finish"
		flock 9
	fi
	t0=$(date +%s)
	if [ ! -d "$PRISTINE" ]; then
		stage "extracting $TARBALL"
		rm -rf "$PRISTINE.tmp"
		mkdir -p "$PRISTINE.tmp"
		tar -C "$PRISTINE.tmp" -xf "$TARBALL"
		mv "$PRISTINE.tmp/linux-source-$BASE" "$PRISTINE"
		rmdir "$PRISTINE.tmp"
	fi
	if [ ! -d "$TREE" ]; then
		stage "copying source"
		rm -rf "$TREE.tmp"
		cp -a --reflink=auto "$PRISTINE" "$TREE.tmp"
		mv "$TREE.tmp" "$TREE"
	fi
	cd "$TREE"
	local keep
	keep=$(applied_prefix "${PATCHES[@]}")
	revert_applied "$keep"
	apply_from "$keep" "${PATCHES[@]}"

	# The options this tree's Kconfig knows: a variant without the series
	# has no FILENAME_KUNIT_TEST, and kunit.py fails on a line it lost.
	local conf=$UML/kunitconfig.$VARIANT opt
	: >"$conf"
	while read -r line; do
		case $line in
		CONFIG_*=*)
			opt=${line%%=*}
			grep -rqsE --include='Kconfig*' "^(menu)?config ${opt#CONFIG_}\$" . && echo "$line" >>"$conf"
			;;
		esac
	done <"$KUNITCONFIG"
	stage "building with $JOBS jobs: UML defconfig + $(paste -sd' ' "$conf")"
	if ! $PY tools/testing/kunit/kunit.py build --arch=um --build_dir="$BUILD" \
		--kunitconfig="$conf" --jobs="$JOBS" >"$UML/build.log" 2>&1; then
		tail -n 40 "$UML/build.log" >&2
		die "build failed; full log: $UML/build.log"
	fi
	rm -rf "$OUT"
	mkdir -p "$OUT"
	cp "$BUILD/linux" "$OUT/linux"
	cp "$BUILD/.config" "$OUT/config"
	cp "$conf" "$OUT/kunitconfig"
	echo "build_seconds=$(($(date +%s) - t0))" >"$OUT/info"
	echo "$want" >"$OUT/inputs"
	stage "built in $(($(date +%s) - t0)) s: $OUT/linux"
}

build
[ "$mode" = kunit ] || exit 0

# Run the kernel as kunit.py runs it on UML, then parse its KTAP: a suite
# that printed no result, a test that did not run or failed, is a failure.
tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
stage "running KUnit suites '$GLOB'"
timeout 300 "$OUT/linux" mem=1G console=tty kunit_shutdown=halt \
	"kunit.filter_glob=$GLOB" </dev/null >"$tap" 2>&1 || true
grep -q 'KTAP version\|TAP version' "$tap" ||
	{ tail -n 20 "$tap" >&2; die "the UML kernel printed no KTAP (suites '$GLOB')"; }
$PY "$TREE/tools/testing/kunit/kunit.py" parse "$tap"
