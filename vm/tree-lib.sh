#!/bin/bash
# tree-lib.sh - a kernel source tree with a variant's patches applied in
# place, shared by vm/kbuild.sh (x86 guests) and vm/uml.sh (User-Mode
# Linux).  Sourced; the caller defines ROOT, KCACHE, stage() and die(),
# and has read the variant's file (SERIES, SERIES_UPTO, EXTRA_PATCHES).
#
# In the tree, .statx-applied/NNNN.patch are copies of what is applied, in
# order, so a tree can be taken back to its source even after the series
# was edited; a second variant reverts only the patches it does not share.

# The patch list: the series file's entries, then the variant's extras.
patch_list() {
	if [ -n "$SERIES" ]; then
		local dir
		dir=$(dirname "$ROOT/$SERIES")
		[ -f "$ROOT/$SERIES" ] || die "$SERIES missing"
		sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ROOT/$SERIES" |
			head -n "${SERIES_UPTO:-1000000}" |
			while read -r p; do echo "$dir/$p"; done
	fi
	for p in $EXTRA_PATCHES; do echo "$ROOT/$p"; done
}

# What a patch changes, without its message: rewording a commit message
# (to record new measurements, say) rebuilds nothing.
patch_body() { sed -n '/^diff --git /,$p' "$1"; }

# applied_prefix PATCH...: how many of the tree's applied patches (in the
# current directory) are the first ones of PATCH..., in order.
applied_prefix() {
	local applied keep=0
	mkdir -p .statx-applied
	mapfile -t applied < <(find .statx-applied -name '*.patch' | sort)
	while [ $keep -lt ${#applied[@]} ] && [ $keep -lt $# ] &&
		cmp -s <(patch_body "${applied[$keep]}") <(patch_body "${@:$((keep + 1)):1}"); do
		keep=$((keep + 1))
	done
	echo "$keep"
}

# revert_applied KEEP: revert the tree's applied patches after the first KEEP.
revert_applied() {
	local applied i
	mapfile -t applied < <(find .statx-applied -name '*.patch' | sort)
	for ((i = ${#applied[@]} - 1; i >= $1; i--)); do
		stage "reverting $(sed -n 's/^Subject: //p' "${applied[$i]}" | head -1)"
		patch -p1 -R -s --batch --no-backup-if-mismatch <"${applied[$i]}" >/dev/null ||
			die "cannot revert ${applied[$i]} in $(pwd): remove that tree"
		rm -f "${applied[$i]}"
	done
}

# apply_from KEEP PATCH...: apply PATCH... after the first KEEP, each
# checked first, so that a patch that does not apply leaves the tree as it
# was before it.
apply_from() {
	local keep=$1 i p
	shift
	for ((i = keep; i < $#; i++)); do
		p=${*:$((i + 1)):1}
		stage "applying ${p#"$ROOT"/}"
		if ! patch -p1 --dry-run -s --batch --no-backup-if-mismatch <"$p" >"$KCACHE/patch.log" 2>&1; then
			cat "$KCACHE/patch.log" >&2
			die "patch ${p#"$ROOT"/} does not apply (patch $((i + 1)) of $#)"
		fi
		patch -p1 -s --batch --no-backup-if-mismatch <"$p" >/dev/null
		cp "$p" "$(printf '.statx-applied/%04d.patch' "$i")"
	done
}
