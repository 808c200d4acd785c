#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# First-access order, piece by piece, checked with debugfs (not bootpack):
# a trace reads file A's head, file B, C, A's middle, a tiny range of A, A's
# tail, then B again. After relayout on aged ext4, ext4-1k and ext3:
#  - the traced ranges of at least the minimum piece size (64 KiB) lie in
#    the region in first-access order, each physically contiguous;
#  - the tiny range was not placed on its own: it sits next to a logically
#    adjacent traced block of A; no file is split into a piece < 64 KiB;
#  - every directory on a traced path sits in the head of the region
#    (within 64 blocks before the first file data), in first-access order
#    (so with directories left out of the stream this case fails);
#  - every block from the first directory block to the last traced block
#    belongs (debugfs icheck) to a traced file or one of those directories;
#  - untraced blocks of A stay where they were;
#  - e2fsck -fn is clean and every file's SHA-256 is unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs e2fsck dumpe2fs blkid

A=/usr/lib/systemd/libsystemd-shared-252.so
B=/usr/lib/systemd/systemd
C=/usr/bin/bash
MIN=65536

# size IMG PATH
fsize() { debugfs -R "stat \"$2\"" "$1" 2>/dev/null | sed -n 's/.*Size: \([0-9]*\)$/\1/p' | head -n1; }

