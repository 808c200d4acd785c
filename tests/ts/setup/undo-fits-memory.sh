#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 23, case 4: the undo file of boot 2 lives in a tmpfs of half the
# memory until the root is up. setup estimates it (the boot set, and as much
# again when no free run holds the region and eviction must clear it, plus a
# sixteenth) and refuses a region it cannot hold (exit 1) with the largest
# --region-size that fits, writing nothing; --memory names the memory of the
# machine that boots a tree. (The old setup printed the memory and checked
# nothing; it did not know --memory.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

mk_tree
listing "$ROOT" "$BP_TMPDIR/before"
# 400 MiB, nearly empty: a free run holds 100 MiB, no eviction: about 106 MiB
bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT" --memory 128M --region-size 100M
bp_grep 'undo file of boot 2, about 106 MiB for a --region-size of 100 MiB, does not fit in the tmpfs of the initramfs \(half of 128 MiB of memory\): give a --region-size of 60 MiB or less' "$BP_TMPDIR/err"
listing "$ROOT" "$BP_TMPDIR/now"
diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "the refusal wrote to the tree"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT" --memory 128M --region-size 60M
bp_grep '^Memory: 128 MiB; the undo file of boot 2 \(about 63 MiB\) is kept in a tmpfs of 64 MiB' "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep '^Memory: unknown \(give --memory\)' "$BP_TMPDIR/out"

# no free run of 70 MiB (4 MiB files and 4 MiB holes): eviction clears the
# region, twice the undo file
i=0
while :; do
	i=$((i + 1))
	head -c $((4 << 20)) /dev/zero >"$ROOT/f$i" 2>/dev/null || break
	head -c $((4 << 20)) /dev/zero >"$ROOT/g$i" 2>/dev/null || break
done
rm -f "$ROOT"/g*
sync
bp_expect_exit 1 "$BOOTPACK" setup --dry-run --root "$ROOT" --memory 256M --region-size 70M
bp_grep 'about 148 MiB for a --region-size of 70 MiB and as much evicted from it.*give a --region-size of 60 MiB or less' "$BP_TMPDIR/err"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT" --memory 256M --region-size 60M
bp_grep '^Memory: 256 MiB; the undo file of boot 2 \(about 127 MiB, with eviction\)' "$BP_TMPDIR/out"
bp_expect_exit 2 "$BOOTPACK" setup --root "$ROOT" --memory 8M
bp_grep "'8M' is not a size of 16M or more" "$BP_TMPDIR/err"
exit 0
