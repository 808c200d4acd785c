#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --region arithmetic cannot wrap: a start near 2^64 (start + length
# overflows to a small number) or just inside the end of the filesystem is
# refused with exit 1 before anything is written. Before the fix
# --region 18446744073709551615 copied the boot set over blocks 0, 1, 2 ...
# (superblock, group descriptors, inode table) and exited 8.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
total=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block count/ {print $2}')
s0=$(rl_sum "$img")
for region in 18446744073709551615 18446744073709551615:4096 18446744073709550000 \
	9223372036854775808 $((total - 1)) $total; do
	for dry in -n ""; do
		bp_expect_exit 1 "$BOOTPACK" relayout $dry --no-undo --region "$region" \
			--trace "$BP_TMPDIR/t" "$img"
		bp_grep "lies outside the filesystem \($total blocks\)" "$BP_TMPDIR/err"
	done
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "--region $region changed the image"
done
bp_fsck_clean "$img"
exit 0
