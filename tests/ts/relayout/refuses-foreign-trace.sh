#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace recorded on another filesystem (UUID differs) is refused (exit 4).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
other=$(bp_fixture ext3)
rl_mktrace "$other" "$BP_TMPDIR/t" /etc/fstab
s0=$(rl_sum "$img")
bp_expect_exit 4 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t" "$img"
bp_grep "the trace is of filesystem UUID b0075ac0-0000-4000-8000-000000000004 \\(block size 4096\\), this one is UUID b0075ac0-0000-4000-8000-000000000001" "$BP_TMPDIR/err"
bp_expect_exit 4 "$BOOTPACK" verify --trace "$BP_TMPDIR/t" "$img"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the image"
# A missing trace: exit 3.
bp_expect_exit 3 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/none" "$img"
exit 0
