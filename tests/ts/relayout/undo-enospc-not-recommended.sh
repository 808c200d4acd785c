#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The undo file's filesystem fills up mid-run (a 2 MiB tmpfs): relayout exits
# 8 and says honestly what it knows: the undo file is incomplete and was
# removed (it never recommends 'e2undo' with it), nothing was verified after
# the failure (no claim that every file is intact), and e2fsck is the fix.
# The claim it does make holds: 'e2fsck -fy' repairs it and every file's
# SHA-256 is unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_root
bp_require_cmd debugfs dumpe2fs blkid e2fsck mount
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
bp_hash_files "$img" >"$BP_TMPDIR/h0"
mkdir "$BP_TMPDIR/small"
mount -t tmpfs -o size=2m tmpfs "$BP_TMPDIR/small" || bp_fail "mount tmpfs"
bp_on_exit "umount -l '$BP_TMPDIR/small'"
u=$BP_TMPDIR/small/undo

bp_expect_exit 8 "$BOOTPACK" relayout -z "$u" --trace "$t" "$img"
bp_grep "No space left on device" "$BP_TMPDIR/err"
bp_grep "the undo file $u is incomplete \(writing it failed: No space left on device\) and was removed" \
	"$BP_TMPDIR/err"
! grep -q "e2undo" "$BP_TMPDIR/err" || bp_fail "recommends e2undo with an incomplete undo file"
[ ! -e "$u" ] || bp_fail "the incomplete undo file was left"
bp_grep "nothing was verified after the failure" "$BP_TMPDIR/err"
! grep -q "every file still has its contents" "$BP_TMPDIR/err" || bp_fail "claims files intact unchecked"
bp_grep "run 'e2fsck -fy $img' before mounting it" "$BP_TMPDIR/err"

rc=0
e2fsck -fy "$img" >"$BP_TMPDIR/fsck" 2>&1 || rc=$?
[ $rc -le 1 ] || { cat "$BP_TMPDIR/fsck"; bp_fail "e2fsck -fy exited $rc"; }
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"
exit 0
