#!/bin/bash
# bad-args.sh - every make target given a bad argument exits non-zero
# with a line that says what is wrong, and no Python traceback.  No test
# builds a kernel or boots a guest: the vm-run ones boot only what is
# built (BOOT_ONLY=1) from a kernel cache of their own, and a
# qemu-system-x86_64 of their own fails any boot that gets that far.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
fails=0
# Under /tmp, as the path test needs: the guest hides the host's /tmp.
tmp=$(mktemp -d /tmp/bad-args.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/kcache"
printf '#!/bin/sh\necho "bad-args.sh: a guest was about to boot" >&2\nexit 1\n' >"$tmp/bin/qemu-system-x86_64"
chmod +x "$tmp/bin/qemu-system-x86_64"
export PATH="$tmp/bin:$PATH"
# expect WHAT_IT_MUST_SAY COMMAND...
expect() {
	local want=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" = 0 ] || ! grep -qi -- "$want" <<<"$out" || grep -q Traceback <<<"$out"; then
		echo "FAIL: $* (status $rc) should say '$want':"
		tail -5 <<<"$out"
		fails=$((fails + 1))
	else
		echo "ok: $* -> $(grep -i -m1 -- "$want" <<<"$out")"
	fi
}
cd "$ROOT"
expect "no such results file" make -s report RUN=/nonexistent
expect "no such results file" make -s report-reference RUN=/nonexistent
expect "no variant 'bogus'" make -s kernel VARIANT=bogus
expect "no variant 'bogus'" make -s conformance VARIANT=bogus
expect "no variant 'bogus'" make -s soak VARIANT=bogus N=1
expect "whole numbers" make -s soak VARIANT=stock N=many
expect "MODE must be cost, check or time" make -s vm-run VARIANT=stock MODE=fast
# vm-run BOOT_ONLY=1, on a kernel cache where stock is missing, then stale
# (a kernel whose recorded inputs are not what kbuild.sh would build).
kc=$tmp/kcache
vm_run() { make -s vm-run VARIANT=stock MODE=check TIMEOUT=60 BOOT_ONLY=1 KCACHE="$kc" "$@"; }
expect "\[kernel stock\] missing: no kernel built in $kc/" vm_run
touch "$tmp/probe"
expect "names $tmp/probe, which the guest cannot see: .* tmpfs of its own on /tmp" \
	vm_run CMD="cat $tmp/probe"
# A path the command makes in the guest's own /tmp, and /tmp alone, pass
# to the kernel's refusal.
expect "\[kernel stock\] missing" vm_run CMD="cd /tmp && echo x >$tmp/absent"
kdir=$(KCACHE=$kc vm/kbuild.sh --dir stock)
mkdir -p "$kdir"
: >"$kdir/bzImage"
echo 0123456789abcdef >"$kdir/inputs"
expect "\[kernel stock\] stale: built from inputs 0123456789abcdef" vm_run
expect "no variant 'bogus'" make -s compare BASE=bogus NEW=patched
expect "no step 'bogus'" make -s test STEPS=bogus
[ "$fails" = 0 ]
