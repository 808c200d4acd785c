#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# owners.sh --- where a trace's owner-named metadata is on an image now, by debugfs
#
# Usage: owners.sh IMAGE TRACE
#
# For every block an O line of TRACE names (include/tracefile.h, version
# 2), print "M OFFSET LENGTH FIRST KIND" with the byte offset of that block
# on IMAGE as debugfs and dumpe2fs say it is now: a directory's logical
# block by `debugfs bmap`, a mapping block by its rank among the
# (ETBn)/(IND)/(DIND)/(TIND) blocks `debugfs stat` lists, inode tables,
# descriptors, bitmaps and superblocks from `dumpe2fs`. A block whose owner
# is gone (another generation, fewer blocks) prints nothing; the journal is
# never packed and prints nothing. The oracle of the owner-mapping tests:
# it shares no code with the engine (trace/owner.c). Read-only.
set -euo pipefail

die() { echo "owners.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || { sed -n '6p' "$0" >&2; exit 2; }
img=$1 trace=$2
bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
[ -n "$bs" ] || die "$img: not an ext2/3/4 image"
groups=$(mktemp)
trap 'rm -f "$groups"' EXIT
# group kind start end (blocks)
dumpe2fs "$img" 2>/dev/null | awk '
	/^Group [0-9]+:/ { g = $2; sub(":", "", g) }
	function span(kind, s,   a) { n = split(s, a, "-"); print g, kind, a[1], (n > 1 ? a[2] : a[1]) }
	/superblock at/ { s = $0; sub(/.*superblock at /, "", s); sub(/,.*/, "", s); span("super", s) }
	/Group descriptors at/ { s = $0; sub(/.*Group descriptors at /, "", s); sub(/ .*/, "", s); span("gdt", s) }
	/Reserved GDT blocks at/ { s = $0; sub(/.*Reserved GDT blocks at /, "", s); sub(/ .*/, "", s); span("rgdt", s) }
	/Block bitmap at/ { s = $0; sub(/.*Block bitmap at /, "", s); sub(/ .*/, "", s); span("bbitmap", s) }
	/Inode bitmap at/ { s = $0; sub(/.*Inode bitmap at /, "", s); sub(/ .*/, "", s); span("ibitmap", s) }
	/Inode table at/ { s = $0; sub(/.*Inode table at /, "", s); sub(/ .*/, "", s); span("itable", s) }
' >"$groups"

# the start of group G's KIND, and where its run ends (gdt: the reserved GDT blocks too)
grp() {
	awk -v g="$1" -v k="$2" '
		$1 == g && $2 == k { s = $3; e = $4 }
		$1 == g && $2 == "rgdt" { re = $4 }
		END { if (s == "") exit 1; if (k == "gdt" && re != "") e = re; print s, e }' "$groups"
}

grep '^O ' "$trace" | while read -r _ kind id gen index count first; do
	case $kind in
	journal) continue ;;
	dir)
		stat=$(debugfs -R "stat <$id>" "$img" 2>/dev/null) || continue
		g=$(sed -n 's/^Generation: \([0-9]*\) .*/\1/p' <<<"$stat")
		[ "$g" = "$gen" ] || continue
		for ((i = index; i < index + count; i++)); do
			b=$(debugfs -R "bmap <$id> $i" "$img" 2>/dev/null | tail -n1)
			[ -n "$b" ] && [ "$b" != 0 ] || continue
			echo "M $((b * bs)) $bs $first dir"
		done ;;
	tree)
		stat=$(debugfs -R "stat <$id>" "$img" 2>/dev/null) || continue
		g=$(sed -n 's/^Generation: \([0-9]*\) .*/\1/p' <<<"$stat")
		[ "$g" = "$gen" ] || continue
		mapfile -t tb < <(grep -oE '\((ETB[0-9]+|IND|DIND|TIND)\):[0-9]+' <<<"$stat" |
			sed 's/.*://')
		for ((i = index; i < index + count && i < ${#tb[@]}; i++)); do
			echo "M $((tb[i] * bs)) $bs $first tree"
		done ;;
	super|gdt|bbitmap|ibitmap|itable)
		se=$(grp "$id" "$kind") || continue
		read -r s e <<<"$se"
		for ((i = index; i < index + count; i++)); do
			[ $((s + i)) -le "$e" ] || continue
			echo "M $(((s + i) * bs)) $bs $first $kind"
		done ;;
	*) die "$trace: unknown owner kind $kind" ;;
	esac
done
