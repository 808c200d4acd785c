#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every verb takes a mount point for its device (lib/devspec.c): pack,
# verify, bench and trace --merge --device give the same result with the
# directory an image is mounted on as with its loop device; relayout
# refuses it as mounted (exit 4, nothing written). A directory that is not
# a mount point is refused by name.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd debugfs dumpe2fs

img=$(bp_fixture ext4)
"$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/t" /etc/fstab /etc/passwd || bp_fail "mktrace"
bp_loop_attach "$img" dev
mnt=$BP_TMPDIR/mnt
bp_mount "$dev" "$mnt" ro

# same VERB ARGS...: run with $dev, then with $mnt; outputs must match.
same() {
	local a b
	"$BOOTPACK" "$@" "$dev" >"$BP_TMPDIR/by-dev" 2>&1 || bp_fail "$1 $dev failed: $(cat "$BP_TMPDIR/by-dev")"
	"$BOOTPACK" "$@" "$mnt" >"$BP_TMPDIR/by-mnt" 2>&1 || bp_fail "$1 $mnt failed: $(cat "$BP_TMPDIR/by-mnt")"
	a=$(sed -e "s|$mnt|DEV|g" -e "s|$dev|DEV|g" "$BP_TMPDIR/by-dev")
	b=$(sed -e "s|$mnt|DEV|g" -e "s|$dev|DEV|g" "$BP_TMPDIR/by-mnt")
	[ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b"); bp_fail "$1: mount point and device differ"; }
}
same verify --json --trace "$BP_TMPDIR/t"
same bench -m sata-ssd --trace "$BP_TMPDIR/t"
"$BOOTPACK" pack -B 0 --trace "$BP_TMPDIR/t" -o "$BP_TMPDIR/p1" "$dev"
"$BOOTPACK" pack -B 0 --trace "$BP_TMPDIR/t" -o "$BP_TMPDIR/p2" "$mnt"
[ "$("$BOOTPACK" dump --json "$BP_TMPDIR/p1" | grep -v '"created"\|/p1"')" = \
  "$("$BOOTPACK" dump --json "$BP_TMPDIR/p2" | grep -v '"created"\|/p2"')" ] ||
	bp_fail "pack: mount point and device give different packs"
same verify --json --pack "$BP_TMPDIR/p1"
bp_expect_exit 0 "$BOOTPACK" trace --merge -o "$BP_TMPDIR/m" --device "$mnt" "$BP_TMPDIR/t"

sum=$(sha256sum <"$dev")
bp_expect_exit 4 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t" "$mnt"
bp_grep "is mounted on $mnt" "$BP_TMPDIR/err"
[ "$(sha256sum <"$dev")" = "$sum" ] || bp_fail "relayout wrote to a mounted filesystem"

mkdir "$mnt/../notmounted"
bp_expect_exit 1 "$BOOTPACK" verify --trace "$BP_TMPDIR/t" "$mnt/../notmounted"
bp_grep "notmounted: a directory, not a mount point" "$BP_TMPDIR/err"
exit 0
