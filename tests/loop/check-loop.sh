#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-loop.sh --- the whole loop on a real Debian 12 system in QEMU (issue 12)
#
#   check-loop.sh rootfs     Debian 12 tree with initramfs-tools and a Debian kernel installed
#   check-loop.sh image      ext4 image of it with bootpack installed and 'bootpack setup --root' run
#   check-loop.sh boot N     one boot of the image (QEMU TCG, direct kernel boot of the
#                            image's own /boot/vmlinuz and initrd.img), logs in $LB/boot-N
#   check-loop.sh run        everything: image, boots 1-3, host checks, the stale boot 4
#
# Not part of make check or CI: it needs root, debootstrap's mirror (first run),
# qemu-system-x86 and minutes of TCG. Logs under LOOPBENCH_DIR (/work/loopbench).
# The tree of /work/bootbench (the real-boot benchmark's cache) is copied, never modified.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$SRC}
LB=${LOOPBENCH_DIR:-/work/loopbench}
BB=${BOOTBENCH_DIR:-/work/bootbench}
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
IMG_SIZE=${IMG_SIZE:-3G}
MEM=${MEM:-1024}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-1500}
FS_UUID=b0075ac0-b007-4008-8000-000000000012

log() { echo "check-loop: $*" >&2; }
die() { echo "check-loop: error: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || die "run as root (chroot, loop devices, mounts)"; }

CHROOT_MNTS=()
chroot_umount() {
	local i
	for ((i = ${#CHROOT_MNTS[@]} - 1; i >= 0; i--)); do
		umount "${CHROOT_MNTS[$i]}" 2>/dev/null || umount -l "${CHROOT_MNTS[$i]}" 2>/dev/null || true
	done
	CHROOT_MNTS=()
}
chroot_mount() {
	local r=$1 d
	for d in proc sys dev dev/pts; do
		mount --bind "/$d" "$r/$d"
		CHROOT_MNTS+=("$r/$d")
	done
}

# ---------------------------------------------------------------- rootfs
# The bench's debootstrap tree (systemd, udev, the Debian kernel package)
# plus initramfs-tools and Debian's own initrd for its kernel.
do_rootfs() {
	need_root
	[ -f "$LB/rootfs/.done" ] && return 0
	local r=$LB/rootfs.tmp
	mkdir -p "$LB/logs"
	rm -rf "$r"
	if [ -f "$BB/rootfs/.done" ]; then
		log "copying $BB/rootfs"
		cp -a "$BB/rootfs" "$r"
	else
		log "debootstrap $SUITE: several minutes"
		nice -n 10 debootstrap --variant=minbase \
			--include=systemd-sysv,udev,dbus,kmod,procps,e2fsprogs "$SUITE" "$r" "$MIRROR" \
			> "$LB/logs/debootstrap.log" 2>&1 || die "debootstrap: $LB/logs/debootstrap.log"
	fi
	rm -f "$r/.done"
	trap chroot_umount EXIT
	chroot_mount "$r"
	printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
	log "apt-get install initramfs-tools linux-image-amd64 in the tree: log $LB/logs/rootfs-apt.log"
	nice -n 10 chroot "$r" sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update &&
		apt-get -y --no-install-recommends -f install &&
		apt-get install -y --no-install-recommends initramfs-tools e2fsprogs zstd busybox &&
		dpkg --configure -a &&
		for k in $(ls /lib/modules); do update-initramfs -c -k $k || update-initramfs -u -k $k; done' \
		> "$LB/logs/rootfs-apt.log" 2>&1 || die "apt-get in the tree: $LB/logs/rootfs-apt.log"
	rm -f "$r/usr/sbin/policy-rc.d" "$r"/var/cache/apt/archives/*.deb
	echo loopbench > "$r/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tloopbench\n' > "$r/etc/hosts"
	printf '/dev/vda\t/\text4\tdefaults\t0\t1\n' > "$r/etc/fstab"
	chroot_umount
	trap - EXIT
	ls -l "$r/boot" >&2
	mv "$r" "$LB/rootfs"
	touch "$LB/rootfs/.done"
}

case ${1:-} in
rootfs) do_rootfs ;;
*) sed -n '3,14p' "$0"; exit 2 ;;
esac
