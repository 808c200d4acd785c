#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A non-ext filesystem is refused (exit 4) with the type named, and the
# image is byte-identical afterwards.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd mkfs.vfat

img=$BP_TMPDIR/vfat.img
truncate -s 16M "$img"
mkfs.vfat -i 12345678 -n BOOTPACK "$img" >/dev/null || bp_fail "mkfs.vfat"
before=$(sha256sum <"$img")

bp_expect_exit 4 "$BOOTPACK" relayout --trace /dev/null "$img"
bp_grep "found a vfat filesystem, but bootpack works only on ext2, ext3 and ext4" "$BP_TMPDIR/err"
bp_expect_exit 4 "$BOOTPACK" relayout -n --trace /dev/null "$img"
[ "$(sha256sum <"$img")" = "$before" ] || bp_fail "the vfat image was modified"

# Blank image: nothing recognised.
truncate -s 4M "$BP_TMPDIR/blank.img"
bp_expect_exit 4 "$BOOTPACK" relayout --trace /dev/null "$BP_TMPDIR/blank.img"
bp_grep "no filesystem found" "$BP_TMPDIR/err"
exit 0