# bmap_ranges IMG BS "PATH OFF LEN"...: "PATH LBLK PBLK" per block of each range, in the order given.
bmap_ranges() {
	local img=$1 bs=$2 spec path off len l
	shift 2
	for spec in "$@"; do
		read -r path off len _ <<<"$spec"
		for ((l = off / bs; l < (off + len + bs - 1) / bs; l++)); do
			echo "bmap \"$path\" $l"
		done
	done >"$BP_TMPDIR/bmap.cmd"
	debugfs -f "$BP_TMPDIR/bmap.cmd" "$img" 2>/dev/null | awk '
		/^debugfs: bmap / { p = $3; gsub(/"/, "", p); l = $4; next }
		p != "" && $1 ~ /^[0-9]+$/ && $1 > 0 { print p, l, $1; p = "" }' >"$BP_TMPDIR/bmap.out"
	[ "$(wc -l <"$BP_TMPDIR/bmap.out")" = "$(wc -l <"$BP_TMPDIR/bmap.cmd")" ] ||
		bp_fail "debugfs bmap: $(wc -l <"$BP_TMPDIR/bmap.out") of $(wc -l <"$BP_TMPDIR/bmap.cmd") blocks mapped"
	cat "$BP_TMPDIR/bmap.out"
}

# dir_blocks IMG PATH: the data blocks of a directory.
dir_blocks() { debugfs -R "blocks \"$2\"" "$1" 2>/dev/null | tr ' ' '\n' | grep -v '^$'; }

check_kind() {
	local kind=$1 img t bs a c ranges=() big=() small r i prev last first_all
	img=$(bp_fixture --aged "$kind")
	t=$BP_TMPDIR/$kind.trace
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block size/ {print $2}')
	a=$(fsize "$img" "$A") c=$(fsize "$img" "$C")
	# time order: A head, B head, C, A middle, A tiny, A tail, B later
	ranges=(
		"$A 0 131072 1000"
		"$B 0 262144 2000"
		"$C 0 $c 3000"
		"$A 1048576 262144 4000"
		"$A 139264 8192 5000"
		"$A 2097152 $((a - 2097152)) 6000"
		"$B 1048576 131072 7000"
	)
	rl_mktrace "$img" "$t" \
		"$A@0+131072/1000,139264+8192/5000,1048576+262144/4000,2097152+$((a - 2097152))/6000" \
		"$B@0+262144/2000,1048576+131072/7000" \
		"$C@0+$c/3000"
	bp_hash_files "$img" >"$BP_TMPDIR/h0"
	bmap_ranges "$img" "$bs" "$A 0 $a" >"$BP_TMPDIR/a0.map"

	bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/$kind.pack" --trace "$t" "$img"
	if grep -q "too-fragmented" "$BP_TMPDIR/out"; then
		grep "too-fragmented" "$BP_TMPDIR/out"
		grep -q "too-fragmented *0" "$BP_TMPDIR/out" || bp_fail "$kind: a file was skipped as too fragmented"
	fi
	bp_fsck_clean "$img"
	bp_hash_files "$img" >"$BP_TMPDIR/h1"
	diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "$kind: file contents changed"

	# 1. Big ranges: contiguous each, in first-access order.
	prev=0 i=0
	for r in "${ranges[@]}"; do
		read -r _ _ len _ <<<"$r"
		i=$((i + 1))
		[ "$len" -ge $MIN ] || continue
		bmap_ranges "$img" "$bs" "$r" >"$BP_TMPDIR/r$i.map"
		awk -v k="$kind" -v r="$r" -v prev="$prev" '
			NR == 1 && $3 <= prev { print k ": range " r " starts at " $3 ", not after " prev; bad = 1 }
			NR > 1 && $3 != last + 1 { print k ": range " r " not contiguous at lblk " $2; bad = 1 }
			{ last = $3 }
			END { exit bad }' "$BP_TMPDIR/r$i.map" || bp_fail "$kind: not in first-access order"
		prev=$(tail -n1 "$BP_TMPDIR/r$i.map" | cut -d' ' -f3)
		big+=("$BP_TMPDIR/r$i.map")
	done
	last=$prev

	# 2. Pieces: traced blocks of each file, in logical order, split only into
	# physically contiguous pieces of >= 64 KiB (the tiny range joined one).
	for f in "$A 0:131072 139264:8192 1048576:262144 2097152:$((a - 2097152))" \
		 "$B 0:262144 1048576:131072"; do
		# shellcheck disable=SC2086  # a range's fields, split on purpose
		set -- $f
		path=$1
		shift
		for r in "$@"; do echo "$path ${r%:*} ${r#*:}"; done >"$BP_TMPDIR/specs"
		mapfile -t sp <"$BP_TMPDIR/specs"
		bmap_ranges "$img" "$bs" "${sp[@]}" | sort -k2,2n >"$BP_TMPDIR/f.map"
		awk -v k="$kind" -v p="$path" -v min=$((MIN / bs)) '
			NR > 1 && $3 == last + 1 { n++; last = $3; next }
			NR > 1 { sizes = sizes " " n; pieces++; if (n < min) small = 1 }
			{ n = 1; last = $3 }
			END { sizes = sizes " " n; pieces++; if (n < min) small = 1
			      print "# " k ": " p ": " pieces " pieces of" sizes " blocks"
			      if (pieces > 1 && small) { print k ": " p " split below the minimum piece"; exit 1 } }' \
			"$BP_TMPDIR/f.map" || bp_fail "$kind: a file was split into a piece < 64 KiB"
	done
	# the tiny range sits next to a logically adjacent traced block of A
	small=$(bmap_ranges "$img" "$bs" "$A 139264 8192")
	r=$(bmap_ranges "$img" "$bs" "$A $((131072 - bs)) $bs" "$A 1048576 $bs" |
		awk '{print $3}' | tr '\n' ' ')
	read -r before after <<<"$r"
	s1=$(head -n1 <<<"$small" | cut -d' ' -f3)
	s2=$(tail -n1 <<<"$small" | cut -d' ' -f3)
	[ "$s1" = $((before + 1)) ] || [ "$s2" = $((after - 1)) ] ||
		bp_fail "$kind: the tiny range of A ($s1..$s2) is a piece of its own (neighbours $before, $after)"

	# 3. Directories at the head of the region, before all file data, in
	# the order the boot first meets them (metadata first: the reader reads
	# it in one request through the block device, then the data in one run).
	first_all=$(head -n1 "${big[0]}" | cut -d' ' -f3)
	fd=$first_all
	for f in $A $B $C; do
		b0=$(bmap_ranges "$img" "$bs" "$f 0 1" | cut -d' ' -f3)
		[ "$b0" -lt "$fd" ] && fd=$b0
	done
	prev=0
	for dir in / /usr /usr/lib /usr/lib/systemd /usr/bin; do
		for blk in $(dir_blocks "$img" "$dir"); do
			[ "$blk" -lt "$fd" ] && [ "$blk" -ge $((fd - 64)) ] ||
				bp_fail "$kind: directory $dir block $blk is not in the head before the data ($fd)"
			[ "$blk" -gt "$prev" ] ||
				bp_fail "$kind: directory $dir block $blk is not after the one met before it ($prev)"
			prev=$blk
			[ "$blk" -lt "$first_all" ] && first_all=$blk
		done
	done

	# 4. The region holds only blocks of traced files and their directories.
	local owners
	owners=$(for p in / /usr /usr/lib /usr/lib/systemd /usr/bin $A $B $C; do
		debugfs -R "stat \"$p\"" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p'
	done | sort -u | tr '\n' ' ')
	debugfs -R "icheck $(seq -s ' ' "$first_all" "$last")" "$img" 2>/dev/null |
		awk -v own=" $owners" -v k="$kind" '
			NR == 1 { next }
			index(own, " " $2 " ") == 0 { print k ": block " $1 " in the region belongs to " $2; bad = 1 }
			END { exit bad }' || bp_fail "$kind: foreign blocks inside the boot region"

	# 5. Untraced blocks of A stay where they were.
	bmap_ranges "$img" "$bs" "$A 0 $a" >"$BP_TMPDIR/a1.map"
	paste -d' ' "$BP_TMPDIR/a0.map" "$BP_TMPDIR/a1.map" | awk -v bs="$bs" -v k="$kind" '
		function traced(o) { return o < 131072 || (o >= 139264 && o < 147456) ||
			(o >= 1048576 && o < 1310720) || o >= 2097152 }
		!traced($2 * bs) && $3 != $6 { print k ": untraced block " $2 " of A moved"; bad = 1 }
		END { exit bad }' || bp_fail "$kind: untraced data moved"
	# 6. The pack relayout wrote: entries front to back in the region (debugfs
	# says where each starts), holding exactly the traced bytes.
	"$BOOTPACK" dump --json "$BP_TMPDIR/$kind.pack" | awk '
		/"entries": \[/ { e = 1 }
		e && /"path":/ { gsub(/[",]/, "", $2); p = $2 }
		e && /"offset":/ { gsub(/,/, "", $2); o = $2 }
		e && /"length":/ { gsub(/,/, "", $2); l = $2 }
		e && /"phys":/ { gsub(/,/, "", $2); print p, o, l, $2 }' >"$BP_TMPDIR/entries"
	[ -s "$BP_TMPDIR/entries" ] || bp_fail "$kind: no pack entries"
	mapfile -t sp < <(awk -v bs="$bs" '{ print $1, $2, bs }' "$BP_TMPDIR/entries")
	bmap_ranges "$img" "$bs" "${sp[@]}" | paste -d' ' "$BP_TMPDIR/entries" - |
		awk -v bs="$bs" -v k="$kind" -v want=$((131072 + 262144 + c + 262144 + 8192 + a - 2097152 + 131072)) '
			$4 != $7 * bs + $2 % bs { print k ": pack entry " $1 "@" $2 " at " $4 ", debugfs says block " $7; bad = 1 }
			NR > 1 && $4 <= last { print k ": pack entry " $1 "@" $2 " before the previous one"; bad = 1 }
			{ last = $4; sum += $3 }
			END { if (sum != want) { print k ": pack holds " sum " bytes, traced " want; bad = 1 }
			      exit bad }' || bp_fail "$kind: pack not in region order or not what was traced"
	bp_info "$kind: region $first_all..$last, order and pieces as traced, pack $(wc -l <"$BP_TMPDIR/entries") entries in order"
}

for kind in ${RL_KINDS:-ext4 ext4-1k ext3}; do
	# shellcheck disable=SC2086  # the kind's options, split on purpose
	check_kind $kind
done
exit 0
