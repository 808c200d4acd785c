#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-deb.sh --- install the bootpack .deb into a minimal Debian 12 chroot and run it
#
#   tests/pkg/check-deb.sh bootpack_*.deb
#
# The chroot (debootstrap --variant=minbase bookworm) is cached as a tarball
# in $BP_CHROOT_CACHE (default /var/cache/bootpack-tests) and unpacked afresh
# for every run, so each run installs into a clean system. Needs root and
# Debian's mirror. Checks, inside the chroot: dpkg installs the package (with
# its dependencies from the mirror), the files land in the distribution's
# paths, /etc/bootpack.conf is a conffile, 'bootpack --version' runs,
# 'bootpack-read' is static and runs with --no-exec, and removal and purge
# leave nothing behind. Prints "check-deb: ok" or fails.
set -euo pipefail
deb=${1:?usage: check-deb.sh bootpack_VERSION_ARCH.deb}
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
[ "$(id -u)" = 0 ] || { echo "check-deb: needs root" >&2; exit 77; }
mirror=${BP_MIRROR:-http://deb.debian.org/debian}
cache=${BP_CHROOT_CACHE:-/var/cache/bootpack-tests}
tarball=$cache/bookworm-minbase.tar
mkdir -p "$cache"
if [ ! -s "$tarball" ]; then
	command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
	tmp=$(mktemp -d /var/tmp/bp-debootstrap.XXXXXX)
	echo "check-deb: debootstrap minbase bookworm (once, cached in $tarball)"
	debootstrap --variant=minbase bookworm "$tmp" "$mirror" >"$cache/debootstrap.log" 2>&1
	tar -C "$tmp" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
	rm -rf "$tmp"
fi

root=$(mktemp -d /var/tmp/bp-check-deb.XXXXXX)
cleanup() {
	for m in dev/pts dev proc sys; do
		mountpoint -q "$root/$m" && umount -l "$root/$m"
	done
	rm -rf "$root"
}
trap cleanup EXIT
tar -C "$root" -xf "$tarball"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"; }
fail() { echo "check-deb: FAIL: $*" >&2; exit 1; }

# Install with dependencies: apt resolves them from the mirror.
in_root apt-get update -qq >/dev/null
in_root apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" \
	>"$root/install.log" 2>&1 || { tail -20 "$root/install.log"; fail "apt-get install"; }

for f in /usr/sbin/bootpack /usr/sbin/bootpack-read /lib/systemd/system/bootpack-read.service \
	 /lib/systemd/system/bootpack-trace-stop.timer /usr/lib/tmpfiles.d/bootpack.conf \
	 /usr/share/initramfs-tools/hooks/bootpack /usr/lib/dracut/modules.d/90bootpack/module-setup.sh \
	 /usr/share/man/man8/bootpack.8.gz /usr/share/bash-completion/completions/bootpack \
	 /etc/bootpack.conf; do
	[ -e "$root$f" ] || fail "$f not installed"
done
grep -qx /etc/bootpack.conf "$root/var/lib/dpkg/info/bootpack.conffiles" ||
	fail "/etc/bootpack.conf is not a conffile"
# The unit is enabled (a symlink in sysinit.target.wants), the trace units are not.
[ -L "$root/etc/systemd/system/sysinit.target.wants/bootpack-read.service" ] ||
	fail "bootpack-read.service not enabled"
! ls "$root"/etc/systemd/system/*/bootpack-trace-stop.* >/dev/null 2>&1 ||
	fail "a trace unit is enabled"

out=$(in_root bootpack --version) || fail "bootpack --version"
echo "check-deb: $out"
grep -q '^bootpack [0-9]' <<<"$out" || fail "bootpack --version printed '$out'"
file_out=$(file -L "$root/usr/sbin/bootpack-read" 2>/dev/null || true)
if [ -n "$file_out" ]; then
	grep -q 'statically linked' <<<"$file_out" || fail "bootpack-read is not static: $file_out"
fi
# No pack installed yet: the reader says so and exits 3 (see bootpack-read(8)).
rc=0
in_root bootpack-read --no-exec --log=stderr >"$root/read.out" 2>&1 || rc=$?
cat "$root/read.out"
[ $rc = 3 ] || fail "bootpack-read --no-exec exited $rc, not 3 (no pack)"

in_root apt-get purge -y -qq bootpack >/dev/null 2>&1 || fail "purge"
for f in /usr/sbin/bootpack /usr/sbin/bootpack-read /etc/bootpack.conf \
	 /etc/systemd/system/sysinit.target.wants/bootpack-read.service; do
	[ ! -e "$root$f" ] && [ ! -L "$root$f" ] || fail "$f left after purge"
done
echo "check-deb: ok"
