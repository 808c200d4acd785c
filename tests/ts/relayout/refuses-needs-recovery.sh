#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A journal that needs recovery is refused (exit 4): replaying it after a
# relayout would overwrite the new metadata. The image stays byte-identical.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
for kind in ext4 ext3; do
	img=$(bp_fixture $kind)
	rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
	debugfs -w -R "feature needs_recovery" "$img" >/dev/null 2>&1 || bp_fail "debugfs feature"
	s0=$(rl_sum "$img")
	bp_expect_exit 4 "$BOOTPACK" relayout -z "$BP_TMPDIR/u" --trace "$BP_TMPDIR/t" "$img"
	bp_grep "is not clean: its journal needs recovery; please run 'e2fsck -f $img' first" "$BP_TMPDIR/err"
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the $kind image"
	[ ! -e "$BP_TMPDIR/u" ] || bp_fail "refused run left an undo file"
done
exit 0
