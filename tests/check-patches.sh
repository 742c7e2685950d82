#!/bin/bash
# check-patches.sh - the series applies in order to a fresh linux-source-6.1,
# every patch is checkpatch --strict clean, and every prefix of the series
# compiles fs/stat.o with the kernel's own flags (each patch builds alone).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$("$ROOT/vm/kbuild.sh" --src stock)
TREE=$("$ROOT/vm/kbuild.sh" --tree stock)
[ -d "$SRC" ] || { echo "no extracted source: run 'make kernel VARIANT=stock'"; exit 1; }
mapfile -t series < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/patches/series")
[ ${#series[@]} -gt 0 ] || { echo "patches/series is empty"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A scratch copy of the files the series touches, from the tarball's tree.
files=$(cat "${series[@]/#/$ROOT/patches/}" | sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' | sort -u)
for f in $files fs/internal.h fs/mount.h; do
	if [ -f "$SRC/$f" ]; then
		mkdir -p "$work/$(dirname "$f")"
		cp "$SRC/$f" "$work/$f"
	fi
done

# fs/stat.o's compile command, from the built stock tree, pointed at $work.
cmd=
if [ -f "$TREE/fs/.stat.o.cmd" ]; then
	cmd=$(sed -n 's/^savedcmd_fs\/stat.o := //p; s/^cmd_fs\/stat.o := //p' "$TREE/fs/.stat.o.cmd" | head -1)
	cmd=${cmd%%;*} # the compiler only, not objtool after it
	cmd=${cmd/-Wp,-MMD,fs\/.stat.o.d/}
	cmd=${cmd/-nostdinc/-nostdinc -I$work/include}
	cmd=${cmd/ -c -o fs\/stat.o fs\/stat.c/}
fi

rc=0
i=0
for p in "${series[@]}"; do
	i=$((i + 1))
	if ! (cd "$work" && patch -p1 -s --batch <"$ROOT/patches/$p"); then
		echo "FAIL: patch $i ($p) does not apply on top of the $((i - 1)) before it"
		exit 1
	fi
	echo "applies: $i/${#series[@]} $p"
	out=$(cd "$SRC" && perl scripts/checkpatch.pl --strict "$ROOT/patches/$p" 2>&1 | grep '^total:')
	case $out in
	"total: 0 errors, 0 warnings, 0 checks,"*) echo "checkpatch --strict: clean ($out)" ;;
	*) echo "FAIL: checkpatch --strict on $p: $out"; rc=1 ;;
	esac
	grep -q '^Signed-off-by: ' "$ROOT/patches/$p" || { echo "FAIL: $p has no Signed-off-by"; rc=1; }
	if grep -q '@@COST_' "$ROOT/patches/$p"; then
		echo "FAIL: $p still has a placeholder for its measured numbers"
		rc=1
	fi
	if [ -n "$cmd" ]; then
		if (cd "$TREE" && eval "$cmd -c -o $work/stat.o $work/fs/stat.c") >"$work/cc.log" 2>&1; then
			echo "compiles: fs/stat.o with patches 1..$i"
		else
			cat "$work/cc.log"
			echo "FAIL: fs/stat.o does not compile with patches 1..$i"
			rc=1
		fi
	else
		echo "FAIL: no built stock tree to take fs/stat.o's flags from"
		rc=1
	fi
done
exit $rc
