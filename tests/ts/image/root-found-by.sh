#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How bootpack image finds the root among several ext4 partitions: by the
# image's own /etc/fstab (an MBR image, both partitions of type 83), by
# --root-label, and not at all when nothing tells them apart (exit 4, the
# image unchanged); a bare ext4 image is its own root.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs e2fsck sfdisk mke2fs

# Another ext4 filesystem in partition 1: data, no /etc.
data=$BP_TMPDIR/data-a.img
mke2fs -q -F -t ext4 -L data "$data" 8M
uuid=$(debugfs -R stats "$(bp_fixture --aged ext4)" 2>/dev/null | awk '/^Filesystem UUID/ {print $3}')
printf '# /etc/fstab\nUUID=%s / ext4 errors=remount-ro 0 1\n' "$uuid" >"$BP_TMPDIR/fstab"
img_root "$BP_TMPDIR/root-a.img" "$BP_TMPDIR/fstab"
t=$BP_TMPDIR/root-a.img.trace
size=$(stat -c %s "$BP_TMPDIR/root-a.img")

# MBR, two Linux partitions: the fstab of partition 2 mounts it on /.
disk=$BP_TMPDIR/mbr-a.img
off=$(img_gpt "$disk" "$BP_TMPDIR/root-a.img" 83 "$data" 83 dos)
bp_expect_exit 0 "$BOOTPACK" image --json --trace "$t" "$disk"
bp_grep '"partition": 2,' "$BP_TMPDIR/out"
bp_grep '"found_by": "fstab",' "$BP_TMPDIR/out"
bp_grep '"table": "dos"' "$BP_TMPDIR/out"
img_part "$disk" "$off" "$size" "$BP_TMPDIR/part.img"
rl_fsck_silent "$BP_TMPDIR/part.img"
[ "$(rl_verify_json "$BP_TMPDIR/part.img" "$t" discontiguities)" = 0 ] ||
	bp_fail "the MBR image's root was not laid out"

# GPT, two generic Linux partitions, an fstab that names neither: refused.
img_root "$BP_TMPDIR/root-b.img"
disk=$BP_TMPDIR/gpt-a.img
img_gpt "$disk" "$BP_TMPDIR/root-b.img" "$IMG_LINUX_TYPE" "$data" "$IMG_LINUX_TYPE" >/dev/null
s0=$(rl_sum "$disk")
bp_expect_exit 4 "$BOOTPACK" image --trace "$BP_TMPDIR/root-b.img.trace" "$disk"
bp_grep 'several ext2/3/4 partitions and none is marked as the root \(found: 1: ext4, 2: ext4\); name it with --root-label LABEL' \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a refused run changed the image"
# ... and taken by its label.
bp_expect_exit 0 "$BOOTPACK" image --json --root-label bp-ext4 --trace "$BP_TMPDIR/root-b.img.trace" \
	"$disk"
bp_grep '"partition": 2,' "$BP_TMPDIR/out"
bp_grep '"found_by": "label",' "$BP_TMPDIR/out"

# A bare ext4 image.
bp_expect_exit 0 "$BOOTPACK" image --json --trace "$t" "$BP_TMPDIR/root-a.img"
bp_grep '"found_by": "bare",' "$BP_TMPDIR/out"
bp_grep '"offset": 0,' "$BP_TMPDIR/out"
rl_fsck_silent "$BP_TMPDIR/root-a.img"
[ "$(rl_verify_json "$BP_TMPDIR/root-a.img" "$t" discontiguities)" = 0 ] ||
	bp_fail "the bare image was not laid out"
exit 0
