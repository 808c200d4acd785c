#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Ranges of two files read alternately: the first file keeps most of its
# blocks where they are and gets 24 extents, so its new extent tree needs a
# leaf block (depth 1), written copy-on-write next to its data. e2fsck is
# clean, every file is unchanged, the boot stream is one run with the new
# leaf in it (bootpack verify, and bp_layout_check: debugfs).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
for kind in ext4 ext4-1k; do
	img=$(bp_fixture $kind)
	a=/usr/lib/systemd/libsystemd-shared-252.so
	b=/usr/bin/python3.11
	ra="" rb=""
	for i in $(seq 0 11); do
		ra="$ra${ra:+,}$((i * 65536))+4096/$((i * 2000 + 1000))"
		rb="$rb${rb:+,}$((i * 8192))+4096/$((i * 2000 + 2000))"
	done
	rl_mktrace "$img" "$BP_TMPDIR/t" "$a@$ra" "$b@$rb"
	bp_hash_files "$img" >"$BP_TMPDIR/h0"
	bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t" "$img"
	bp_fsck_clean "$img"
	bp_hash_files "$img" >"$BP_TMPDIR/h1"
	diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "$kind: file contents changed"
	debugfs -R "ex $a" "$img" >"$BP_TMPDIR/ex" 2>/dev/null
	bp_grep "^ *1/ *1 +1/ *[0-9]+ " "$BP_TMPDIR/ex"	# a depth-1 tree
	[ "$(rl_verify_json "$img" "$BP_TMPDIR/t" discontiguities)" = 0 ] ||
		bp_fail "$kind: boot stream not contiguous"
	# debugfs: the traced blocks, the directories and the new leaf are one
	# run (4 KiB reads join their neighbours in 64 KiB pieces: any order)
	bp_layout_check --any-order "$img" "$a@$ra" "$b@$rb" || bp_fail "$kind: not one run (debugfs)"
	grep -q ", [1-9][0-9]* tree blocks" <<<"$(bp_layout_check --any-order "$img" "$a@$ra" "$b@$rb")" ||
		bp_fail "$kind: the oracle saw no tree block"
done
exit 0
