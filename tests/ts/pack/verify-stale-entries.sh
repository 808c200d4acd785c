#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# verify --pack: a fresh pack has no stale entry (exit 0); after files are
# changed on the image (mtime, content rewritten, removed, blocks moved by
# a rewrite) exactly their entries are stale, with the reason (exit 3); a
# pack checked against another filesystem is refused (exit 4).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs dumpe2fs jq
img=$(bp_fixture ext4)
L=/usr/lib/x86_64-linux-gnu
pk_mktrace "$img" "$BP_TMPDIR/trace" \
	/usr/bin/bash:0:all:1000 /etc/passwd:0:all:2000 $L/libbp1.so.1:0:all:3000 \
	$L/libbp2.so.1:0:all:4000 $L/libbp3.so.1:0:all:5000 /etc/group:0:all:6000
"$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" "$img" >/dev/null
nent=$("$BOOTPACK" dump --json "$BP_TMPDIR/pack" | jq '.pack.entries')

# Fresh.
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack" "$img"
bp_grep "^Stale: +0 entries" "$BP_TMPDIR/out"
bp_grep "^Contiguity: +[0-9]+ discontiguities in first-access order; [0-9]+ seeks in reading order" "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/pack" "$img"
jq -e --argjson n "$nent" '.verify.uuid_match and .verify.stale_entries == 0
	and .verify.entries == $n and .stale == []' "$BP_TMPDIR/out" >/dev/null ||
	bp_fail "fresh pack reported stale"

# Change the image: passwd's mtime; libbp1 rewritten elsewhere (a filler
# takes its old blocks) with the same size, mtime and generation, so only
# its blocks tell; libbp2 removed; group rewritten larger.
head -c 573440 /dev/urandom >"$BP_TMPDIR/libbp1"
head -c 2000 /dev/urandom >"$BP_TMPDIR/group"
debugfs -w "$img" >/dev/null 2>&1 <<-DEBUGFS
	sif /etc/passwd mtime 1800000000
	rm $L/libbp1.so.1
	write $BP_TMPDIR/libbp1 /filler
	write $BP_TMPDIR/libbp1 $L/libbp1.so.1
	sif $L/libbp1.so.1 mtime 1700000000
	sif $L/libbp1.so.1 generation 0
	rm $L/libbp2.so.1
	rm /etc/group
	write $BP_TMPDIR/group /etc/group
DEBUGFS
bp_fsck_clean "$img"

bp_expect_exit 3 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/pack" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/v.json"
jq -r '.stale[] | "\(.path) \(.reason)"' "$BP_TMPDIR/v.json" | sort -u >"$BP_TMPDIR/got"
cat "$BP_TMPDIR/got"
# libbp1's inode number may be reused by debugfs: then its blocks moved,
# else the path resolves to another inode.
sed -i "s#^$L/libbp1.so.1 \(moved\|replaced\|generation\)\$#$L/libbp1.so.1 rewritten#" "$BP_TMPDIR/got"
printf '%s\n' "/etc/group "{replaced,generation,size} | grep -qxf - "$BP_TMPDIR/got" ||
	bp_fail "/etc/group not stale"
sed -i 's#^/etc/group \(replaced\|generation\|size\)$#/etc/group rewritten#' "$BP_TMPDIR/got"
printf '%s\n' "/etc/group rewritten" "/etc/passwd mtime" "$L/libbp1.so.1 rewritten" \
	"$L/libbp2.so.1 missing" | sort >"$BP_TMPDIR/want"
diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "wrong stale entries"
fresh=$(jq '.verify.stale_by_reason | add' "$BP_TMPDIR/v.json")
[ "$(jq '.verify.stale_entries' "$BP_TMPDIR/v.json")" = "$fresh" ] || bp_fail "counts disagree"
jq -e '.verify.stale_files == 4' "$BP_TMPDIR/v.json" >/dev/null || bp_fail "stale_files != 4"

bp_expect_exit 3 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack" "$img"
bp_grep "^Stale: +[0-9]+ entries .* in 4 files" "$BP_TMPDIR/out"
bp_grep "^  missing +$L/libbp2.so.1 0\+" "$BP_TMPDIR/out"

# Another filesystem: refused (exit 4, as a trace of another filesystem is),
# with the identity rule's one message, and no report.
other=$(bp_fixture ext4-1k)
for j in "" --json; do
	bp_expect_exit 4 "$BOOTPACK" verify $j --pack "$BP_TMPDIR/pack" "$other"
	bp_grep "the pack is of filesystem UUID b0075ac0-0000-4000-8000-000000000001 \\(block size 4096\\), this one is UUID" "$BP_TMPDIR/err"
	[ ! -s "$BP_TMPDIR/out" ] || bp_fail "verify $j --pack of another filesystem printed a report"
done

# Same inode, same size, mtime and generation, one block remapped (ext2:
# i_block[0] is the first data block): only the physical check sees it.
img2=$(bp_fixture ext2)
pk_mktrace "$img2" "$BP_TMPDIR/trace2" /etc/passwd:0:all:1000 /usr/bin/bash:0:65536:2000
"$BOOTPACK" pack --trace "$BP_TMPDIR/trace2" -o "$BP_TMPDIR/pack2" "$img2" >/dev/null
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack2" "$img2"
old=$(debugfs -R "blocks /etc/passwd" "$img2" 2>/dev/null | awk '{print $1}')
new=$(debugfs -R "ffb 1 20000" "$img2" 2>/dev/null | awk '/Free blocks found/{print $4}')
[ -n "$old" ] && [ -n "$new" ] || bp_fail "cannot find blocks to remap"
dd if="$img2" of="$img2" bs=4096 skip="$old" seek="$new" count=1 conv=notrunc status=none
debugfs -w "$img2" >/dev/null 2>&1 <<-DEBUGFS
	setb $new
	sif /etc/passwd block[0] $new
	freeb $old
DEBUGFS
bp_fsck_clean "$img2"
bp_expect_exit 3 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/pack2" "$img2"
jq -e '.stale == [{"path": "/etc/passwd", "offset": 0, "length": 1480, "reason": "moved"}]' \
	"$BP_TMPDIR/out" >/dev/null || { cat "$BP_TMPDIR/out"; bp_fail "remapped block not seen"; }
