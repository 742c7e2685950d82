# afs-lib.sh - an OpenAFS cell inside the guest, and kafs mounts of it.
# Source it after guest-lib.sh; it defines functions and constants only.
# Needs a kernel with kafs, RxRPC and veth (VARIANT=afs), the guest
# init's tmpfs on /run and ext4 on /mnt/ext4, and the host's
# openafs-dbserver and openafs-fileserver packages (vm/deps.sh), whose
# binaries are run here; no OpenAFS service ever runs on the host.
#
# The cell, all of it in the guest:
#   - ptserver and vlserver (one database server), the demand-attach
#     fileserver with its volserver and salvageserver, with NoAuth: there
#     is no KDC, so every server takes administrative calls unauthenticated;
#   - they run chrooted in $AFS_SRV, a tmpfs root made of read-only binds
#     of the host's /usr and /etc with writable /etc/openafs,
#     /var/lib/openafs and /var/log/openafs, because the fileserver looks
#     for partitions only at /vicepXX and the guest's root is read-only;
#   - /vicepa is a directory on the guest's ext4 disk, emptied first;
#   - they listen on $AFS_ADDR, veth0's address: ubik and the fileserver
#     ignore loopback addresses, and the veth's other end, in network
#     namespace $AFS_PEER_NS, carries a second kafs client (a client per
#     network namespace), whose writes break the first one's callbacks;
#   - volumes: root.cell and statx.bench (the benchmark's tree), which
#     holds a mount point to root.cell ($AFS_MP: a symlink of mode 0644 to
#     "#cell:root.cell.").  kafs cannot make one (afs_symlink() always
#     sends mode 0777, and chmod of a symlink is EOPNOTSUPP), so its mode
#     is set in the volume's dump (afs_mount_point).  kafs's dynroot cell
#     directory is the other automount point the suite checks.
#
# ACLs.  A new volume's root grants only system:administrators, and the
# guest's kafs has no token, so it is anonymous, and no server lets
# anonymous be an administrator: the ptserver refuses to put it in a group
# (and system:anyuser's membership of a group reaches no client's rights).
# What works: a volume's root ACL is data in the volume's dump.  Each new
# volume is dumped (vos dump), the ACL of its root directory vnode (the
# dump's 'A' field, a struct acl_accessList in network byte order: size,
# version, total, positive, negative, then {id, rights} pairs) gets an
# entry for system:anyuser, and the dump is restored over the volume (vos
# restore -overwrite full).  kafs is then an ordinary anonymous client
# that the ACLs let in, with every right (rlidwka) in the sealed guest
# cell, administer included: a test may narrow an ACL through kafs's
# afs.acl xattr (FS.StoreACL).
# shellcheck shell=bash

AFS_CELL=statx.test
AFS_ADDR=10.9.0.1
AFS_PEER_ADDR=10.9.0.2
AFS_PEER_NS=afspeer
AFS_SRV=/run/afs/root
AFS_VICEP=/mnt/ext4/vicepa
AFS_LIB=/usr/lib/openafs
AFS_MNT=/mnt/afs
AFS_VOLUME=statx.bench
# A mount point at the root of $AFS_VOLUME, to root.cell.
AFS_MP=mp
# Seconds of host time a server gets to answer (the RTC: in cost mode the
# guest's own clock jumps while the host keeps an idle guest waiting).
AFS_WAIT=${AFS_WAIT:-240}

afs_fail() {
	echo "afs: error: $*" >&2
	return 1
}

# afs_log NAME: the tail of server NAME's log (ptserver, vlserver,
# fileserver, volserver, salvageserver).
afs_log() {
	local f=$AFS_SRV/var/log/openafs/$1.log
	echo "--- last lines of $1's log ($f) ---" >&2
	tail -n 15 "$f" >&2 2>/dev/null || echo "(no log)" >&2
}

