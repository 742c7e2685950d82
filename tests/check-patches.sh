#!/bin/bash
# check-patches.sh [BASE] - a series applies in order to a fresh
# linux-source-BASE, every patch is checkpatch --strict clean, and with
# every prefix of the series each C file it touches compiles with the
# kernel's own flags (each patch builds alone).
#   BASE 6.1 (default): patches/series on the stock variant's tree
#   BASE 6.12: patches/6.12/series on stock-6.12's; its tree need not be
#   built: the objects the series touches are built in it first
#   (vm/kbuild.sh --objs), for their flags
#   BASE afs: patches/afs/series (fs/afs only), with the afs variant's
#   flags (the tree where kafs is built), the same way
#   BASE afs-6.12: patches/afs/6.12/series on stock-6.12's tree, which
#   does not build kafs: its objects are built there alone for their
#   flags (the tree's own, as if kafs were configured), so that the check
#   adds no kafs tree of its own (make test's budget)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${1:-6.1}
case $BASE in
6.1) PDIR=$ROOT/patches STOCK=stock ;;
afs) PDIR=$ROOT/patches/afs STOCK=afs ;;
afs-*) PDIR=$ROOT/patches/afs/${BASE#afs-} STOCK=stock-${BASE#afs-} ;;
*) PDIR=$ROOT/patches/$BASE STOCK=stock-$BASE ;;
esac
[ -f "$PDIR/series" ] || { echo "no series for base $BASE: $PDIR/series"; exit 1; }
SRC=$("$ROOT/vm/kbuild.sh" --src "$STOCK")
TREE=$("$ROOT/vm/kbuild.sh" --tree "$STOCK")
mapfile -t series < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PDIR/series")
[ ${#series[@]} -gt 0 ] || { echo "$PDIR/series is empty"; exit 1; }
files=$(cat "${series[@]/#/$PDIR/}" | sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' | sort -u)
csrcs=$(echo "$files" | grep '\.c$' || true)
# A C file the series has another one include (a KUnit test built into the
# file it tests) is no object of its own: it is compiled inside that file
# when its option is on, which Debian's config leaves off; the KUnit run
# (tests/kunit.sh) builds it.
included=$(cat "${series[@]/#/$PDIR/}" | sed -n 's|^+#include "\([^"/]*\.c\)"$|\1|p' | sort -u)
for f in $included; do
	csrcs=$(echo "$csrcs" | grep -v "/$f\$" || true)
	echo "included: $f, compiled inside the file that includes it (tests/kunit.sh)"
done
if [ "$BASE" != 6.1 ]; then
	# The unpatched tree, configured, with the series' objects built:
	# their .cmd files hold the flags.  Quick when the tree is built.
	mapfile -t objs <<<"$csrcs"
	"$ROOT/vm/kbuild.sh" --objs "$STOCK" "${objs[@]/%.c/.o}"
fi
[ -d "$SRC" ] || { echo "no extracted source: run 'make kernel VARIANT=$STOCK'"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A scratch copy of the files the series touches, from the tarball's tree,
# with the local headers beside each C file ("internal.h" and the like).
for f in $files fs/internal.h fs/mount.h; do
	if [ -f "$SRC/$f" ]; then
		mkdir -p "$work/$(dirname "$f")"
		cp "$SRC/$f" "$work/$f"
	fi
done
for c in $csrcs; do
	d=$(dirname "$c")
	for h in "$SRC/$d"/*.h; do
		[ -f "$h" ] && [ ! -f "$work/$d/$(basename "$h")" ] && cp "$h" "$work/$d/"
	done
done

# A C file's compile command, from the built tree's .cmd file, pointed at
# $work: the kernel's own flags, the series' copies of the files.
compile_cmd() { # compile_cmd fs/stat.c
	local c=$1 o=${1%.c}.o cmdfile cmd
	cmdfile=$TREE/$(dirname "$c")/.$(basename "$o").cmd
	[ -f "$cmdfile" ] || return 1
	cmd=$(sed -n "s|^savedcmd_$o := ||p; s|^cmd_$o := ||p" "$cmdfile" | head -1)
	cmd=${cmd%%;*} # the compiler only, not objtool after it
	cmd=${cmd/-Wp,-MMD,$(dirname "$c")\/.$(basename "$o").d/}
	cmd=${cmd/-nostdinc/-nostdinc -I$work/include}
	cmd=${cmd/ -c -o $o $c/}
	echo "$cmd"
}
rc=0
i=0
for p in "${series[@]}"; do
	i=$((i + 1))
	if ! (cd "$work" && patch -p1 -s --batch <"$PDIR/$p"); then
		echo "FAIL: patch $i ($p) does not apply on top of the $((i - 1)) before it"
		exit 1
	fi
	echo "applies: $i/${#series[@]} $p"
	# UNKNOWN_COMMIT_ID looks a message's upstream commit ids up in the
	# git history of the tree it runs in; a source package has none, so
	# every id would be unknown.  The ids the messages cite are checked
	# by hand against upstream (the messages give each one's subject).
	out=$(cd "$SRC" && perl scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID \
		"$PDIR/$p" 2>&1 | grep '^total:')
	case $out in
	"total: 0 errors, 0 warnings, 0 checks,"*) echo "checkpatch --strict: clean ($out)" ;;
	*) echo "FAIL: checkpatch --strict on $p: $out"; rc=1 ;;
	esac
	grep -q '^Signed-off-by: ' "$PDIR/$p" || { echo "FAIL: $p has no Signed-off-by"; rc=1; }
	if grep -qE '@@[A-Z0-9_]+@@' "$PDIR/$p"; then
		echo "FAIL: $p still has a placeholder for its measured numbers"
		rc=1
	fi
	# Every C file the series touches, patched so far or not yet.
	for c in $csrcs; do
		if ! cmd=$(compile_cmd "$c"); then
			echo "FAIL: no built $STOCK tree to take ${c%.c}.o's flags from"
			rc=1
			continue
		fi
		if (cd "$TREE" && eval "$cmd -c -o $work/cc.o $work/$c") >"$work/cc.log" 2>&1; then
			echo "compiles: ${c%.c}.o with patches 1..$i"
		else
			cat "$work/cc.log"
			echo "FAIL: ${c%.c}.o does not compile with patches 1..$i"
			rc=1
		fi
	done
done
exit $rc
