#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image refuses (exit 4), naming what it found and writing nothing:
# a GPT image whose partitions hold no ext2/3/4 filesystem (a vfat ESP and
# a vfat "root"), a file that is neither a filesystem nor a partitioned disk,
# and an ext4 root without bootpack installed in it.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs sfdisk mkfs.vfat

# A vfat filesystem where the root should be.
fat=$BP_TMPDIR/fat-a.img
truncate -s 16M "$fat"
mkfs.vfat -n ROOT "$fat" >/dev/null
img_root "$BP_TMPDIR/root-a.img"
t=$BP_TMPDIR/root-a.img.trace
disk=$BP_TMPDIR/disk-a.img
img_gpt "$disk" "$fat" >/dev/null
s0=$(rl_sum "$disk")
bp_expect_exit 4 "$BOOTPACK" image --trace "$t" "$disk"
bp_grep "$disk: no ext2/ext3/ext4 root filesystem in its gpt partition table \(1: no filesystem, 2: vfat\)" \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a refused run changed the image"
ls "$disk".bootpack-undo* >/dev/null 2>&1 && bp_fail "a refused run wrote an undo file"

# Neither a filesystem nor a partition table.
head -c 4M /dev/zero >"$BP_TMPDIR/zero.img"
bp_expect_exit 4 "$BOOTPACK" image --trace "$t" "$BP_TMPDIR/zero.img"
bp_grep 'neither an ext2/3/4 filesystem image \(no filesystem signature\) nor a disk image with a partition table' \
	"$BP_TMPDIR/err"
cmp -s "$BP_TMPDIR/zero.img" <(head -c 4M /dev/zero) || bp_fail "the zero image changed"

# An ext4 root without bootpack's reader unit: install the package first.
bare=$BP_TMPDIR/bare-a.img
cp --sparse=always "$BP_TMPDIR/root-a.img" "$bare"
debugfs -w -f - "$bare" >/dev/null 2>&1 <<-EOC
	rm /etc/systemd/system/bootpack-read.service
	rm /usr/lib/systemd/system/bootpack-read.service
EOC
s0=$(rl_sum "$bare")
bp_expect_exit 4 "$BOOTPACK" image --trace "$t" "$bare"
bp_grep 'bootpack-read.service is not installed in the image .*install the bootpack package in the image first' \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$bare")" = "$s0" ] || bp_fail "a refused run changed the image"
exit 0
