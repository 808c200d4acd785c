#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 23, case 8: setup is all or nothing. A write that fails half-way
# (here the dpkg hook's name is taken by a directory; then the state's) takes
# back every unit it enabled, the drop-in, the files it wrote and the
# directories it created, restores a file it replaced, and exits 1; status
# then rightly says no loop is set up. (The old setup left 4 enabled units,
# the drop-in and the dpkg hook behind.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

mk_tree
touch "$ROOT/etc/default/grub"	# GRUB: the snippet is written too
mkdir -p "$ROOT/etc/dpkg/dpkg.cfg.d/bootpack/x"
listing "$ROOT" "$BP_TMPDIR/before"
bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT"
bp_grep 'dpkg.cfg.d/bootpack: exists and is not a file' "$BP_TMPDIR/err"
bp_grep 'failed: taking back what was written' "$BP_TMPDIR/out"
bp_grep 'removed .*/etc/systemd/system/multi-user.target.wants/bootpack-loop.service' "$BP_TMPDIR/out"
listing "$ROOT" "$BP_TMPDIR/now"
diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "the failed setup left changes behind"
bp_expect_exit 3 "$BOOTPACK" status --root "$ROOT"
rm -r "$ROOT/etc/dpkg/dpkg.cfg.d/bootpack"

# the last write fails (the state): a kernel-arguments file that was there is restored
statedir=$(sed -n 's/^STATEDIR=//p' "$top_builddir/boot/relayout-root.sh")
mkdir -p "$ROOT$statedir/loop/x"
echo "old arguments" >"$ROOT$statedir/cmdline"
listing "$ROOT" "$BP_TMPDIR/before"
bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT"
bp_grep 'loop: exists and is not a file' "$BP_TMPDIR/err"
bp_grep "restored .*$statedir/cmdline" "$BP_TMPDIR/out"
listing "$ROOT" "$BP_TMPDIR/now"
diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "the failed setup left changes behind"
rm -r "$ROOT$statedir/loop"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
exit 0
