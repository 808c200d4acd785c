#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Extents are not trusted: a boot file whose extent points at block 0, into
# the inode table, over another file's blocks, past the end of the
# filesystem or across it is refused before anything is written (exit 4,
# naming 'e2fsck -f'), and the image stays byte-identical. The corruption is
# made with debugfs set_inode_field on a filesystem still marked clean.
# Before the fix relayout "moved" such extents and freed blocks it did not
# own (block 0, inode-table blocks, another file's blocks), exiting 0, or
# found the block past the end only while copying (exit 8).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
base=$(bp_fixture ext4)
rl_mktrace "$base" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
total=$(dumpe2fs -h "$base" 2>/dev/null | awk -F': *' '/^Block count/ {print $2}')
itable=$(dumpe2fs "$base" 2>/dev/null | sed -n 's/^ *Inode table at \([0-9]*\)-.*/\1/p' | head -1)
[ -n "$itable" ] || bp_fail "no inode table in dumpe2fs"

# first_block IMG PATH: first physical block of a depth-0 extent file.
first_block() {
	debugfs -R "stat \"$2\"" "$1" 2>/dev/null | awk '/^EXTENTS:/ {getline; split($1, a, ":");
		split(a[2], b, "-"); print b[1]; exit}'
}

check() {	# check PATH BLOCK WHAT REASON: move PATH's first extent to BLOCK
	local img=$BP_TMPDIR/bad.img s0 dry
	cp "$base" "$img"
	# i_block[3..5] hold the first extent of a depth-0 tree; [5] is ee_start_lo.
	debugfs -w -R "set_inode_field \"$1\" block[5] $2" "$img" >/dev/null 2>&1 ||
		bp_fail "debugfs set_inode_field $1"
	[ "$(first_block "$img" "$1")" = "$2" ] || bp_fail "$1: extent not moved to $2"
	s0=$(rl_sum "$img")
	for dry in -n ""; do
		bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$BP_TMPDIR/t" "$img"
		bp_grep "$img: is inconsistent: $4; please run 'e2fsck -f $img' first" "$BP_TMPDIR/err"
	done
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the image ($3)"
	bp_info "$3: refused"
}
other=$(first_block "$base" /boot/System.map-6.1.0-bootpack)
[ -n "$other" ] || bp_fail "no extent for System.map"

check /etc/fstab 0 "extent at block 0" \
	"inode [0-9]+ has an extent at block 0, which is never file data"
check /etc/fstab $((itable + 3)) "extent in the inode table" \
	"block $((itable + 3)) is claimed twice: an extent of inode [0-9]+ and filesystem metadata.*"
# /usr/bin/bash (300 blocks) over /boot/System.map (512 blocks, not traced).
check /usr/bin/bash "$other" "extent over another file" \
	"block [0-9]+ is claimed twice: an extent of inode [0-9]+ and inode [0-9]+"
check /etc/fstab $((total + 7)) "extent past the end" \
	"inode [0-9]+ has an extent at block $((total + 7))\+1, outside the filesystem .*"
check /usr/bin/bash $((total - 100)) "extent across the end" \
	"inode [0-9]+ has an extent at block $((total - 100))\+300, outside the filesystem .*"
exit 0
