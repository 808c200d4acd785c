#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --budget auto: the smallest of the traced bytes, a quarter of the memory
# (--mem-total) and the probed rate (--probe FILE; none: 25 MB/s) x the
# trace's last first access. Each term binds in turn; the pack holds all
# traced bytes when they fit and is cut in first-access order at the
# computed budget otherwise. The expected budget is computed here from the
# trace and the inputs, and the pack is checked with bootpack dump -J, not
# with the summary's own budget line. --budget SIZE still wins.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
# shellcheck source=tests/ts/pack/budget-oracle.sh
. "$top_srcdir/tests/ts/pack/budget-oracle.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs jq
img=$(bp_fixture ext4)
dirblk=$(debugfs -R "blocks /etc" "$img" 2>/dev/null | awk '{print $1}')

# times in ns: the boot's last first access is at 40 ms
pk_mktrace "$img" "$BP_TMPDIR/trace" -m $((dirblk * 4096)):4096:5000000 \
	/usr/lib/x86_64-linux-gnu/libbp3.so.1:0:all:10000000 \
	/usr/lib/x86_64-linux-gnu/libbp2.so.1:0:102400:20000000,196608:all:40000000 \
	/usr/lib/x86_64-linux-gnu/libbp8.so.1:0:all:30000000 \
	/etc/hostname:0:all:35000000
# what the boot uses, pages rounded as the pack does (see budget-cut-first-access-order)
all=$((4096 + 124928 + 102400 + 912384 + 9 + 102400))
last_ns=$(awk '/^[MR] /{ if ($4 > m) m = $4 } END { print m }' "$BP_TMPDIR/trace")
[ "$last_ns" = 40000000 ] || bp_fail "the trace's last first access is $last_ns"

# want MEM RATE_BPS: the budget and its term, computed here
want() { bp_budget_want "$all" "$1" "$2" "$last_ns"; }

# check NAME MEM RATE_BPS PACK-OPTIONS...: pack, then compare with dump -J
check() {
	local name=$1 mem=$2 rate=$3 budget bound total cut
	shift 3
	read -r budget bound < <(want "$mem" "$rate")
	"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" \
		--budget auto --mem-total "$mem" "$@" -J "$img" >"$BP_TMPDIR/summary.json"
	"$BOOTPACK" dump -J "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
	pk_expect "$BP_TMPDIR/trace" "$budget" >"$BP_TMPDIR/want"
	pk_pack_ranges "$BP_TMPDIR/dump.json" >"$BP_TMPDIR/got"
	diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "$name: not cut at $budget ($bound)"
	total=$(jq '.pack.total_bytes' "$BP_TMPDIR/dump.json")
	cut=$(jq '.pack.cut_bytes' "$BP_TMPDIR/dump.json")
	[ $((total + cut)) = "$all" ] || bp_fail "$name: $total packed + $cut cut != $all"
	jq -e --argjson b "$budget" --arg w "$bound" '.pack.budget == $b and .pack.budget_bound == $w' \
		"$BP_TMPDIR/dump.json" >/dev/null || bp_fail "$name: the pack records another budget"
	jq -e --arg w "$bound" '.pack.budget_auto.bound == $w' "$BP_TMPDIR/summary.json" \
		>/dev/null || bp_fail "$name: the summary names another term than $bound"
	bp_info "$name: budget $budget ($bound), $total bytes packed, $cut cut" >&2
	echo "$bound $total $cut"
}

# 1. traced: 1 GiB, no probe (25 MB/s x 40 ms = 1,000,000 < all): give a
#    probe fast enough that the disk does not bind either
printf '# Written by bootpack setup\nmodel=sata-ssd\nrate_mbs=500.0\nmax_request=1048576\n' \
	>"$BP_TMPDIR/probe.fast"
r=$(check traced 1073741824 500000000 --probe "$BP_TMPDIR/probe.fast")
[ "$r" = "traced $all 0" ] || bp_fail "traced: $r (all traced bytes must be packed)"

# 2. memory: 800,000 bytes of memory, a quarter is 200,000: metadata and libbp3
r=$(check memory 800000 500000000 --probe "$BP_TMPDIR/probe.fast")
[ "$r" = "memory $((4096 + 124928)) $((all - 4096 - 124928))" ] || bp_fail "memory: $r"

# 3. disk: a probed 2.5 MB/s x 40 ms = 100,000 bytes: the metadata alone
printf 'model=x\nrate_mbs=2.5\n' >"$BP_TMPDIR/probe.slow"
r=$(check disk 1073741824 2500000 --probe "$BP_TMPDIR/probe.slow")
[ "$r" = "disk 4096 $((all - 4096))" ] || bp_fail "disk: $r"

# 4. no probe: 25 MB/s x 40 ms = 1,000,000 bytes (libbp8 and all later cut)
r=$(check no-probe 1073741824 25000000 --probe none)
[ "$r" = "disk 231424 1014793" ] || bp_fail "no probe: $r"
jq -e '.pack.budget_auto.rate_default == true and .pack.budget_auto.rate == 25000000' \
	"$BP_TMPDIR/summary.json" >/dev/null || bp_fail "no probe: not the default rate"

# The text summary names the term.
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget auto \
	--mem-total 800000 --probe none "$img" >"$BP_TMPDIR/summary"
bp_grep "budget: .*, auto, bound by memory" "$BP_TMPDIR/summary"
"$BOOTPACK" dump "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump"
bp_grep "auto, bound by memory" "$BP_TMPDIR/dump"

# --budget SIZE wins, and records no term.
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 1M \
	"$img" >/dev/null
"$BOOTPACK" dump -J "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
jq -e '.pack.budget == 1048576 and .pack.budget_bound == "given"' "$BP_TMPDIR/dump.json" \
	>/dev/null || bp_fail "--budget 1M"

# Bad use: the inputs without auto (2), a probe file without a rate (1).
bp_expect_exit 2 "$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" \
	--mem-total 1G "$img"
printf 'model=x\n' >"$BP_TMPDIR/probe.bad"
bp_expect_exit 1 "$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" \
	--budget auto --probe "$BP_TMPDIR/probe.bad" "$img"
bp_expect_exit 1 "$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" \
	--budget auto --probe "$BP_TMPDIR/nothing" "$img"
