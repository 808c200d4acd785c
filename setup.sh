#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# setup.sh --- install what is missing, build, and run the demo or the tests
#
#   ./setup.sh demo    the main job end to end on the embedded default image
#   ./setup.sh test    the whole test suite (ends with "N passed, N failed, N skipped")
#   ./setup.sh deps    only install the build and test dependencies
#   ./setup.sh build   only build
#
# Runs on a fresh Debian 12 machine as root. Packages are installed only when
# missing, so running it again is cheap.
set -euo pipefail
cd "$(dirname "$0")"

BP_DEPS=(build-essential autoconf automake pkg-config libext2fs-dev comerr-dev
	 libblkid-dev zlib1g-dev e2fsprogs util-linux dosfstools xz-utils procps
	 valgrind jq python3 nbdkit nbdkit-plugin-dev python3-libnbd libnbd-bin fuse3 systemd
	 bash-completion groff-base cpio)

deps() {
	local missing=() p
	for p in "${BP_DEPS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "setup.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
	[ -x configure ] || ./autogen.sh >/dev/null
	[ -f Makefile ] || ./configure -q
	make -s -j"$(nproc)"
}

case ${1:-} in
deps) deps ;;
build) deps; build ;;
demo) deps; build; exec ./demo.sh ;;
test) deps; build; exec tests/run.sh -j"$(nproc)" ;;
*) sed -n '3,10p' "$0"; exit 2 ;;
esac
