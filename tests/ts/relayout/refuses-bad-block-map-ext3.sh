#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Block maps are not trusted (ext3, indirect-mapped files): an indirect
# block shared by two files, or a data block past the end of the filesystem,
# is refused before anything is written (exit 4, naming 'e2fsck -f'), and
# the image stays byte-identical. Before the fix relayout moved the shared
# indirect block and freed the other file's blocks (exit 0), or found the
# block past the end only while copying (exit 8 after writes).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
base=$(bp_fixture ext3)
rl_mktrace "$base" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
total=$(dumpe2fs -h "$base" 2>/dev/null | awk -F': *' '/^Block count/ {print $2}')

ind_of() {	# ind_of PATH: its single indirect block
	debugfs -R "stat \"$1\"" "$base" 2>/dev/null | sed -n 's/.*(IND):\([0-9]*\).*/\1/p' | head -1
}

check() {	# check PATH FIELD VALUE WHAT REASON
	local img=$BP_TMPDIR/bad.img s0 dry
	cp "$base" "$img"
	debugfs -w -R "set_inode_field \"$1\" $2 $3" "$img" >/dev/null 2>&1 ||
		bp_fail "debugfs set_inode_field $1 $2 $3"
	s0=$(rl_sum "$img")
	for dry in -n ""; do
		bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$BP_TMPDIR/t" "$img"
		bp_grep "$img: is inconsistent: $5; please run 'e2fsck -f $img' first" "$BP_TMPDIR/err"
	done
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the image ($4)"
	bp_info "$4: refused"
}
other=$(ind_of /boot/System.map-6.1.0-bootpack)
mine=$(ind_of /usr/bin/bash)
[ -n "$other" ] && [ -n "$mine" ] || bp_fail "no indirect blocks found"
# bash's IND now is System.map's too (i_block[12] is the IND pointer).
check /usr/bin/bash "block[IND]" "$other" "indirect block shared by two files" \
	"block [0-9]+ is claimed twice: an? (indirect|data) block of inode [0-9]+ and inode [0-9]+"
check /etc/fstab "block[0]" $((total + 7)) "data block past the end" \
	"inode [0-9]+ has a data block at block $((total + 7))\+1, outside the filesystem .*"
exit 0
