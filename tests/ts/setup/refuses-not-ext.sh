#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A root that is not ext2/3/4 is refused with that reason, exit 4, nothing
# written: XFS (a block device blkid names xfs) and btrfs (no block device of
# its own: st_dev is an anonymous 0:N, statfs names it), each a tree of its
# own with bootpack installed; and --device naming the btrfs device. The
# relayout, the pack and the reader address blocks through libext2fs, so
# there is no file-by-file mode to fall back to. The oracle: the tree's
# listing (paths and SHA-256) before and after.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"
have_xfs=0 have_btrfs=0
command -v mkfs.xfs >/dev/null && have_xfs=1
command -v mkfs.btrfs >/dev/null && have_btrfs=1
[ $have_xfs = 1 ] || [ $have_btrfs = 1 ] ||
	bp_skip "neither mkfs.xfs (xfsprogs) nor mkfs.btrfs (btrfs-progs): ./setup.sh installs them"
ROOT=$BP_TMPDIR/root

# refused FS MKFS...: a tree on an image made by MKFS, refused by setup
refused() {
	local fs=$1 img=$BP_TMPDIR/$1.img dev
	shift
	truncate -s 400M "$img"
	"$@" "$img" >"$BP_TMPDIR/mkfs.log" 2>&1 || { cat "$BP_TMPDIR/mkfs.log"; bp_fail "$*"; }
	bp_loop_attach "$img" dev
	bp_mount "$dev" "$ROOT"
	tree_install
	mkdir -p "$ROOT/var/lib"
	listing "$ROOT" "$BP_TMPDIR/before"
	bp_expect_exit 4 "$BOOTPACK" setup --root "$ROOT"
	sed 's/^/# /' "$BP_TMPDIR/err"
	bp_grep "not ext2/3/4: bootpack's boot loop \(relayout, pack and reader\) works on ext2/3/4 roots only" \
		"$BP_TMPDIR/err"
	case $fs in
	xfs) bp_grep "^bootpack setup: $dev \(holding $ROOT\) is xfs, not ext2/3/4" "$BP_TMPDIR/err" ;;
	btrfs) bp_grep "^bootpack setup: $ROOT is on btrfs \(device 0:[0-9]+, no block device of its own\)" \
		"$BP_TMPDIR/err"
	       bp_expect_exit 4 "$BOOTPACK" setup --root "$ROOT" --device "$dev"
	       bp_grep "$dev \(holding $ROOT\) is btrfs, not ext2/3/4" "$BP_TMPDIR/err" ;;
	esac
	bp_expect_exit 4 "$BOOTPACK" setup --dry-run --root "$ROOT"
	listing "$ROOT" "$BP_TMPDIR/now"
	diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "the $fs refusal wrote to the tree"
	umount "$ROOT"
}

if [ $have_xfs = 1 ]; then refused xfs mkfs.xfs -q -f; else bp_info "no mkfs.xfs: XFS not tried"; fi
if [ $have_btrfs = 1 ]; then refused btrfs mkfs.btrfs -q -f; else bp_info "no mkfs.btrfs: btrfs not tried"; fi
exit 0
