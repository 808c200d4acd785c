#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 23, case 11: setup --device must name the filesystem that holds
# --root (boot 2 relays out the root found by its UUID): another one is
# refused (exit 4) and nothing is written; the root's own device, as a
# block device or as the image file, is accepted. And a root with an
# external journal, which relayout handles (it never moves the journal), is
# accepted; a journal device itself is not a root. (The old setup took any
# --device and refused every external journal.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

# the journal device first: the root's mke2fs names it
jimg=$BP_TMPDIR/journal.img
truncate -s 16M "$jimg"
mke2fs -q -F -O journal_dev -b 4096 "$jimg"
bp_loop_attach "$jimg" jdev
mk_tree -b 4096 -J device="$jdev"
dumpe2fs -h "$TREE_DEV" 2>/dev/null | grep -q '^Journal device:' || bp_fail "no external journal"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep '^Root filesystem: .*\(ext4, UUID=' "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT" --device "$TREE_DEV"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT" --device "$BP_TMPDIR/root.img"
bp_expect_exit 4 "$BOOTPACK" setup --dry-run --root "$ROOT" --device "$jdev"
bp_grep 'is jbd, not ext2/3/4|a journal device' "$BP_TMPDIR/err"

# another filesystem
oimg=$BP_TMPDIR/other.img
truncate -s 64M "$oimg"
mke2fs -q -F -t ext4 "$oimg"
bp_loop_attach "$oimg" odev
listing "$ROOT" "$BP_TMPDIR/before"
for d in "$odev" "$oimg"; do
	bp_expect_exit 4 "$BOOTPACK" setup --root "$ROOT" --device "$d"
	bp_grep ": not the filesystem that holds $ROOT \(device [0-9]+:[0-9]+\): give the root filesystem's device, or no --device" "$BP_TMPDIR/err"
done
listing "$ROOT" "$BP_TMPDIR/now"
diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "the refusal wrote to the tree"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --device "$TREE_DEV"
bp_grep "^device=UUID=$(blkid -p -s UUID -o value "$TREE_DEV")\$" "$ROOT/var/lib/bootpack/loop"
exit 0
