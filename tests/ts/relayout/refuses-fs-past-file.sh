#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# relayout refuses a filesystem image file cut short (issue 37): the
# filesystem says 128 MiB, the file holds 64 MiB (truncate -s). Dry run or
# not, exit 4, the message naming both sizes and the fix, nothing written:
# the file keeps its bytes and its size, no undo file. Before the check,
# relayout wrote its region past the end of the file, which grew back to
# 128 MiB around a hole of zeros where the filesystem had its data.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs resize2fs

img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
rl_overgrown "$img"
truncate -s 64M "$img"
s0=$(rl_sum "$img")
for dry in -n ""; do
	bp_expect_exit 4 "$BOOTPACK" relayout $dry -z "$BP_TMPDIR/u" --trace "$BP_TMPDIR/t" "$img"
	bp_grep "^bootpack relayout: $img: the filesystem is 134217728 bytes \\(32768 blocks of 4096\\) but the file holds only 67108864: grow the file or resize2fs the filesystem first\$" "$BP_TMPDIR/err"
	[ ! -e "$BP_TMPDIR/u" ] || bp_fail "a refused run left an undo file"
done
[ "$(stat -c %s "$img")" = 67108864 ] || bp_fail "the file's size changed: $(stat -c %s "$img")"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "a refused run changed the file"
exit 0
