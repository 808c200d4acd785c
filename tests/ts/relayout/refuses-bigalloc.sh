#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bigalloc is refused (exit 4), dry run or not; the image stays byte-identical.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4-bigalloc)
rl_mktrace "$img" "$BP_TMPDIR/t" /boot/vmlinuz-6.1.0-bootpack /etc/fstab
s0=$(rl_sum "$img")
for dry in -n ""; do
	bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$BP_TMPDIR/t" "$img"
	bp_grep "$img: uses bigalloc \(cluster allocation\); relayout cannot move blocks inside clusters" "$BP_TMPDIR/err"
done
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the bigalloc image"
exit 0
