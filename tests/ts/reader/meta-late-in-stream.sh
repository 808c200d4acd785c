#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Metadata the boot first needs late is read when the file stream gets
# there, not before the first file: read first, its seeks would delay every
# file before it. A pack of three 6 MiB files then a small one whose inode
# lies in another inode-table block (50 files not in the pack were created
# between them); with --meta-gap 0 that block is a range of its own, first
# needed 18 MiB into the boot. The loop device's own request trace (tracefs
# block_rq_issue, shared with nothing of bootpack) shows the first file's
# inode block read before its first data block, and the late file's inode
# block read after it.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs mke2fs
bp_tracefs >/dev/null

img=$BP_TMPDIR/late.img
mke2fs -q -F -t ext4 -b 4096 "$img" 64M || bp_fail "mke2fs"
src=$BP_TMPDIR/src
mkdir -p "$src"
head -c $((6 << 20)) /dev/urandom >"$src/big"
echo late >"$src/late"
{
	for i in 1 2 3; do echo "write $src/big big$i"; done
	echo "mkdir fill"
	for i in $(seq 1 50); do echo "write $src/late fill/f$i"; done
	echo "write $src/late late"
} >"$BP_TMPDIR/cmds"
debugfs -w -f "$BP_TMPDIR/cmds" "$img" >/dev/null 2>&1 || bp_fail "debugfs write"
rm -rf "$src"
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" /big1 /big2 /big3 /late

# inode_block PATH: the block of the inode table holding PATH's inode
inode_block() {
	debugfs -R "imap $1" "$img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p'
}
early=$(inode_block /big1)
late=$(inode_block /late)
data=$(debugfs -R "bmap /big1 0" "$img" 2>/dev/null)
[ -n "$early" ] && [ -n "$late" ] && [ -n "$data" ] || bp_fail "debugfs imap/bmap"
[ "$late" -gt $((early + 1)) ] || bp_fail "the late file's inode is in block $late, next to $early: the test cannot tell"

bp_loop_attach "$img" loop
mnt=$BP_TMPDIR/mnt
bp_mount "$loop" "$mnt" ro
rd_issued "$loop" "$BP_TMPDIR/issue.txt" "$READER" --no-exec --config=none --log=stderr \
	--method=uring --root "$mnt" --pack "$pack" --meta-gap 0

# the index of the first read request covering 4 KiB block B (sectors of 512 B)
first_req() {
	awk -v b="$1" '
		/block_rq_issue:/ {
			for (i = 1; i <= NF; i++) if ($i == "+") { s = $(i - 1); n = $(i + 1) }
			k++
			if (s * 512 <= b * 4096 && b * 4096 < (s + n) * 512) { print k; exit }
		}' "$BP_TMPDIR/issue.txt"
}
e=$(first_req "$early")
d=$(first_req "$data")
l=$(first_req "$late")
bp_info "requests: first file's inode block #$e, its first data block #$d, late file's inode block #$l"
[ -n "$e" ] && [ -n "$d" ] && [ -n "$l" ] || { cat "$BP_TMPDIR/issue.txt"; bp_fail "a block was never read"; }
[ "$e" -lt "$d" ] || bp_fail "the first file's inode block was read after its data"
[ "$l" -gt "$d" ] || bp_fail "the late file's inode block was read before the first file's data"
