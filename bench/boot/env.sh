# SPDX-License-Identifier: GPL-2.0-or-later
# env.sh --- the defaults the QEMU harnesses share (sourced by
# bench/boot/bench-boot.sh and tests/loop/check-loop.sh, not run)
#
# Their caches (a debootstrap tree, a kernel, images, runs: gigabytes, kept
# across runs) live where a user looks for a cache: as root under
# /var/cache/bootpack/, else under $XDG_CACHE_HOME/bootpack/ (~/.cache/bootpack/).
# BOOTBENCH_DIR (bench-boot's cache, which check-loop copies its tree from)
# and LOOPBENCH_DIR (check-loop's) override each.
# shellcheck shell=bash

if [ "$(id -u)" = 0 ]; then
	BP_CACHE_ROOT=${BP_CACHE_ROOT:-/var/cache/bootpack}
else
	BP_CACHE_ROOT=${BP_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/bootpack}
fi
BOOTBENCH_DIR=${BOOTBENCH_DIR:-$BP_CACHE_ROOT/bootbench}
LOOPBENCH_DIR=${LOOPBENCH_DIR:-$BP_CACHE_ROOT/loopbench}
export BP_CACHE_ROOT BOOTBENCH_DIR LOOPBENCH_DIR
