#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A mounted filesystem is refused (exit 4), named by its loop device or by the
# image file behind the loop device; nothing is written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_root
bp_require_cmd debugfs dumpe2fs blkid losetup mount
img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
bp_loop_attach "$img" loopdev
bp_mount "$loopdev" "$BP_TMPDIR/mnt" ro,noload
s0=$(rl_sum "$img")
for spec in "$loopdev" "$img"; do
	for dry in -n ""; do
		bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$BP_TMPDIR/t" "$spec"
		bp_grep "is mounted on $BP_TMPDIR/mnt; relayout works offline only" "$BP_TMPDIR/err"
	done
done
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the mounted image"
exit 0
