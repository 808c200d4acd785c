#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# UUID= and LABEL= are resolved by libblkid to the loop device that holds
# the fixture; an image path is used as is; the fs type is probed.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd tune2fs blkid

# A copy with a UUID and label of its own: other cases may have the same
# fixture attached to loop devices at the same time.
img=$BP_TMPDIR/devspec.img
cp --sparse=always "$(bp_fixture ext4)" "$img"
tune2fs -U random -L "bpt$$" "$img" >/dev/null
uuid=$(blkid -p -o value -s UUID "$img")
label=$(blkid -p -o value -s LABEL "$img")
[ -n "$uuid" ] || bp_fail "fixture has no UUID"

# An image file: resolved to its real path.
"$BOOTPACK" -v relayout -n --trace /dev/null "$img" >"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err" || true
bp_grep "resolves to $(realpath "$img") \(ext4, UUID $uuid\)" "$BP_TMPDIR/err"

bp_loop_attach "$img" dev
for spec in "UUID=$uuid" "LABEL=$label"; do
	"$BOOTPACK" -v relayout -n --trace /dev/null "$spec" >"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err" || true
	bp_grep "$spec resolves to $dev \(ext4, UUID $uuid\)" "$BP_TMPDIR/err"
done

# A UUID nobody has: exit 1, named in the message.
bp_expect_exit 1 "$BOOTPACK" relayout -n --trace /dev/null UUID=00000000-dead-beef-0000-000000000000
bp_grep "UUID=00000000-dead-beef-0000-000000000000: no filesystem with this tag found" "$BP_TMPDIR/err"
exit 0
