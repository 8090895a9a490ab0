#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sandbox.sh STAGE UID -- CMD...
#
# Runs inside a private mount namespace (run.sh starts it with unshare) and
# then execs CMD, the UML kernel or QEMU. Before that it makes every mount
# read-only, so neither the VM nor its guest (whose root is the host's /
# over hostfs or virtiofs) can write the host, except for four places:
#   STAGE/out  the run's guest output dir (bind of OUTPUT/guest)
#   STAGE/uml  UML's uml_dir (mconsole socket, pid file)
#   STAGE/tmp  a tmpfs private to this namespace, for UML's memory file
#   STAGE/disk the guest's scratch disk image (ubd0)
# STAGE/{linux,init,tests} are read-only binds of the kernel, the guest init
# and the selftests, so that the unprivileged UID needs no access to the
# cache. UID, when not empty, is the user CMD runs as (run.sh passes an
# unprivileged one when it is root).
#
# With TS_KVM=1 and a UID, QEMU is to use KVM as UID although the host's
# /dev/kvm is root's alone: a node for the same device, owned by UID, is
# made in the private tmpfs and bound over /dev/kvm in this namespace only.
# The host's node and its mode are untouched.
#
# With TS_VIRTIOFS=SOCKET (run.sh --vm qemu), virtiofsd serves the guest's
# root at SOCKET. It starts here, after the remount, so it serves the same
# read-only view of / that QEMU and UML have; it runs as this namespace's
# root (its chroot needs it; this namespace is its sandbox), and UID gets
# the socket. It is killed when QEMU exits.
#
# Inputs come from the environment: TS_KERNEL, TS_INIT, TS_TESTS, TS_OUT,
# TS_TMP_MB, TS_KVM, TS_VIRTIOFS. Any failure exits 125 before CMD runs.

set -u

fail()
{
	printf 'toosmall-sandbox: %s\n' "$*" >&2
	exit 125
}

stage=$1
uid=$2
shift 3

mount --bind "$TS_KERNEL" "$stage/linux" || fail "bind kernel"
mount --bind "$TS_INIT" "$stage/init" || fail "bind init"
mount --bind "$TS_TESTS" "$stage/tests" || fail "bind tests"
mount --bind "$TS_OUT" "$stage/out" || fail "bind out"
mount --bind "$stage/uml" "$stage/uml" || fail "bind uml_dir"
mount --bind "$stage/disk" "$stage/disk" || fail "bind disk"
mount -t tmpfs -o "size=${TS_TMP_MB}m,mode=1777" toosmall "$stage/tmp" ||
	fail "mount tmpfs"
if [ "${TS_KVM:-0}" = 1 ] && [ -n "$uid" ]; then
	kvm="$stage/tmp/.kvm"
	read -r major minor < <(stat -c '%t %T' /dev/kvm) || fail "stat /dev/kvm"
	if ! { mknod -m 0600 "$kvm" c "$((16#$major))" "$((16#$minor))" &&
		chown "$uid:$uid" "$kvm" && mount --bind "$kvm" /dev/kvm; }; then
		fail "bind a /dev/kvm for uid $uid"
	fi
fi

# Every other mount, in this namespace only, becomes read-only. Mount points
# in mountinfo escape blanks as octal (\040); printf %b decodes them.
while read -r _ _ _ _ mp _; do
	mp=$(printf '%b' "$mp")
	case "$mp" in
	"$stage/out" | "$stage/uml" | "$stage/tmp" | "$stage/disk") continue ;;
	esac
	mount -o remount,bind,ro "$mp" 2>/dev/null
done </proc/self/mountinfo

# Trust, but verify: the places a guest would aim for must refuse writes.
# (Root here may bypass permissions, but not a read-only mount.)
for dir in / "$stage" "${HOME:-/}" /tmp /var/tmp "$(dirname "$TS_OUT")"; do
	probe="$dir/.toosmall-probe.$$"
	if (: >"$probe") 2>/dev/null; then
		rm -f "$probe"
		fail "$dir is still writable after remounting read-only"
	fi
done

if [ -n "${TS_VIRTIOFS:-}" ]; then
	# The listening socket is made here and handed over (--fd): given a
	# path, virtiofsd would write a lock file in /run/virtiofsd, which is
	# read-only now.
	python3 - "$TS_VIRTIOFS" "${uid:-0}" /usr/lib/qemu/virtiofsd \
		-f -o source=/ -o sandbox=chroot -o cache=auto -o announce_submounts \
		-o log_level=err <<-'EOF' &
		import os, socket, sys
		path, uid, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
		s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		s.bind(path + '.new')
		os.chown(path + '.new', uid, -1)
		s.listen(1)
		os.rename(path + '.new', path)
		os.set_inheritable(s.fileno(), True)
		os.execv(argv[0], argv + ['--fd=%d' % s.fileno()])
	EOF
	virtiofsd=$!
	for _ in $(seq 50); do
		[ -S "$TS_VIRTIOFS" ] && break
		kill -0 "$virtiofsd" 2>/dev/null || fail "virtiofsd did not start"
		sleep 0.1
	done
	[ -S "$TS_VIRTIOFS" ] || {
		kill -KILL "$virtiofsd"
		fail "no virtiofsd socket after 5 s"
	}
fi

cd "$stage/tmp" || fail "cd $stage/tmp"
export TMPDIR="$stage/tmp"
if [ -n "$uid" ]; then
	set -- setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		--no-new-privs -- "$@"
fi
[ -n "${virtiofsd:-}" ] || exec "$@"
# QEMU runs as a child, so that virtiofsd, which would outlive it for a
# moment, is ended and reaped here before the host sees the VM gone.
"$@"
rc=$?
kill -KILL "$virtiofsd" 2>/dev/null
wait "$virtiofsd"
exit "$rc"
