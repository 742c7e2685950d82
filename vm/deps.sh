#!/bin/bash
# deps.sh - install, once, the Debian packages the project needs.
# Quiet when everything is already there.
set -eu

PACKAGES=(
	# the kernels and their configurations: Debian 12's 6.1, the study's
	# base, and Debian 13's 6.12 beside it
	linux-source-6.1 linux-config-6.1 linux-source-6.12 linux-config-6.12
	# building it
	build-essential flex bison bc libelf-dev libssl-dev openssl dwarves
	cpio xz-utils rsync kmod
	# the UML timing suite: gdb counts its instructions, objdump (binutils)
	# names them (bench/uml-timing.sh)
	gdb binutils
	# the guest, its disks and its NFS server
	qemu-system-x86 e2fsprogs nfs-kernel-server rpcbind iproute2
	# tracing and peers, run inside the guest from the host's root
	bpftrace bpfcc-tools linux-perf fio
	# auditctl, for the guest's audit test (the daemon never runs here)
	auditd
	# the guest's OpenAFS cell: servers and vos/pts, run only in the guest
	# (vm/afs-lib.sh); never started here
	openafs-dbserver openafs-fileserver openafs-client
	# kAFS's cell database and the kernel's AFS DNS upcall (kafs-dns), read
	# by 6.12's kafs in the guest; its afs.mount never runs here
	kafs-client
	# analysis and tests
	python3 python3-matplotlib python3-numpy python3-scipy python3-pytest python3-jsonschema
	shellcheck python3-pyflakes
)

missing=()
for p in "${PACKAGES[@]}"; do
	case $p in '#'*) continue ;; esac
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$s" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "[deps] installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# No package may start a service on this machine while it installs
# (nfs-kernel-server, rpcbind, auditd and openafs-fileserver would): policy-rc.d's 101 tells
# invoke-rc.d not to, unless the machine already has a policy.
policy=
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/statx-deps.log 2>&1 ||
	{ tail -20 /tmp/statx-deps.log >&2; echo "[deps] apt-get install failed" >&2; exit 1; }
# The study never uses the host's nfsd, audit daemon, OpenAFS or kAFS: make
# sure none runs here, now or after a reboot (systemd starts units without
# invoke-rc.d; kafs-client enables afs.mount, which would mount kAFS's
# dynamic root here).  systemctl edits unit links without a running systemd.
if command -v systemctl >/dev/null 2>&1; then
	units=(nfs-server rpcbind rpcbind.socket auditd openafs-fileserver openafs-client
		afs.mount kafs-client)
	now=()
	[ -d /run/systemd/system ] && now=(--now)
	for u in "${units[@]}"; do
		systemctl disable "${now[@]}" "$u" >/dev/null 2>&1 || true
	done
	systemctl mask afs.mount >/dev/null 2>&1 || true
fi
echo "[deps] done"
