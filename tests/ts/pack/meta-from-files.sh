#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --meta=files: the metadata ranges are exactly the blocks needed to open
# the packed files on the filesystem as it is now (every directory on their
# paths, the inode table block of every inode on the way), each admitted
# before the file that first needs it; after a directory block moves, the
# pack follows it, while --meta=trace keeps the traced position; the
# default (both) has the new place too.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs dumpe2fs jq

# meta_blocks IMG DIR... FILE...: the expected block numbers, sorted.
meta_blocks() {
	local img=$1 p
	shift
	{
	for p in "$@"; do
		debugfs -R "imap \"$p\"" "$img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p'
	done
	for p in "$@"; do
		debugfs -R "stat \"$p\"" "$img" 2>/dev/null | grep -q "Type: directory" || continue
		debugfs -R "blocks \"$p\"" "$img" 2>/dev/null | tr ' ' '\n' | grep .
	done
	} | sort -n | uniq
}

for kind in ext4 ext2; do
	img=$(bp_fixture $kind)
	bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	pk_mktrace "$img" "$BP_TMPDIR/trace" /usr/bin/bash:0:65536:1000 /etc/passwd:0:all:2000 \
		/usr/lib/x86_64-linux-gnu/libbp1.so.1:0:8192:3000
	"$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 0 --meta=files \
		"$img" >/dev/null
	"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
	jq -r --argjson bs "$bs" '.meta[] | select(.length == $bs) | .offset / $bs' \
		"$BP_TMPDIR/dump.json" | sort -n >"$BP_TMPDIR/got"
	[ "$(jq --argjson bs "$bs" '[.meta[] | select(.length != $bs)] | length' \
		"$BP_TMPDIR/dump.json")" = 0 ] || bp_fail "$kind: metadata ranges are not single blocks"
	meta_blocks "$img" / /usr /usr/bin /etc /usr/lib /usr/lib/x86_64-linux-gnu \
		/usr/bin/bash /etc/passwd /usr/lib/x86_64-linux-gnu/libbp1.so.1 >"$BP_TMPDIR/want"
	# ext2 maps files with indirect blocks: bash and libbp1 have one each
	if [ "$kind" = ext2 ]; then
		for p in /usr/bin/bash /usr/lib/x86_64-linux-gnu/libbp1.so.1; do
			debugfs -R "stat $p" "$img" 2>/dev/null | grep -o '(T*D*IND):[0-9]*' | cut -d: -f2
		done >"$BP_TMPDIR/ind"
		[ "$(wc -l <"$BP_TMPDIR/ind")" = 2 ] || bp_fail "ext2: indirect blocks not found"
		sort -n -o "$BP_TMPDIR/want" "$BP_TMPDIR/want" "$BP_TMPDIR/ind"
	fi
	diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "$kind: wrong metadata blocks"

	# Each file's metadata comes before its first range in first-access order:
	# the inode table block of passwd is admitted after bash's range, before passwd's.
	pb=$(debugfs -R "imap /etc/passwd" "$img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
	jq -e --argjson off $((pb * bs)) '
		([.entries[] | select(.path == "/usr/bin/bash") | .budget_pos] | max) as $bash
		| ([.entries[] | select(.path == "/etc/passwd") | .budget_pos] | min) as $pw
		| (.meta[] | select(.offset == $off) | .budget_pos) as $m
		| $m > $bash and $m < $pw' "$BP_TMPDIR/dump.json" >/dev/null ||
		bp_fail "$kind: passwd's inode block is not admitted before passwd"
	pk_check_phys "$img" "$BP_TMPDIR/dump.json"
	bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack" "$img"
done

# ext2: move the /etc directory's block; --meta=files follows it.
old=$(debugfs -R "blocks /etc" "$img" 2>/dev/null | awk '{print $1}')
new=$(debugfs -R "ffb 1 20000" "$img" 2>/dev/null | awk '/Free blocks found/{print $4}')
[ -n "$old" ] && [ -n "$new" ] || bp_fail "cannot find blocks to move"
pk_mktrace "$img" "$BP_TMPDIR/trace" -m "$((old * bs)):$bs:0" /etc/passwd:0:all:2000
dd if="$img" of="$img" bs="$bs" skip="$old" seek="$new" count=1 conv=notrunc status=none
debugfs -w "$img" >/dev/null 2>&1 <<-DEBUGFS
	setb $new
	sif /etc block[0] $new
	freeb $old
DEBUGFS
bp_fsck_clean "$img"
"$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/files" --meta=files "$img" >/dev/null
"$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/trace.pack" --meta=trace --json "$img" \
	>"$BP_TMPDIR/t-rep.json"
"$BOOTPACK" dump --json "$BP_TMPDIR/files" >"$BP_TMPDIR/f.json"
"$BOOTPACK" dump --json "$BP_TMPDIR/trace.pack" >"$BP_TMPDIR/t.json"
jq -e --argjson n $((new * bs)) --argjson o $((old * bs)) \
	'([.meta[].offset] | index($n)) != null and ([.meta[].offset] | index($o)) == null' \
	"$BP_TMPDIR/f.json" >/dev/null || bp_fail "--meta=files does not follow the moved block"
# alone, pack cannot know the block moved: --meta=trace keeps the traced
# place (relayout's own repack leaves it out: relayout/rewrites-pack-for-new-layout)
jq -e --argjson o $((old * bs)) '[.meta[].offset] == [$o]' "$BP_TMPDIR/t.json" >/dev/null ||
	bp_fail "--meta=trace is not the trace's range"
jq -e '.pack.meta_stale_blocks == 0' "$BP_TMPDIR/t-rep.json" >/dev/null ||
	bp_fail "--meta=trace left blocks out without a relayout"
# the default is both: the new place too
"$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/both" "$img" >/dev/null
"$BOOTPACK" dump --json "$BP_TMPDIR/both" >"$BP_TMPDIR/b.json"
jq -e --argjson n $((new * bs)) '([.meta[].offset] | index($n)) != null' \
	"$BP_TMPDIR/b.json" >/dev/null || bp_fail "the default does not follow the moved block"
bp_expect_exit 2 "$BOOTPACK" pack --trace "$BP_TMPDIR/trace" --meta=some -o "$BP_TMPDIR/x" "$img"
