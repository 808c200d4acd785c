#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# mktrace.sh --- write a bootpack trace (include/tracefile.h, version 1 or 2) for files of an image
#
# Usage: mktrace.sh IMAGE OUT.trace [-m OFF:LEN:NS | -d DIR:NS]... PATH[:OFF:LEN[:NS][,...]]...
#
# Without ranges a path is traced whole; LEN "all" means to the end of the
# file; without NS, ranges are first read 1 ms apart in command-line order,
# as a boot would read them. -m adds a metadata range (physical bytes); -d
# an O record of all of directory DIR's blocks (inode and generation from
# debugfs), which makes the trace version 2 (version 1 without -d).
# Inode, generation, size and mtime come from debugfs, the physical hint
# from debugfs bmap. As the format wants, a file with nothing to read gets
# no F line and a path's '%' and spaces are escaped (two names of one
# inode give two F lines, which the format refuses: pass one). Read-only:
# the image is never written. The one test trace writer: crash, pack, cli
# and relayout (rl_mktrace) cases use it, so test traces are made one way.
set -euo pipefail

die() { echo "mktrace: $*" >&2; exit 1; }
[ $# -ge 3 ] || { sed -n '6p' "$0" >&2; exit 2; }
img=$1 out=$2
shift 2

uuid=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
[ -n "$uuid" ] && [ -n "$bs" ] || die "$img: not an ext2/3/4 image"

body=$(mktemp)
olines=$(mktemp)
trap 'rm -f "$body" "$olines"' EXIT
records=0 auto_ns=0 version=1
while [ "${1:-}" = -m ] || [ "${1:-}" = -d ]; do
	if [ "$1" = -m ]; then
		IFS=: read -r off len ns <<<"$2"
		echo "M $off $len $ns" >>"$body"
	else
		IFS=: read -r path ns <<<"$2"
		stat=$(debugfs -R "stat \"$path\"" "$img" 2>/dev/null) ||
			die "$img: $path: debugfs stat failed"
		ino=$(sed -n 's/^Inode: \([0-9]*\) .*Type: directory.*/\1/p' <<<"$stat")
		[ -n "$ino" ] || die "$img: $path: not a directory"
		gen=$(sed -n 's/^Generation: \([0-9]*\) .*/\1/p' <<<"$stat")
		size=$(sed -n 's/.*Size: \([0-9]*\)$/\1/p' <<<"$stat" | head -n1)
		echo "O dir $ino $gen 0 $(((size + bs - 1) / bs)) $ns" >>"$olines"
		version=2
	fi
	records=$((records + 1))
	shift 2
done
for spec in "$@"; do
	path=${spec%%:*}
	stat=$(debugfs -R "stat \"$path\"" "$img" 2>/dev/null) || die "$img: $path: debugfs stat failed"
	ino=$(sed -n 's/^Inode: \([0-9]*\) .*Type: regular.*/\1/p' <<<"$stat")
	[ -n "$ino" ] || die "$img: $path: not a regular file"
	gen=$(sed -n 's/^Generation: \([0-9]*\) .*/\1/p' <<<"$stat")
	size=$(sed -n 's/.*Size: \([0-9]*\)$/\1/p' <<<"$stat" | head -n1)
	mtime=$(sed -n 's/^ *mtime: \(0x[0-9a-f]*\).*/\1/p' <<<"$stat")
	[ -n "$gen" ] && [ -n "$size" ] && [ -n "$mtime" ] || die "$img: $path: cannot parse debugfs stat"
	rlines=
	if [ "$spec" = "$path" ]; then ranges="0:$size"; else ranges=${spec#*:}; fi
	for r in ${ranges//,/ }; do
		IFS=: read -r off len ns <<<"$r"
		[ "$len" = all ] && len=$((size - off))
		[ "$len" -gt 0 ] || continue
		if [ -z "${ns:-}" ]; then ns=$auto_ns; auto_ns=$((auto_ns + 1000000)); fi
		pblk=$(debugfs -R "bmap \"$path\" $((off / bs))" "$img" 2>/dev/null | tail -n1)
		if [ -n "$pblk" ] && [ "$pblk" != 0 ]; then
			phys=$((pblk * bs + off % bs))
		else
			phys=-
		fi
		rlines+=$(printf 'R %u %u %u %s' "$off" "$len" "$ns" "$phys")$'\n'
	done
	[ -n "$rlines" ] || continue	# nothing to read: no F without an R line
	printf 'F %u %u %u %d %s\n' "$ino" "$gen" "$size" "$((mtime))" \
		"$(sed 's/%/%25/g; s/ /%20/g' <<<"$path")" >>"$body"
	printf '%s' "$rlines" >>"$body"
	records=$((records + 1 + $(grep -c '^R ' <<<"$rlines")))
done

{
	echo "bootpack-trace $version"
	echo "uuid $uuid"
	echo "block-size $bs"
	echo "device $(basename "$img")"
	echo "dev 0:0"
	echo "kernel test"
	echo "source import"
	echo "created 1700000000"
	echo "events $records $records 0"
	sort -k3,3n "$olines"	# O lines sorted by inode (one kind: dir)
	cat "$body"
	echo "end $records"
} >"$out"
