#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# No free run is large enough (free space cut into 32-block holes): relayout
# picks the cheapest window, moves the other files out of it (eviction epoch)
# and fills it. e2fsck clean, every file (evicted ones too) unchanged, one
# stream, e2undo restores the image; a dry run reports the eviction and
# writes nothing.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid e2undo
for kind in ext4 ext3 "--aged ext4-1k"; do
	# shellcheck disable=SC2086  # the fixture's options, split into words on purpose
	img=$(bp_fixture $kind)
	rl_fill_holes "$img" || bp_fail "debugfs fill"
	rl_mktrace "$img" "$BP_TMPDIR/t" /boot/vmlinuz-6.1.0-bootpack /usr/bin/bash /etc/fstab \
		/usr/lib/x86_64-linux-gnu/libbp2.so.1
	bp_hash_files "$img" >"$BP_TMPDIR/h0"
	s0=$(rl_sum "$img")

	bp_expect_exit 0 "$BOOTPACK" relayout -n --trace "$BP_TMPDIR/t" "$img"
	bp_grep "evicted: +[1-9][0-9]* blocks" "$BP_TMPDIR/out"
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "$kind: dry run changed the image"

	bp_expect_exit 0 "$BOOTPACK" relayout -z "$BP_TMPDIR/u" --trace "$BP_TMPDIR/t" "$img"
	bp_grep "evicted: +[1-9][0-9]* blocks" "$BP_TMPDIR/out"
	rl_fsck_silent "$img"
	bp_hash_files "$img" >"$BP_TMPDIR/h1"
	diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "$kind: file contents changed"
	[ "$(rl_verify_json "$img" "$BP_TMPDIR/t" discontiguities)" = 0 ] ||
		bp_fail "$kind: boot stream not contiguous"
	bp_layout_check "$img" /boot/vmlinuz-6.1.0-bootpack /usr/bin/bash /etc/fstab \
		/usr/lib/x86_64-linux-gnu/libbp2.so.1 || bp_fail "$kind: boot set not laid out (debugfs)"
	e2undo "$BP_TMPDIR/u" "$img" >/dev/null || bp_fail "e2undo"
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "$kind: e2undo did not restore the image"
	rm -f "$BP_TMPDIR/u"
done
exit 0
