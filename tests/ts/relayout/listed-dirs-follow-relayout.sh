#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Directories a boot reads that lie on no packed file's path (issue 35): a
# unit directory systemd lists (several blocks), its parent, a directory a
# negative lookup searched (/etc/modules-load.d/missing.conf), a mount
# point (/proc) and one block of a larger directory (/lost+found, as an
# htree lookup reads it). The boot's trace is imported from the kernel's
# trace_event= text (bdev page-cache events at the directories' blocks) and
# names them by owner; relayout moves them into its region; every block
# each of them has *after* the relayout (debugfs, the oracle) is in the
# pack relayout rewrites, in a pack `bootpack pack` writes afterwards, and
# after a second relayout of the trace merged with the next boot's; and
# `bootpack verify --pack --trace` accounts for every block the trace read.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"
bp_require_cmd debugfs dumpe2fs jq

img=$(bp_fixture --aged ext4)
wants=/etc/systemd/system/multi-user.target.wants
{
	echo "mkdir $wants"
	for i in $(seq 1 250); do
		echo "symlink $wants/bootpack-unit-$i.service /usr/lib/systemd/system/bootpack-unit-$i.service"
	done
	echo "mkdir /etc/modules-load.d"
	echo "mkdir /proc"
} >"$BP_TMPDIR/mkdirs"
debugfs -w -f "$BP_TMPDIR/mkdirs" "$img" >/dev/null 2>&1 || bp_fail "debugfs: cannot make the directories"
bp_fsck_clean "$img"
bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
DIRS=("$wants" /etc/systemd/system /etc/modules-load.d /proc /lost+found)
[ "$(debugfs -R "blocks $wants" "$img" 2>/dev/null | wc -w)" -ge 3 ] ||
	bp_fail "$wants: fewer than 3 blocks"

# dirblocks IMG DIR: DIR's blocks, in logical order (debugfs)
dirblocks() { debugfs -R "blocks $2" "$1" 2>/dev/null | tr ' ' '\n' | grep .; }

# boot_text IMG OUT: the trace_event= text of a boot reading a few files
# and the directories' blocks through the block device (8:1: the bdev
# inode 0x800001), /lost+found's first block only.
boot_text() {
	local img=$1 out=$2 d b n t=100000
	{
		echo "# tracer: nop"
		for d in "${DIRS[@]}"; do
			n=0
			for b in $(dirblocks "$img" "$d"); do
				[ "$d" != /lost+found ] || [ "$n" = 0 ] || break
				printf '         systemd-1     [000] ....     2.%06d: mm_filemap_add_to_page_cache: dev 0:5 ino 800001 page=00000000c0ffee01 pfn=4661 ofs=%d\n' \
					"$t" "$((b * bs))"
				t=$((t + 1)) n=$((n + 1))
			done
		done
		for p in /usr/lib/systemd/systemd /etc/passwd /usr/bin/bash /etc/fstab; do
			printf '         systemd-1     [000] ....     2.%06d: mm_filemap_add_to_page_cache: dev 8:1 ino @INO:%s@ page=00000000c0ffee02 pfn=4662 ofs=0\n' \
				"$t" "$p"
			t=$((t + 1))
		done
	} >"$out.in"
	tr_render "$out.in" "$img" "$out"
}

# packed PACK: the pack's metadata blocks, one a line (bootpack dump --json)
packed() {
	"$BOOTPACK" dump --json "$1" | jq -r --argjson bs "$bs" \
		'.meta[] | range(.offset / $bs | floor; (.offset + .length + $bs - 1) / $bs | floor)' |
		sort -n
}

# check PACK WHAT: every block of every directory, as debugfs finds it now, is in PACK
check() {
	local d b n=0 miss=0
	packed "$1" >"$BP_TMPDIR/packed"
	for d in "${DIRS[@]}"; do
		for b in $(dirblocks "$img" "$d"); do
			n=$((n + 1))
			grep -qx "$b" "$BP_TMPDIR/packed" || { miss=$((miss + 1)); echo "$2: $d: block $b not in the pack"; }
		done
	done
	bp_info "$2: $((n - miss)) of $n directory blocks in the pack"
	[ "$miss" = 0 ] || { echo "FAIL: $2: $miss directory blocks missing from the pack"; fails=$((fails + 1)); }
}
fails=0

# 1. the traced boot, imported: the directories named by owner
boot_text "$img" "$BP_TMPDIR/boot1.txt"
"$BOOTPACK" trace --import "$BP_TMPDIR/boot1.txt" -o "$BP_TMPDIR/t1" --device "$img" 2>/dev/null
bp_grep '^bootpack-trace 2$' "$BP_TMPDIR/t1"
for d in "${DIRS[@]}"; do
	tr_owned "$BP_TMPDIR/t1" dir "$(tr_ino "$img" "$d")" 0 || bp_fail "$d: not named by owner in the trace"
done
grep -q '^M ' "$BP_TMPDIR/t1" && bp_fail "directory blocks kept as raw offsets"
for d in "${DIRS[@]}"; do dirblocks "$img" "$d"; done >"$BP_TMPDIR/before"

