#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every failed check of bootpack setup names the thing and the fix, exits
# with its documented status and writes nothing: bigalloc (4, refused), too
# little free space (1), a kernel without event tracing (4), bootpack not
# installed (1); and a dry run writes nothing either.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

check_untouched() {
	listing "$ROOT" "$BP_TMPDIR/now"
	diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "$1 wrote to the tree"
}

mk_tree
listing "$ROOT" "$BP_TMPDIR/before"

bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep 'Would happen' "$BP_TMPDIR/out"
check_untouched "--dry-run"

bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT" --region-size 300M
bp_grep 'MiB free, 600 MiB needed.*--region-size' "$BP_TMPDIR/err"
check_untouched "the free-space refusal"

printf 'CONFIG_FTRACE=y\n# CONFIG_EVENT_TRACING is not set\n' >"$ROOT/boot/config-6.1.0-test"
listing "$ROOT" "$BP_TMPDIR/before"
bp_expect_exit 4 "$BOOTPACK" setup --root "$ROOT"
bp_grep 'config-6.1.0-test: kernel 6.1.0-test has no CONFIG_EVENT_TRACING' "$BP_TMPDIR/err"
check_untouched "the tracing refusal"
printf 'CONFIG_FTRACE=y\nCONFIG_EVENT_TRACING=y\n' >"$ROOT/boot/config-6.1.0-test"

installed=$(find "$ROOT" -path '*/sbin/bootpack' -type f)
[ -n "$installed" ] || bp_fail "bootpack not installed in the tree"
mv "$installed" "$BP_TMPDIR/bootpack.moved"
listing "$ROOT" "$BP_TMPDIR/before"
bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT"
bp_grep 'bootpack: not installed: install the bootpack package' "$BP_TMPDIR/err"
check_untouched "the not-installed refusal"
umount "$ROOT"

# bigalloc: relayout cannot handle it, setup refuses it
img2=$BP_TMPDIR/bigalloc.img
truncate -s 400M "$img2"
mke2fs -q -F -t ext4 -O bigalloc -C 16384 "$img2" 2>/dev/null
mount -o loop "$img2" "$ROOT"
make -s -C "$top_builddir" install DESTDIR="$ROOT" >/dev/null 2>&1
mkdir -p "$ROOT/lib/systemd" "$ROOT/usr/sbin" "$ROOT/boot"
: >"$ROOT/lib/systemd/systemd"
printf '#!/bin/sh\n' >"$ROOT/usr/sbin/update-initramfs"
chmod 755 "$ROOT/usr/sbin/update-initramfs"
printf 'CONFIG_FTRACE=y\nCONFIG_EVENT_TRACING=y\n' >"$ROOT/boot/config-6.1.0-test"
listing "$ROOT" "$BP_TMPDIR/before"
bp_expect_exit 4 "$BOOTPACK" setup --root "$ROOT"
bp_grep 'relayout cannot handle bigalloc' "$BP_TMPDIR/err"
check_untouched "the bigalloc refusal"
exit 0
