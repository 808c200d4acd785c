#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --region START puts the boot set exactly there; a region that is not free,
# or too small, is refused with exit 1 and the image left byte-identical.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
s0=$(rl_sum "$img")
bp_expect_exit 1 "$BOOTPACK" relayout --no-undo --region 100 --trace "$BP_TMPDIR/t" "$img"
bp_grep "the region 100\+[0-9]+ is not free" "$BP_TMPDIR/err"
bp_expect_exit 1 "$BOOTPACK" relayout --no-undo --region 14000:10 --trace "$BP_TMPDIR/t" "$img"
bp_grep "the region 14000:10 is too small" "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" relayout --no-undo --region x --trace "$BP_TMPDIR/t" "$img"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the image"

bp_hash_files "$img" >"$BP_TMPDIR/h0"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --region 12000 --trace "$BP_TMPDIR/t" "$img"
bp_grep "region: +blocks 12000-" "$BP_TMPDIR/out"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"
[ "$(rl_verify_json "$img" "$BP_TMPDIR/t" first_block)" = 12000 ] || bp_fail "stream not at 12000"
exit 0
