#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# relayout --pack writes the pack for the new layout: fresh against the
# relaid filesystem, while the pack made before relayout is now stale
# (its blocks moved). --no-pack and a dry run write no pack.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs e2fsck dumpe2fs blkid

img=$(bp_fixture --aged ext4)
t=$BP_TMPDIR/boot.trace
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
bp_expect_exit 0 "$BOOTPACK" pack --meta=files --trace "$t" -o "$BP_TMPDIR/old.pack" "$img"
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/old.pack" "$img"

bp_expect_exit 0 "$BOOTPACK" relayout -n --pack "$BP_TMPDIR/dry.pack" --trace "$t" "$img"
[ ! -e "$BP_TMPDIR/dry.pack" ] || bp_fail "a dry run wrote a pack"

bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/new.pack" --trace "$t" "$img"
bp_grep "new.pack: pack rewritten for the new layout: [1-9][0-9]* entries" "$BP_TMPDIR/out"
bp_fsck_clean "$img"

# The new pack matches the filesystem as it is now; the old one does not.
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/new.pack" "$img"
bp_expect_exit 3 "$BOOTPACK" verify --pack "$BP_TMPDIR/old.pack" "$img"
bp_grep "moved" "$BP_TMPDIR/out"

# The new pack says it was written by relayout.
bp_expect_exit 0 "$BOOTPACK" dump --json "$BP_TMPDIR/new.pack"
bp_grep '"compat": "[^"]*relayout' "$BP_TMPDIR/out"

# A second run with --no-pack leaves no pack behind.
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --no-pack --trace "$t" "$img"
! grep -q "pack rewritten" "$BP_TMPDIR/out" || bp_fail "--no-pack rewrote a pack"
exit 0
