#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --region START puts the boot set exactly there, moving other files out of
# the way if needed; a region holding fixed metadata, or too small, is
# refused with exit 1 and the image left byte-identical.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
s0=$(rl_sum "$img")
bp_expect_exit 1 "$BOOTPACK" relayout --no-undo --region 100 --trace "$BP_TMPDIR/t" "$img"
bp_grep "the region 100\+[0-9]+ holds block [0-9]+, which cannot move" "$BP_TMPDIR/err"
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
bp_layout_check "$img" "${RL_BOOT_FILES[@]}" || bp_fail "boot set not laid out (debugfs)"
[ "$BP_LAYOUT_FIRST" = 12000 ] || bp_fail "debugfs: the boot set starts at $BP_LAYOUT_FIRST, not 12000"

# Over other files' blocks: they are moved out first.
img=$(bp_fixture ext4)
bp_hash_files "$img" >"$BP_TMPDIR/h0"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --region 3000 --trace "$BP_TMPDIR/t" "$img"
bp_grep "evicted: +[1-9][0-9]* blocks" "$BP_TMPDIR/out"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed (eviction)"
[ "$(rl_verify_json "$img" "$BP_TMPDIR/t" first_block)" = 3000 ] || bp_fail "stream not at 3000"
[ "$(rl_verify_json "$img" "$BP_TMPDIR/t" discontiguities)" = 0 ] || bp_fail "not one stream"
bp_layout_check "$img" "${RL_BOOT_FILES[@]}" || bp_fail "boot set not laid out after eviction (debugfs)"
[ "$BP_LAYOUT_FIRST" = 3000 ] || bp_fail "debugfs: the boot set starts at $BP_LAYOUT_FIRST, not 3000"
exit 0
