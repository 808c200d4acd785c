#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Negative control: a known-unsafe writer run through the same crash driver must fail, proving the
# oracle (e2fsck -p/-fn, hashes, transcript) can catch a bad engine.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
img=$(bp_fixture --aged ext4)
# resize2fs-style relocation (one ext2fs_extent_set_bmap per block) of a
# fragmented extent file: the driver must find crash points e2fsck -p cannot
# preen, or the oracle is toothless. --expect-failures fails when none is found.
bash "$CRASH_DRIVER" --image "$img" --work "$BP_TMPDIR/crash" --name unsafe-ext4-aged \
	--sample "${BP_CRASH_UNSAFE_SAMPLE:-24}" --seeds 1 --expect-failures --summary "$CRASH_SUMMARY" \
	-- "$CRASH_UNSAFE" @IMG@ /boot/vmlinuz-$CRASH_KVER >"$BP_TMPDIR/neg.out" 2>&1 ||
	{ cat "$BP_TMPDIR/neg.out"; bp_fail "the negative control did not fail"; }
cat "$BP_TMPDIR/neg.out"
bp_grep "duplicate extent mapping|e2fsck-p: [1-9]" "$BP_TMPDIR/neg.out"
exit 0