# The same boot as a version 1 trace (the directories as M byte ranges),
# for section 4.
cp --sparse=always "$img" "$BP_TMPDIR/v1.img"
{
	sed -n '1p' "$BP_TMPDIR/t1" | sed 's/ 2$/ 1/'
	grep -vE '^(bootpack-trace|O|M|F|R|end) ' "$BP_TMPDIR/t1"
	grep -o 'dev 0:5 ino 800001 .* ofs=[0-9]*' "$BP_TMPDIR/boot1.txt" | sed 's/.*ofs=//' |
		sort -n | awk -v bs="$bs" '{ print "M", $1, bs, NR }'
	grep -E '^[FR] ' "$BP_TMPDIR/t1"
} >"$BP_TMPDIR/v1.body"
n=$(grep -cE '^[MFR] ' "$BP_TMPDIR/v1.body")
{ cat "$BP_TMPDIR/v1.body"; echo "end $n"; } >"$BP_TMPDIR/v1"

# 2. relayout (and its pack), then a pack written afterwards
bp_expect_exit 0 "$BOOTPACK" relayout --json --no-undo --pack "$BP_TMPDIR/pack1" \
	--trace "$BP_TMPDIR/t1" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/plan.json"
bp_fsck_clean "$img"
for d in "${DIRS[@]}"; do dirblocks "$img" "$d"; done >"$BP_TMPDIR/after"
moved=$(diff "$BP_TMPDIR/before" "$BP_TMPDIR/after" | grep -c '^>' || true)
[ "$moved" -gt 0 ] || bp_fail "relayout moved none of the directories: nothing to check"
bp_info "relayout moved $moved of $(wc -l <"$BP_TMPDIR/after") directory blocks"
reg_start=$(jq '.relayout.plan.region_start' "$BP_TMPDIR/plan.json")
rn=$(jq '.relayout.plan.region_blocks' "$BP_TMPDIR/plan.json")
while read -r b; do
	[ "$b" -ge "$reg_start" ] && [ "$b" -lt $((reg_start + rn)) ] ||
		{ echo "FAIL: directory block $b outside the region $reg_start+$rn"; fails=$((fails + 1)); }
done <"$BP_TMPDIR/after"
check "$BP_TMPDIR/pack1" "relayout's pack"
"$BOOTPACK" pack --trace "$BP_TMPDIR/t1" -o "$BP_TMPDIR/pack2" "$img" >/dev/null
check "$BP_TMPDIR/pack2" "pack after relayout"
verify_ok() {
	"$BOOTPACK" verify --pack "$1" --trace "$2" "$img" >"$BP_TMPDIR/verify" 2>&1 ||
		{ cat "$BP_TMPDIR/verify"; echo "FAIL: verify $1 $2"; fails=$((fails + 1)); }
}
verify_ok "$BP_TMPDIR/pack2" "$BP_TMPDIR/t1"

# 3. the next boot, traced on the new layout, merged; a second relayout
boot_text "$img" "$BP_TMPDIR/boot2.txt"
"$BOOTPACK" trace --import "$BP_TMPDIR/boot2.txt" -o "$BP_TMPDIR/t2" --device "$img" 2>/dev/null
"$BOOTPACK" trace --merge "$BP_TMPDIR/t1" "$BP_TMPDIR/t2" -o "$BP_TMPDIR/tm"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/pack3" \
	--trace "$BP_TMPDIR/tm" "$img"
bp_fsck_clean "$img"
check "$BP_TMPDIR/pack3" "second relayout's pack"
"$BOOTPACK" pack --trace "$BP_TMPDIR/tm" -o "$BP_TMPDIR/pack4" "$img" >/dev/null
check "$BP_TMPDIR/pack4" "pack after the second relayout"
verify_ok "$BP_TMPDIR/pack4" "$BP_TMPDIR/tm"

# 4. A version 1 trace (doc/formats.md): right until a relayout (its M
# blocks are named by what owns them on the device now), so relayout finds
# the directories and its own pack moves them along; a pack written from it
# *after* the relayout cannot find them, and pack says so: take a new trace.
img=$BP_TMPDIR/v1.img
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/pack5" \
	--trace "$BP_TMPDIR/v1" "$img"
! grep -q 'a version 1 trace' "$BP_TMPDIR/err" || bp_fail "relayout warned on a fresh version 1 trace"
check "$BP_TMPDIR/pack5" "version 1 trace, relayout's pack"
bp_expect_exit 0 "$BOOTPACK" pack --trace "$BP_TMPDIR/v1" -o "$BP_TMPDIR/pack6" "$img"
bp_grep 'a version 1 trace, and [0-9]+ of the metadata blocks it read are free .* take a new trace' \
	"$BP_TMPDIR/err"
packed "$BP_TMPDIR/pack6" >"$BP_TMPDIR/packed"
n=0 found=0
for d in "${DIRS[@]}"; do
	for b in $(dirblocks "$img" "$d"); do
		n=$((n + 1))
		! grep -qx "$b" "$BP_TMPDIR/packed" || found=$((found + 1))
	done
done
bp_info "version 1 trace, pack after relayout: $found of $n directory blocks in the pack"
[ "$found" -lt "$n" ] || bp_fail "a version 1 trace found the moved directories: the case proves nothing"
[ "$fails" = 0 ] || bp_fail "$fails checks failed"
exit 0