# afs_admin CMD ARGS...: an OpenAFS administration command (vos, pts)
# against the cell, unauthenticated, from inside the servers' root (whose
# /etc/openafs names the cell).
afs_admin() {
	chroot "$AFS_SRV" "$@" -noauth
}

# afs_start NAME ARGS...: start server NAME (a program in $AFS_LIB) in
# the background, its log in /var/log/openafs/NAME.log of the servers' root.
afs_start() {
	local name=$1
	shift
	chroot "$AFS_SRV" "$AFS_LIB/$name" "$@" -logfile "/var/log/openafs/$name.log" \
		>>"$AFS_SRV/var/log/openafs/$name.out" 2>&1 &
	echo $! >"/run/afs/$name.pid"
	# Its end (a kill, a failure) is afs_running's and afs_stop's
	# business, not a job notice on the caller's output.
	disown $!
}

# afs_running NAME: whether server NAME's process is alive.
afs_running() {
	local pid
	pid=$(cat "/run/afs/$1.pid" 2>/dev/null) || return 1
	kill -0 "$pid" 2>/dev/null
}

# afs_wait NAME WHAT CMD...: run CMD until it succeeds, while server NAME
# runs, for at most $AFS_WAIT host seconds; else one error naming the
# server and what it did not do (WHAT: "answer", ...), with CMD's last
# output and the server's log's tail.
afs_wait() {
	local name=$1 what=$2 end out=''
	shift 2
	end=$(($(host_seconds) + AFS_WAIT))
	while [ "$(host_seconds)" -le "$end" ]; do
		out=$("$@" 2>&1) && return 0
		if ! afs_running "$name"; then
			afs_log "$name"
			afs_fail "$name exited before it could $what"
			return 1
		fi
		sleep 0.5
	done
	echo "--- the last try: $* ---" >&2
	printf '%s\n' "$out" | tail -n 5 >&2
	afs_log "$name"
	afs_fail "$name did not $what within $AFS_WAIT host seconds"
}

