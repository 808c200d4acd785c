#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A file of ~490 extents (1 KiB blocks: a depth-2 tree, 6 leaves) read in two
# pieces with another file in between. Its new tree keeps the untraced
# fragments, so it needs more than 4 leaves: a depth-2 tree, built
# copy-on-write (index block, then leaves) just before its first piece and
# committed by one inode write. Once such files were skipped as
# "too-fragmented". Checked with debugfs: the file moved (no skip), its new
# interior tree blocks sit just before its first data, the pieces follow the
# first-access order, e2fsck -fn is clean, every file's SHA-256 unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs e2fsck mke2fs blkid

img=$BP_TMPDIR/deep.img
data=$top_builddir/fixtures/bp-fixture-data
"$data" deep-one 1K >"$BP_TMPDIR/one"
"$data" deep-big 2M >"$BP_TMPDIR/big"
"$data" deep-other 256K >"$BP_TMPDIR/other"
truncate -s 32M "$img"
MKE2FS_CONFIG=$top_srcdir/fixtures/mke2fs.conf mke2fs -q -F -t ext4 -b 1024 \
	-O metadata_csum,64bit -U b0075ac0-0000-4000-8000-0000000000d2 -E lazy_itable_init=1 \
	"$img" || bp_fail "mke2fs"
# 1000 one-block files, every other removed: /big fills the 500 holes.
{
	echo "mkdir /junk"
	for i in $(seq 0 999); do echo "write $BP_TMPDIR/one /junk/f$i"; done
	for i in $(seq 0 2 999); do echo "rm /junk/f$i"; done
	echo "write $BP_TMPDIR/big /big"
	echo "write $BP_TMPDIR/other /other"
} >"$BP_TMPDIR/age.cmd"
debugfs -w -f "$BP_TMPDIR/age.cmd" "$img" >/dev/null 2>&1 || bp_fail "debugfs aging"
bp_fsck_clean "$img"
debugfs -R "ex /big" "$img" >"$BP_TMPDIR/ex0" 2>/dev/null
bp_grep "^ *2/ *2 " "$BP_TMPDIR/ex0"	# depth 2 before
n0=$(grep -c "^ *2/ *2 " "$BP_TMPDIR/ex0")
[ "$n0" -gt 400 ] || bp_fail "the aged file has only $n0 extents"

rl_mktrace "$img" "$BP_TMPDIR/t" "/big@0+131072/1000,1048576+131072/3000" "/other@0+262144/2000"
bp_hash_files "$img" >"$BP_TMPDIR/h0"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t" "$img"
grep -E "too-fragmented" "$BP_TMPDIR/out" | grep -vqE "too-fragmented:? *0" &&
	bp_fail "the deep file was skipped: $(cat "$BP_TMPDIR/out")"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"

debugfs -R "ex /big" "$img" >"$BP_TMPDIR/ex1" 2>/dev/null
bp_grep "^ *2/ *2 " "$BP_TMPDIR/ex1"	# still depth 2: the untraced fragments stayed
n1=$(grep -c "^ *2/ *2 " "$BP_TMPDIR/ex1")
bp_info "extents of /big: $n0 -> $n1"
# first data block of each piece (debugfs bmap), in first-access order
p1=$(debugfs -R "bmap /big 0" "$img" 2>/dev/null)
o1=$(debugfs -R "bmap /other 0" "$img" 2>/dev/null)
p2=$(debugfs -R "bmap /big 1024" "$img" 2>/dev/null)
e1=$(debugfs -R "bmap /big 127" "$img" 2>/dev/null)
e2=$(debugfs -R "bmap /big 1151" "$img" 2>/dev/null)
[ $((e1 - p1)) = 127 ] && [ $((e2 - p2)) = 127 ] || bp_fail "a piece of /big is not contiguous"
[ "$p1" -lt "$o1" ] && [ "$o1" -lt "$p2" ] || bp_fail "pieces not in first-access order: $p1 $o1 $p2"
[ "$o1" = $((e1 + 1)) ] || bp_fail "/other ($o1) does not follow the first piece of /big ($e1)"
# the interior tree blocks (levels 0 and 1 point to them) lie just before the first piece
tree=$(awk '/^ *[01]\/ *2 / { print $(NF - 1) }' "$BP_TMPDIR/ex1" | sort -un)
[ -n "$tree" ] || bp_fail "no interior tree blocks listed"
for b in $tree; do
	[ "$b" -lt "$p1" ] && [ "$b" -ge $((p1 - 16)) ] ||
		bp_fail "tree block $b is not just before the first piece ($p1)"
done
bp_info "tree blocks ${tree//$'\n'/ } before data at $p1"
exit 0
