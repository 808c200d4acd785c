#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The block bitmap is not trusted: on a filesystem marked clean whose bitmap
# shows another file's blocks as free (debugfs freeb), exactly where the
# region would go, relayout refuses (exit 4, naming 'e2fsck -f') and the
# image stays byte-identical, for one block and for a larger area. After
# 'e2fsck -fy' repairs the bitmap, the same relayout succeeds with every
# file intact. Before the fix the boot set was copied over the other file.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid e2fsck
base=$(bp_fixture ext4)
rl_mktrace "$base" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
bp_expect_exit 0 "$BOOTPACK" relayout -n --trace "$BP_TMPDIR/t" "$base"
start=$(sed -n 's/^ *region: *blocks \([0-9]*\)-.*/\1/p' "$BP_TMPDIR/out")
[ -n "$start" ] && [ "$start" -gt 300 ] || bp_fail "no region in the dry run"

# owned FIRST COUNT: every block of FIRST+COUNT belongs to an inode (icheck).
owned() {
	local n
	n=$(debugfs -R "icheck $(seq -s ' ' "$1" $(($1 + $2 - 1)))" "$base" 2>/dev/null |
		awk 'NR > 1 && $2 ~ /^[0-9]+$/' | wc -l)
	[ "$n" = "$2" ] || bp_fail "blocks $1+$2: only $n owned by an inode"
}

check() {	# check FIRST COUNT: free them in the bitmap, expect a refusal
	local img=$BP_TMPDIR/lie.img s0 dry
	owned "$1" "$2"
	cp "$base" "$img"
	debugfs -w -R "freeb $1 $2" "$img" >/dev/null 2>&1 || bp_fail "debugfs freeb $1 $2"
	# The lie is real: the filesystem is still marked clean, e2fsck disagrees.
	dumpe2fs -h "$img" 2>/dev/null | grep -q '^Filesystem state: *clean$' ||
		bp_fail "image not marked clean"
	! e2fsck -fn "$img" >/dev/null 2>&1 || bp_fail "e2fsck -fn finds nothing wrong"
	s0=$(rl_sum "$img")
	for dry in -n ""; do
		bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$BP_TMPDIR/t" "$img"
		bp_grep "$img: is inconsistent: block [0-9]+ \(.* of inode [0-9]+\) is marked free in the block bitmap; please run 'e2fsck -f $img' first" "$BP_TMPDIR/err"
	done
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the image (freeb $1 $2)"
}
# The block just below the region: the lowest free run would start there.
check $((start - 1)) 1
# A larger area: the 256 blocks below the region.
check $((start - 256)) 256

# The fix named in the message works: e2fsck -fy, then relayout succeeds.
img=$BP_TMPDIR/lie.img
bp_hash_files "$base" >"$BP_TMPDIR/h0"
rc=0; e2fsck -fy "$img" >/dev/null 2>&1 || rc=$?
[ $rc -le 1 ] || bp_fail "e2fsck -fy exited $rc"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t" "$img"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed after e2fsck + relayout"
exit 0
