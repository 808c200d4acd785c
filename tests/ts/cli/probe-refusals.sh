#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack probe refuses, with a message naming the device and its exit
# code (bootpack-probe(8)): a device mounted read-write (4, unless
# --mounted; read-only is fine), a missing one (1), something that is
# neither a block device nor a file (1), a device too small (1), and bad
# usage (2). Nothing is written: the image's sha256 stays.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd losetup mkfs.ext4 sha256sum

img=$BP_TMPDIR/probe-refuse-b.img
truncate -s 32M "$img"
mkfs.ext4 -q -F "$img"
bp_loop_attach "$img" dev
bp_mount "$dev" "$BP_TMPDIR/mnt"
bp_expect_exit 4 "$BOOTPACK" probe -t 1 "$dev"
bp_grep "^bootpack probe: $dev: mounted read-write on $BP_TMPDIR/mnt: " "$BP_TMPDIR/err"
[ ! -s "$BP_TMPDIR/out" ] || bp_fail "a refusal printed figures"
bp_expect_exit 0 "$BOOTPACK" probe -t 0.5 --mounted "$dev"
bp_grep '^Nearest model: ' "$BP_TMPDIR/out"
umount "$BP_TMPDIR/mnt"
mount -o ro "$dev" "$BP_TMPDIR/mnt" || bp_fail "mount -o ro"
bp_expect_exit 0 "$BOOTPACK" probe -t 0.5 "$dev"
umount "$BP_TMPDIR/mnt"
sum0=$(sha256sum <"$img")

bp_expect_exit 1 "$BOOTPACK" probe "$BP_TMPDIR/missing-b.img"
bp_grep "missing-b.img: No such file or directory" "$BP_TMPDIR/err"
bp_expect_exit 1 "$BOOTPACK" probe /dev/null
bp_grep "/dev/null: neither a block device nor an image file" "$BP_TMPDIR/err"
bp_expect_exit 1 "$BOOTPACK" probe UUID=00000000-dead-beef-0000-00000000000b
bp_grep "no filesystem with this tag found" "$BP_TMPDIR/err"
truncate -s 1M "$BP_TMPDIR/small-b.img"
bp_expect_exit 1 "$BOOTPACK" probe "$BP_TMPDIR/small-b.img"
bp_grep "too small to measure" "$BP_TMPDIR/err"

bp_expect_exit 2 "$BOOTPACK" probe
bp_grep "no device given" "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" probe --time 0 "$img"
bp_grep "'0' is not a number of seconds" "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" probe "$img" "$img"
bp_grep "Try 'bootpack probe --help'" "$BP_TMPDIR/err"

[ "$(sha256sum <"$img")" = "$sum0" ] || bp_fail "the image changed"
exit 0
