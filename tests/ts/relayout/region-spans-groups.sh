#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without flex_bg every block group starts with fixed metadata, so a boot
# set larger than one group's free space needs a region that spans groups,
# stepping over that metadata (bootpack-relayout(8), doc/relayout-safety.md
# §4.2). On an ext3, an ext4 made with -O ^flex_bg and an ext3 with 1 KiB
# blocks (8 MiB groups each), a 24 MiB boot set is laid out: e2fsck clean,
# every file unchanged, the boot set in first-access order with nothing but
# fixed metadata between its blocks (debugfs and dumpe2fs, not bootpack),
# every discontiguity left one over fixed metadata, a second run moves
# nothing, e2undo restores the image byte for byte. Then the same with the
# free space cut into small holes: the window cleared for it spans groups.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs e2fsck e2undo mke2fs

# Deterministic contents, every 4 KiB block different.
mkdata() {
	awk -v w="$1" -v n="$2" 'BEGIN { for (i = 0; i * 64 < n; i++) printf "%-63s\n", w " " i }' |
		head -c "$2" >"$3"
}
mkdata big1 10485760 "$BP_TMPDIR/big1"
mkdata big2 10485760 "$BP_TMPDIR/big2"
mkdata big3 10485760 "$BP_TMPDIR/big3"
mkdata small 102400 "$BP_TMPDIR/small"
mkdata junk 1048576 "$BP_TMPDIR/junk"
# shellcheck disable=SC2054  # PATH@OFF+LEN/T entries: the commas are the format's
SPECS=(/boot/big3@0+10485760/1000000 /usr/small@0+102400/2000000
	/boot/big1@0+4194304/3000000,4194304+6291456/5000000 /usr/lib/big2@0+10485760/4000000)

# mkimg IMG SIZE MKE2FS-ARGS...: the boot files written between junk files
# (one then removed), so that they lie out of first-access order.
mkimg() {
	local img=$1 size=$2
	shift 2
	rm -f "$img"
	truncate -s "$size" "$img"
	mke2fs -q -F -E root_owner=0:0 "$@" "$img" || bp_fail "mke2fs $*"
	{
		echo "mkdir /boot"; echo "mkdir /usr"; echo "mkdir /usr/lib"; echo "mkdir /junk"
		echo "write $BP_TMPDIR/junk /junk/0"
		echo "write $BP_TMPDIR/big1 /boot/big1"
		echo "write $BP_TMPDIR/junk /junk/1"
		echo "write $BP_TMPDIR/small /usr/small"
		echo "write $BP_TMPDIR/big2 /usr/lib/big2"
		echo "write $BP_TMPDIR/junk /junk/2"
		echo "write $BP_TMPDIR/big3 /boot/big3"
		echo "rm /junk/1"
	} | debugfs -w -f - "$img" >/dev/null 2>&1 || bp_fail "debugfs fill"
	bp_fsck_clean "$img"
}

# check IMG LABEL: relayout, then the oracles.
check() {
	local img=$1 what=$2 t="$BP_TMPDIR/t" u="$BP_TMPDIR/u" s0 before after fixed
	rl_mktrace "$img" "$t" "${SPECS[@]}"
	bp_hash_files "$img" >"$BP_TMPDIR/h0"
	s0=$(rl_sum "$img")
	before=$(rl_verify_json "$img" "$t" discontiguities)
	! bp_layout_check --holes "$img" "${SPECS[@]}" >/dev/null ||
		bp_fail "$what: the layout oracle finds the boot set laid out already"

	bp_expect_exit 0 "$BOOTPACK" relayout -z "$u" --trace "$t" "$img"
	bp_grep "discontiguities:  $before -> [1-9][0-9]* \([1-9][0-9]* over fixed metadata, unavoidable; 0 avoidable\)" \
		"$BP_TMPDIR/out"
	bp_fsck_clean "$img"
	bp_hash_files "$img" >"$BP_TMPDIR/h1"
	diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "$what: file contents changed"
	after=$(rl_verify_json "$img" "$t" discontiguities)
	fixed=$(rl_verify_json "$img" "$t" discontiguities_fixed_metadata)
	[ "$after" -gt 0 ] && [ "$after" = "$fixed" ] ||
		bp_fail "$what: $after discontiguities after relayout, $fixed of them over fixed metadata"
	bp_layout_check --holes "$img" "${SPECS[@]}" >"$BP_TMPDIR/layout" ||
		{ cat "$BP_TMPDIR/layout"; bp_fail "$what: the boot set is not laid out (debugfs)"; }
	cat "$BP_TMPDIR/layout"
	# A region of one group would have no hole: it spans groups.
	bp_grep "over [1-9][0-9]* holes of fixed metadata in first-access order" "$BP_TMPDIR/layout"
	bp_info "$what: discontiguities $before -> $after, all over fixed metadata"

	cp "$img" "$BP_TMPDIR/relaid.img"
	bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --trace "$t" "$img"
	bp_grep "nothing to do" "$BP_TMPDIR/out"
	cmp -s "$img" "$BP_TMPDIR/relaid.img" || bp_fail "$what: second run changed the image"

	e2undo "$u" "$img" >/dev/null || bp_fail "$what: e2undo failed"
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "$what: e2undo did not restore the image"
	rm -f "$u" "$BP_TMPDIR/relaid.img"
}

img=$BP_TMPDIR/fs.img
for kind in "ext3 -t ext3 -b 4096 -g 2048" "ext4-no-flex_bg -t ext4 -O ^flex_bg -b 4096 -g 2048" \
	"ext3-1k -t ext3 -b 1024"; do
	# shellcheck disable=SC2086  # the kind's fields, split on purpose
	set -- $kind
	what=$1
	shift
	mkimg "$img" 96M "$@"
	check "$img" "$what"

	# No free run, even stepping over metadata: free space in 32-block holes.
	mkimg "$img" 192M "$@"
	rl_fill_holes "$img" || bp_fail "debugfs fill"
	check "$img" "$what, evicting"
	rm -f "$img"
done
exit 0
