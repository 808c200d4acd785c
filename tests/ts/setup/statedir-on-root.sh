#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 23, case 3: boot 2 reads the loop's state from the unmounted root
# with debugfs, so a state directory on another filesystem (/var of its own)
# is never found there and the loop turns off after three boots. setup
# refuses it (exit 4, the reason and the fix), dry run or not, and writes
# nothing. (The old setup accepted it and measured the free space of /.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

mk_tree
statedir=$(sed -n 's/^STATEDIR=//p' "$top_builddir/boot/relayout-root.sh")
top=/${statedir#/}
top=/$(echo "${top#/}" | cut -d/ -f1)	# /var
varimg=$BP_TMPDIR/var.img
truncate -s 64M "$varimg"
mke2fs -q -F -t ext4 "$varimg"
mkdir -p "$ROOT$top"
bp_mount "$varimg" "$ROOT$top" loop
listing "$ROOT" "$BP_TMPDIR/before"

bp_expect_exit 4 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep "$ROOT$top: on another filesystem .*boot 2 reads the loop's state in $statedir from the root filesystem" "$BP_TMPDIR/err"
bp_expect_exit 4 "$BOOTPACK" setup --root "$ROOT"
bp_grep "on another filesystem" "$BP_TMPDIR/err"
listing "$ROOT" "$BP_TMPDIR/now"
diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "the refusal wrote to the tree"
[ -z "$(find "$ROOT$top" -mindepth 1 -maxdepth 1 ! -name lost+found)" ] || bp_fail "the refusal wrote to $top"
bp_expect_exit 3 "$BOOTPACK" status --root "$ROOT"

# the same tree with the state directory on the root: accepted, and the
# free space is that of the state directory's filesystem
umount "$ROOT$top"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep '^Root filesystem: .* MiB free \(320 MiB needed\)' "$BP_TMPDIR/out"
exit 0
