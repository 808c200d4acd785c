#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --budget: ranges are admitted in first-access order until the next one
# would exceed the budget, that one and all later ones are cut (even when
# they are small or early on disk); budget positions let a reader cut
# further; the summary counts what was cut.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs dumpe2fs jq
img=$(bp_fixture ext4)
dirblk=$(debugfs -R "blocks /etc" "$img" 2>/dev/null | awk '{print $1}')

# A late small file (hostname, 9 bytes) must be cut once a big range before
# it does not fit.
pk_mktrace "$img" "$BP_TMPDIR/trace" -m $((dirblk * 4096)):4096:500 \
	/usr/lib/x86_64-linux-gnu/libbp3.so.1:0:all:1000 \
	/usr/lib/x86_64-linux-gnu/libbp2.so.1:0:102400:2000,196608:all:5000 \
	/usr/lib/x86_64-linux-gnu/libbp8.so.1:0:all:3000 \
	/etc/hostname:0:all:4000
# first-access order: meta 4096, libbp3 124928, libbp2 102400, libbp8 912384,
# hostname 9, libbp2 102400 (page-aligned ranges: the pack rounds to pages)
all=$((4096 + 124928 + 102400 + 912384 + 9 + 102400))

for budget in 0 4095 4096 129024 231423 231424 1143808 1143816 1143817 $all; do
	"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget "$budget" \
		--json "$img" >"$BP_TMPDIR/summary.json"
	"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
	pk_expect "$BP_TMPDIR/trace" "$budget" >"$BP_TMPDIR/want"
	pk_pack_ranges "$BP_TMPDIR/dump.json" >"$BP_TMPDIR/got"
	diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "budget $budget: wrong ranges admitted"
	total=$(jq '.pack.total_bytes' "$BP_TMPDIR/dump.json")
	cut=$(jq '.pack.cut_bytes' "$BP_TMPDIR/dump.json")
	[ "$budget" = 0 ] || [ "$total" -le "$budget" ] || bp_fail "budget $budget: $total bytes packed"
	[ $((total + cut)) = "$all" ] || bp_fail "budget $budget: $total packed + $cut cut != $all"
	jq -e --argjson t "$total" --argjson c "$cut" --argjson b "$budget" \
		'.pack.bytes == $t and .pack.cut_bytes == $c and .pack.budget == $b' \
		"$BP_TMPDIR/summary.json" >/dev/null || bp_fail "budget $budget: summary disagrees"
	bp_info "budget $budget: $total bytes packed, $cut cut"
done

# 231423: libbp2's first range does not fit, so nothing after it is packed,
# not even the 9-byte hostname.
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 231423 "$img" \
	>"$BP_TMPDIR/summary"
bp_grep "cut 4 ranges" "$BP_TMPDIR/summary"
"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
jq -e '[.entries[].path] | unique == ["/usr/lib/x86_64-linux-gnu/libbp3.so.1"]' \
	"$BP_TMPDIR/dump.json" >/dev/null || bp_fail "a range after the cut was packed"

# A reader that scales the budget down keeps a first-access prefix: the
# ranges with budget_pos <= B' are exactly what a pack with budget B' holds.
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/full" --budget 0 "$img" >/dev/null
"$BOOTPACK" dump --json "$BP_TMPDIR/full" >"$BP_TMPDIR/full.json"
jq -r '(.meta[] | select(.budget_pos <= 231424) | "M - \(.offset) \(.offset + .length)"),
       (.entries[] | select(.budget_pos <= 231424) | "R \(.path) \(.offset) \(.offset + .length)")' \
	"$BP_TMPDIR/full.json" | pk_merge >"$BP_TMPDIR/prefix"
pk_expect "$BP_TMPDIR/trace" 231424 >"$BP_TMPDIR/want"
diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/prefix" || bp_fail "budget positions are not a first-access prefix"

# Sizes with suffixes; the default is 75M.
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 1M --json "$img" \
	>"$BP_TMPDIR/s.json"
jq -e '.pack.budget == 1048576' "$BP_TMPDIR/s.json" >/dev/null || bp_fail "--budget 1M"
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --json "$img" >"$BP_TMPDIR/s.json"
jq -e '.pack.budget == 78643200 and .pack.cut_bytes == 0' "$BP_TMPDIR/s.json" >/dev/null ||
	bp_fail "default budget is not 75 MiB"
