#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# libext2fs's error table is registered: an image cut short after its
# superblock gives the library's sentence ("... short read"), never
# "Unknown code ext2 36", in every verb that opens a filesystem.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
truncate -s 4096 "$img"	# the superblock is there, the group descriptors are not
for cmd in "verify --trace $BP_TMPDIR/t" "relayout -n --trace $BP_TMPDIR/t" \
	"pack --trace $BP_TMPDIR/t -o $BP_TMPDIR/p"; do
	# shellcheck disable=SC2086  # a verb and its options, split into words on purpose
	bp_expect_exit 1 "$BOOTPACK" $cmd "$img"
	bp_grep "while opening the filesystem: Attempt to read block from filesystem resulted in short read" \
		"$BP_TMPDIR/err"
	! grep -q "Unknown code" "$BP_TMPDIR/err" || bp_fail "$cmd: unregistered error code"
done
exit 0
