#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# setup.sh --- install what is missing, build, and run the demo or the tests
#
#   ./setup.sh demo    the main job end to end on the embedded default image
#   ./setup.sh test    the whole test suite (ends with "N passed, N failed, N skipped");
#                      ./setup.sh test PATTERN... only the cases whose path has one
#   ./setup.sh deps    only install the build and test dependencies
#   ./setup.sh build   only build
#   ./setup.sh deps-TARGET   what a make target beyond the suite needs:
#                      bench (make bench-boot), loop (check-loop), kernel
#                      (check-kernel), deb (deb, check-deb), arm64
#                      (check-arm64), probe (check-probe)
#
# Runs on a fresh Debian 12 machine as root. Packages are installed only when
# missing, so running it again is cheap. Not root, not Debian, or with
# BP_NO_INSTALL=1: nothing is installed, each missing package is named and
# the exit status is 1.
set -euo pipefail
cd "$(dirname "$0")"

BP_DEPS=(build-essential autoconf automake pkg-config libext2fs-dev comerr-dev
	 libblkid-dev zlib1g-dev e2fsprogs util-linux fdisk dosfstools xz-utils procps
	 valgrind jq python3 nbdkit nbdkit-plugin-dev python3-libnbd libnbd-bin fuse3 systemd
	 bash-completion groff-base cpio shellcheck git xfsprogs btrfs-progs
	 initramfs-tools-core busybox-static lvm2 cryptsetup-bin)
# The make targets outside the suite, each a list of PACKAGE=PROBE (PROBE, a
# command or an absolute path, tells whether the package is there where dpkg
# cannot: not Debian).
BP_DEPS_BENCH=(debootstrap=debootstrap qemu-system-x86=qemu-system-x86_64 nbdkit=nbdkit
	       nbdkit-plugin-dev=/usr/include/nbdkit-filter.h busybox-static=busybox
	       cpio=cpio kmod=depmod bc=bc file=file e2fsprogs=debugfs binutils=strip
	       python3=python3)
BP_DEPS_LOOP=(debootstrap=debootstrap qemu-system-x86=qemu-system-x86_64 nbdkit=nbdkit
	      e2fsprogs=debugfs python3=python3 zstd=zstd kmod=depmod
	      dpkg-dev=dpkg-buildpackage debhelper=dh)
BP_DEPS_KERNEL=(linux-source-6.1=/usr/src/linux-source-6.1.tar.xz build-essential=make
		bc=bc bison=bison flex=flex libelf-dev=/usr/include/libelf.h
		libssl-dev=/usr/include/openssl/ssl.h busybox-static=busybox
		qemu-system-x86=qemu-system-x86_64 cpio=cpio e2fsprogs=debugfs)
BP_DEPS_DEB=(dpkg-dev=dpkg-buildpackage debhelper=dh debootstrap=debootstrap xz-utils=xz)
# the arm64 libraries are not installed: tests/check-arm64.sh unpacks their
# debs into a sysroot of its own (libext2fs-dev:arm64 cannot sit beside amd64's)
BP_DEPS_ARM64=(gcc-aarch64-linux-gnu=aarch64-linux-gnu-gcc qemu-user=qemu-aarch64
	       pkg-config=pkg-config)
BP_DEPS_PROBE=(nbdkit=nbdkit nbdkit-plugin-dev=/usr/include/nbdkit-filter.h
	       libnbd-bin=nbdfuse fuse3=fusermount3)

# have PACKAGE[=PROBE]: installed (dpkg's word on Debian, else the probe's).
have() {
	local pkg=${1%%=*} probe='' d
	[ "$pkg" = "$1" ] || probe=${1#*=}
	if command -v dpkg-query >/dev/null; then
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'
		return
	fi
	case $probe in
	'') return 1 ;;
	/*) [ -e "$probe" ] ;;
	*) command -v "$probe" >/dev/null && return 0
	   for d in /usr/sbin /sbin; do [ -x "$d/$probe" ] && return 0; done
	   return 1 ;;
	esac
}

# need_pkgs WHAT PACKAGE[=PROBE]...: the one way every list is installed,
# or its missing packages named.
need_pkgs() {
	local what=$1 missing=() p
	shift
	for p in "$@"; do have "$p" || missing+=("${p%%=*}"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "${BP_NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "setup.sh: $what needs the Debian packages: ${missing[*]}" \
			"(as root on Debian, ./setup.sh installs them)" >&2
		return 1
	fi
	echo "setup.sh: installing for $what: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	case " ${missing[*]}" in
	*:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64 ;;
	esac
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

deps() { need_pkgs "the build and the tests" "${BP_DEPS[@]}"; }

build() {
	[ -x configure ] || ./autogen.sh >/dev/null
	[ -f Makefile ] || ./configure -q
	make -s -j"$(nproc)"
}

case ${1:-} in
deps) deps ;;
deps-bench) need_pkgs "make bench-boot" "${BP_DEPS_BENCH[@]}" ;;
deps-loop) need_pkgs "make check-loop" "${BP_DEPS_LOOP[@]}" ;;
deps-kernel) need_pkgs "make check-kernel" "${BP_DEPS_KERNEL[@]}" ;;
deps-deb) need_pkgs "make deb / check-deb" "${BP_DEPS_DEB[@]}" ;;
deps-arm64) need_pkgs "make check-arm64" "${BP_DEPS_ARM64[@]}" ;;
deps-probe) need_pkgs "make check-probe" "${BP_DEPS_PROBE[@]}" ;;
build) deps; build ;;
demo) deps; build; exec ./demo.sh ;;
test) deps; build; shift; exec tests/run.sh -j"$(nproc)" "$@" ;;
*) sed -n '3,11p' "$0"; exit 2 ;;
esac