# afs_stop NAME: stop server NAME (SIGTERM, then SIGKILL after 60 host s).
afs_stop() {
	local pid end
	pid=$(cat "/run/afs/$1.pid" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || return 0
	end=$(($(host_seconds) + 60))
	while kill -0 "$pid" 2>/dev/null && [ "$(host_seconds)" -le "$end" ]; do
		sleep 0.2
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "/run/afs/$1.pid"
}

# afs_mount_point VOLUME NAME TARGET: a mount point NAME, at the root of
# VOLUME (mounted by kafs on $AFS_MNT), to volume TARGET of the cell.  An
# AFS mount point is a symlink of mode 0644 whose text is "#cell:volume.";
# kafs makes every symlink 0777 (afs_symlink()) and cannot chmod one, so
# the symlink is made through kafs and its mode changed in the volume's
# dump: the vnode record (OpenAFS's volser dump format, tag 3: vnode
# number, uniquifier, then 't' type 3 for a symlink, 'l', 'v', 'm', 'a',
# 'o', maybe 'g', 'b' the mode bits (16 bits), 'p', 's', and 'f' the
# length and text) whose text is the target gets mode 0644.  The volume
# is restored over itself and mounted again.
afs_mount_point() {
	local vol=$1 name=$2 target="#$AFS_CELL:$3." d=/tmp/$1.mp.dump
	ln -s "$target" "$AFS_MNT/$name" || { afs_fail "cannot make the symlink $name"; return 1; }
	umount "$AFS_MNT" || return 1
	afs_admin vos dump -id "$vol" -file "$d" >/dev/null 2>&1 ||
		{ afs_log davolserver; afs_fail "vos dump $vol failed"; return 1; }
	python3 - "$AFS_SRV$d" "$target" <<'EOF' || { afs_fail "no symlink to $target in $vol's dump"; return 1; }
import re, struct, sys
path, target = sys.argv[1], sys.argv[2].encode()
data = open(path, "rb").read()
rec = re.compile(rb"\x03.{8}t\x03l.{2}v.{4}m.{4}a.{4}o.{4}(?:g.{4})?b(.{2})p.{4}s.{4}f" +
                 re.escape(struct.pack(">I", len(target)) + target), re.S)
found = list(rec.finditer(data))
if len(found) != 1:
    sys.exit("expected one symlink vnode with the text %r, found %d" % (target, len(found)))
m = found[0]
mode = struct.unpack(">H", m.group(1))[0]
if mode & 0o7777 != 0o777:
    sys.exit("the symlink's mode is %o, not 777" % mode)
data = data[:m.start(1)] + struct.pack(">H", 0o644) + data[m.end(1):]
open(path, "wb").write(data)
EOF
	afs_admin vos restore "$AFS_ADDR" a "$vol" -file "$d" -overwrite full >/dev/null ||
		{ afs_log davolserver; afs_fail "vos restore $vol failed"; return 1; }
	rm -f "$AFS_SRV$d"
	afs_mount "$AFS_MNT" "$vol"
}

# afs_client_conf: the cell in kafs-client's cell database, for the
# kernel's AFS DNS upcall (request-key runs kafs-dns, which reads
# /etc/kafs/client.conf).  6.12's kafs looks a cell up when a mount first
# uses it, even one added with its addresses through /proc/fs/afs/cells,
# and a failed lookup fails the mount (EDESTADDRREQ); 6.1's does not.  The
# guest's /etc is the host's, read-only: a tmpfs over client.d holds it.
afs_client_conf() {
	local d=/etc/kafs/client.d
	[ -d "$d" ] || { afs_fail "no $d (make deps: kafs-client)"; return 1; }
	mountpoint -q "$d" || mount -t tmpfs -o size=1m,mode=0755 afsconf "$d" || return 1
	cat >"$d/statx.conf" <<-CONF
		[cells]
		$AFS_CELL = {
			description = "statx-study's cell, in this guest"
			use_dns = no
			servers = {
				statx-guest = {
					address = $AFS_ADDR
				}
			}
		}
	CONF
}

# Each of these two returns at its first failure.
afs_net() {
	ip link add veth0 type veth peer name veth1 &&
		ip netns add "$AFS_PEER_NS" &&
		ip link set veth1 netns "$AFS_PEER_NS" &&
		ip addr add "$AFS_ADDR/24" dev veth0 &&
		ip link set veth0 up &&
		ip netns exec "$AFS_PEER_NS" ip addr add "$AFS_PEER_ADDR/24" dev veth1 &&
		ip netns exec "$AFS_PEER_NS" ip link set veth1 up &&
		ip netns exec "$AFS_PEER_NS" ip link set lo up
}

afs_root() {
	local r=$AFS_SRV d
	mkdir -p "$r" && mount -t tmpfs -o mode=0755 afsroot "$r" || return 1
	for d in usr etc dev proc tmp run vicepa var/lib/openafs/db var/lib/openafs/local \
		var/log/openafs; do
		mkdir -p "$r/$d" || return 1
	done
	chmod 1777 "$r/tmp"
	chmod 700 "$r/var/lib/openafs/db" "$r/var/lib/openafs/local"
	for d in bin sbin lib lib64; do
		if [ -L "/$d" ]; then
			ln -s "$(readlink "/$d")" "$r/$d"
		elif [ -d "/$d" ]; then
			mkdir -p "$r/$d" && mount --bind "/$d" "$r/$d" || return 1
		fi
	done
	mount --bind /usr "$r/usr" && mount --bind /etc "$r/etc" &&
		mount --bind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
		mount -t tmpfs -o mode=0755 afsetc "$r/etc/openafs" || return 1
	mkdir -p "$r/etc/openafs/server"
	# The servers find their own address from the host name.
	printf '127.0.0.1 localhost\n%s %s\n' "$AFS_ADDR" "$(hostname)" >/run/afs/hosts
	mount --bind /run/afs/hosts "$r/etc/hosts" || return 1
	# The partition: emptied, so that nothing of a previous boot's cell
	# (volumes, the fileserver's saved state) reaches this one.
	rm -rf "$AFS_VICEP"
	mkdir -p "$AFS_VICEP" && mount --bind "$AFS_VICEP" "$r/vicepa" || return 1
	# The cell: one database server, the fileserver on the same address.
	local e=$r/etc/openafs
	echo "$AFS_CELL" >"$e/ThisCell"
	printf '>%s #statx study guest cell\n%s #statx-guest\n' "$AFS_CELL" "$AFS_ADDR" >"$e/CellServDB"
	cp "$e/ThisCell" "$e/CellServDB" "$e/server/"
	: >"$r/var/lib/openafs/local/NoAuth"
	: >"$e/server/UserList"
	echo "$AFS_ADDR" >"$r/var/lib/openafs/local/NetInfo"
}

# afs_open_root VOLUME: grant system:anyuser all rights on VOLUME's root
# directory, through a dump of the volume (see the top of this file).
afs_open_root() {
	local d=/tmp/$1.dump
	afs_admin vos dump -id "$1" -file "$d" >/dev/null 2>&1 ||
		{ afs_log davolserver; afs_fail "vos dump $1 failed"; return 1; }
	python3 - "$AFS_SRV$d" <<'EOF' || { afs_fail "no root ACL to open in $1's dump"; return 1; }
import re, struct, sys
path = sys.argv[1]
data = open(path, "rb").read()
# A new volume's root ACL: 28 bytes, any version, total 1, positive 1,
# negative 0, system:administrators (-204) with all rights (127).
old = re.compile(re.escape(b"A" + struct.pack(">i", 28)) + b"(.{4})" +
                 re.escape(struct.pack(">iiiii", 1, 1, 0, -204, 127)), re.S)
found = old.findall(data)
if len(found) != 1:
    sys.exit("expected one root ACL in the dump, found %d" % len(found))
new = (b"A" + struct.pack(">i", 36) + found[0] +
       struct.pack(">iiiiiii", 2, 2, 0, -204, 127, -101, 127))
m = old.search(data)
# The field is 192 bytes: the longer list overwrites unused bytes.
data = data[:m.start()] + new + data[m.start() + len(new):]
open(path, "wb").write(data)
EOF
	afs_admin vos restore "$AFS_ADDR" a "$1" -file "$d" -overwrite full >/dev/null ||
		{ afs_log davolserver; afs_fail "vos restore $1 failed"; return 1; }
	rm -f "$AFS_SRV$d"
}

afs_fileserver_start() {
	afs_start dafileserver -p 8 -cb 64000 -vattachpar 1
	afs_start davolserver
	afs_wait dafileserver "register its address with the vlserver" \
		sh -c "chroot '$AFS_SRV' vos listaddrs -noresolve -noauth | grep -qx '$AFS_ADDR'" || return 1
	afs_wait davolserver "answer" afs_admin vos partinfo "$AFS_ADDR" a
}

# afs_mount DIR [VOLUME]: kafs mounts VOLUME (default statx.bench),
# read-write, on DIR.
afs_mount() {
	mkdir -p "$1"
	mount -t afs "%$AFS_CELL:${2:-$AFS_VOLUME}." "$1"
}

# start_afs_cell: the whole cell, and kafs's mount of statx.bench on
# $AFS_MNT.  One error naming the server that failed, with its log.
start_afs_cell() {
	[ -e /proc/fs/afs/cells ] || { afs_fail "this kernel has no kafs (VARIANT=afs)"; return 1; }
	if [ ! -x "$AFS_LIB/dafileserver" ] || [ ! -x "$AFS_LIB/ptserver" ]; then
		afs_fail "no OpenAFS servers in $AFS_LIB (make deps: openafs-fileserver, openafs-dbserver)"
		return 1
	fi
	# Each step returns on failure: callers may run this where set -e
	# does not act (an if, a ||, a command substitution).
	mkdir -p /run/afs
	afs_net || { afs_fail "cannot make the veth pair and the peer's namespace"; return 1; }
	afs_root || { afs_fail "cannot make the servers' root in $AFS_SRV"; return 1; }
	afs_start ptserver
	afs_start vlserver
	afs_wait ptserver "answer" afs_admin pts examine system:anyuser || return 1
	afs_wait vlserver "answer" afs_admin vos listvldb || return 1
	afs_start salvageserver
	afs_fileserver_start || return 1
	local v
	for v in root.cell "$AFS_VOLUME"; do
		afs_admin vos create "$AFS_ADDR" a "$v" -maxquota 0 >/dev/null ||
			{ afs_log davolserver; afs_fail "vos create $v failed"; return 1; }
		afs_open_root "$v" || return 1
	done
	afs_client_conf || return 1
	# kafs keeps a cell until its network namespace goes (a second start
	# in one boot finds it).
	grep -qw "$AFS_CELL" /proc/fs/afs/cells || echo "add $AFS_CELL $AFS_ADDR" >/proc/fs/afs/cells ||
		{ afs_fail "kafs did not take the cell"; return 1; }
	afs_mount "$AFS_MNT" || { afs_log dafileserver; afs_fail "kafs cannot mount $AFS_VOLUME"; return 1; }
	# A mount point inside the volume, to root.cell (the conformance
	# suite's automount checks).
	if [ ! -L "$AFS_MNT/$AFS_MP" ] && [ ! -d "$AFS_MNT/$AFS_MP" ]; then
		afs_mount_point "$AFS_VOLUME" "$AFS_MP" root.cell ||
			{ afs_fail "cannot make the mount point $AFS_MP in $AFS_VOLUME"; return 1; }
	fi
	mkdir -p /run/afs/peer
	ip netns exec "$AFS_PEER_NS" sh -c "echo 'add $AFS_CELL $AFS_ADDR' >/proc/fs/afs/cells" ||
		{ afs_fail "the peer's kafs did not take the cell"; return 1; }
	echo "afs: cell $AFS_CELL on $AFS_ADDR; $AFS_VOLUME on $AFS_MNT"
}

# afs_peer_cmd CMD: a command line that runs shell CMD in the second
# client's network namespace, with its own kafs mount of statx.bench on
# /run/afs/peer as its working directory (ip netns exec gives it a mount
# namespace of its own, gone when it ends).
afs_peer_cmd() {
	printf "ip netns exec %s sh -c 'mount -t afs %%%s:%s. /run/afs/peer && cd /run/afs/peer && %s'" \
		"$AFS_PEER_NS" "$AFS_CELL" "$AFS_VOLUME" "$1"
}

# afs_peer CMD: run it (afs_peer_cmd).
afs_peer() {
	sh -c "$(afs_peer_cmd "$1")"
}

# afs_hist_on: hist triggers, keyed on the operation, on the events where
# kafs makes a file-server call and receives a callback call (the
# harness's --afs-ops reads them).
afs_hist_on() {
	local e
	for e in afs_make_fs_call afs_make_fs_call1 afs_make_fs_call2 afs_make_fs_calli afs_cb_call; do
		echo 'hist:keys=op' >"/sys/kernel/tracing/events/afs/$e/trigger"
	done
}

# stop_afs_cell: undo start_afs_cell, whatever part of it ran: kafs's
# mounts, the servers, the servers' root, the peer's namespace and the
# veth pair.  The partition's data stays on the ext4 disk (a new disk
# each boot); start_afs_cell empties it anyway.
stop_afs_cell() {
	local s
	umount "$AFS_MNT" 2>/dev/null || true
	for s in davolserver dafileserver salvageserver vlserver ptserver; do
		afs_stop "$s"
	done
	if mountpoint -q "$AFS_SRV"; then
		umount -R "$AFS_SRV"
	fi
	ip netns del "$AFS_PEER_NS" 2>/dev/null || true
	ip link del veth0 2>/dev/null || true
	rm -rf /run/afs
}
