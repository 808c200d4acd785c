# SPDX-License-Identifier: GPL-2.0-or-later
# pack-lib.sh --- helpers shared by the tests/ts/pack cases (sourced, not a test)

# pk_mktrace IMG OUT [-m OFF:LEN:NS]... SPEC...: write a trace (tracefile.h
# v1) of files of IMG, read-only. SPEC is PATH:OFF:LEN:NS[,OFF:LEN:NS...]
# (ranges of one file sorted by offset); LEN "all" means to the end of the
# file. -m adds a metadata range. Inode, generation, size and mtime come
# from debugfs, the physical hint from debugfs bmap.
pk_mktrace() {
	local img=$1 out=$2 uuid bs body records=0 spec path st ino gen size mtime r off len ns pblk phys
	shift 2
	uuid=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
	bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	[ -n "$uuid" ] && [ -n "$bs" ] || bp_fail "$img: not an ext2/3/4 image"
	body=$(mktemp "$BP_TMPDIR/trace-body.XXXXXX")
	while [ "${1:-}" = -m ]; do
		IFS=: read -r off len ns <<<"$2"
		echo "M $off $len $ns" >>"$body"
		records=$((records + 1))
		shift 2
	done
	for spec in "$@"; do
		path=${spec%%:*}
		st=$(debugfs -R "stat \"$path\"" "$img" 2>/dev/null) || bp_fail "$img: $path: debugfs stat"
		ino=$(sed -n 's/^Inode: \([0-9]*\) .*Type: regular.*/\1/p' <<<"$st")
		[ -n "$ino" ] || bp_fail "$img: $path: not a regular file"
		gen=$(sed -n 's/^Generation: \([0-9]*\) .*/\1/p' <<<"$st")
		size=$(sed -n 's/.*Size: \([0-9]*\)$/\1/p' <<<"$st" | head -n1)
		mtime=$(sed -n 's/^ *mtime: \(0x[0-9a-f]*\).*/\1/p' <<<"$st")
		printf 'F %u %u %u %d %s\n' "$ino" "$gen" "$size" "$((mtime))" "$path" >>"$body"
		records=$((records + 1))
		IFS=, read -ra rs <<<"${spec#*:}"
		for r in "${rs[@]}"; do
			IFS=: read -r off len ns <<<"$r"
			[ "$len" = all ] && len=$((size - off))
			pblk=$(debugfs -R "bmap \"$path\" $((off / bs))" "$img" 2>/dev/null | tail -n1)
			if [ -n "$pblk" ] && [ "$pblk" != 0 ]; then phys=$((pblk * bs + off % bs)); else phys=-; fi
			echo "R $off $len $ns $phys" >>"$body"
			records=$((records + 1))
		done
	done
	{
		echo "bootpack-trace 1"
		echo "uuid $uuid"
		echo "block-size $bs"
		echo "device $(basename "$img")"
		echo "dev 0:0"
		echo "kernel pack-test"
		echo "source import"
		echo "created 1700000000"
		echo "events $records $records 0"
		cat "$body"
		echo "end $records"
	} >"$out"
	rm -f "$body"
}

# pk_merge: "KIND PATH START END" lines on stdin, merged per (KIND, PATH).
pk_merge() {
	sort -k1,1 -k2,2 -k3,3n | awk '
		function flush() { if (have) print k, p, s, e }
		{ if (have && $1 == k && $2 == p && $3 <= e) { if ($4 > e) e = $4; next }
		  flush(); k = $1; p = $2; s = $3; e = $4; have = 1 }
		END { flush() }'
}

# pk_expect TRACE BUDGET: what a pack of TRACE under BUDGET (bytes, 0: none)
# must hold, as merged "KIND PATH START END" lines: ranges in first-access
# order (metadata first at equal times), clamped to the file size, until the
# next one would exceed the budget.
pk_expect() {
	awk '/^F /{ p = $6; sz = $4 }
	     /^R /{ o = $2; l = $3; if (o >= sz) next; if (o + l > sz) l = sz - o
		    printf "%020d R %s %d %d\n", $4, p, o, l }
	     /^M /{ printf "%020d M - %d %d\n", $4, $2, $3 }' "$1" |
	sort -s -k1,1 -k2,2 |
	awk -v B="$2" '{ if (full) next; if (B > 0 && used + $5 > B) { full = 1; next }
			 used += $5; print $2, $3, $4, $4 + $5 }' | pk_merge
}

# pk_pack_ranges JSON: the same lines from `bootpack dump --json`.
pk_pack_ranges() {
	jq -r '(.meta[] | "M - \(.offset) \(.offset + .length)"),
	       (.entries[] | "R \(.path) \(.offset) \(.offset + .length)")' "$1" | pk_merge
}

# pk_check_phys IMG JSON: the bytes at each entry's phys on IMG are the
# file's bytes at its offset (files read with debugfs, so no mount).
pk_check_phys() {
	local img=$1 json=$2 d path off len phys f
	d=$(mktemp -d "$BP_TMPDIR/files.XXXXXX")
	jq -r '.entries[] | "\(.path) \(.offset) \(.length) \(.phys)"' "$json" |
	while read -r path off len phys; do
		f=$d/$(printf '%s' "$path" | tr / _)
		[ -f "$f" ] || debugfs -R "dump \"$path\" $f" "$img" >/dev/null 2>&1 ||
			bp_fail "debugfs dump $path"
		cmp <(tail -c +$((phys + 1)) "$img" | head -c "$len") \
		    <(tail -c +$((off + 1)) "$f" | head -c "$len") >/dev/null ||
			bp_fail "$path $off+$len: not at physical byte $phys"
	done
	rm -rf "$d"
}
