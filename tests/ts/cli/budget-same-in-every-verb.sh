#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One trace, one image, one budget report: pack --budget auto, bench and
# image, given the same memory (256 MiB) and rate (pi4-sd's 43 MB/s: the
# probe file, the model, --model), print the budget with the same fields
# (pack-budget-report.c, doc/formats.md "The budget report"): the same JSON
# keys (image's documented aliases aside), the same values of the rule's
# inputs and terms, and a budget equal to the one computed here from the
# trace file (budget-oracle.sh: the disk binds, 43 MB/s x the last first
# access). The text of pack and image says it in the same words.
# traced_bytes and packed_bytes are not compared: each verb counts what it
# reads (pack: ranges of the pack; bench: requests of the stream now;
# image: the pack after its relayout).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
# shellcheck source=tests/ts/pack/budget-oracle.sh
. "$top_srcdir/tests/ts/pack/budget-oracle.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs jq

base=$BP_TMPDIR/root.img
img_root "$base"
t=$base.trace
mem=268435456 rate=43000000
last_ns=$(awk '/^[MR] /{ if ($4 > m) m = $4 } END { print m }' "$t")
traced_min=$(awk '/^R /{ s += $3 } END { print s }' "$t")
read -r want term < <(bp_budget_want "$traced_min" "$mem" "$rate" "$last_ns")
[ "$term" = disk ] || bp_fail "the case wants the disk term, the rule computed here says $term"
printf 'model=pi4-sd\nrate_mbs=43.0\n' >"$BP_TMPDIR/probe"

# The three reports, JSON and text, in $BP_TMPDIR/VERB.json and VERB.txt.
for fmt in -J ""; do
	ext=${fmt:+json}
	ext=${ext:-txt}
	# shellcheck disable=SC2086  # $fmt: no word or one
	bp_expect_exit 0 "$BOOTPACK" pack --trace "$t" -o "$BP_TMPDIR/pack" --budget auto \
		--mem-total "$mem" --probe "$BP_TMPDIR/probe" $fmt "$base"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/pack.$ext"
	# shellcheck disable=SC2086
	bp_expect_exit 0 "$BOOTPACK" bench --trace "$t" -m pi4-sd --mem "$mem" $fmt "$base"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/bench.$ext"
	cp --sparse=always "$base" "$BP_TMPDIR/image.img"
	# shellcheck disable=SC2086
	bp_expect_exit 0 "$BOOTPACK" image --no-undo --trace "$t" --target-mem "$mem" \
		--model pi4-sd ${fmt:+--json} "$BP_TMPDIR/image.img"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/image.$ext"
	rm -f "$BP_TMPDIR/image.img"
done
jq .pack.budget_auto "$BP_TMPDIR/pack.json" >"$BP_TMPDIR/pack.b"
jq '.bench.models[] | select(.model == "pi4-sd") | .budget' "$BP_TMPDIR/bench.json" \
	>"$BP_TMPDIR/bench.b"
jq '.installed.budget | del(.target_mem, .target_mem_from, .target_rate, .target_rate_from)' \
	"$BP_TMPDIR/image.json" >"$BP_TMPDIR/image.b"

# The same keys, in the same order.
for v in pack bench image; do
	jq -c 'keys_unsorted' "$BP_TMPDIR/$v.b" >"$BP_TMPDIR/$v.keys"
	bp_info "$v: $(cat "$BP_TMPDIR/$v.keys")"
done
diff -u "$BP_TMPDIR/pack.keys" "$BP_TMPDIR/bench.keys" || bp_fail "pack and bench: other keys"
diff -u "$BP_TMPDIR/pack.keys" "$BP_TMPDIR/image.keys" || bp_fail "pack and image: other keys"
jq -e 'length == 14' "$BP_TMPDIR/pack.keys" >/dev/null || bp_fail "not the 14 fields of the report"

# The same inputs and terms, and the budget computed here.
same='{bytes, bound, mem_total, mem_from, memory_cap, rate, rate_default, boot_ns, disk_cap}'
for v in pack bench image; do
	jq -c "$same" "$BP_TMPDIR/$v.b" >"$BP_TMPDIR/$v.same"
	jq -e --argjson b "$want" --argjson m "$mem" --argjson r "$rate" --argjson n "$last_ns" \
		'.bytes == $b and .bound == "disk" and .mem_total == $m and .rate == $r and
		.boot_ns == $n and .mem_from == "option" and .rate_default == false' \
		"$BP_TMPDIR/$v.b" >/dev/null ||
		bp_fail "$v: not a budget of $want (disk): $(cat "$BP_TMPDIR/$v.b")"
done
diff -u "$BP_TMPDIR/pack.same" "$BP_TMPDIR/bench.same" || bp_fail "pack and bench differ"
diff -u "$BP_TMPDIR/pack.same" "$BP_TMPDIR/image.same" || bp_fail "pack and image differ"
jq -e '.rate_from == "probe" and .model == null' "$BP_TMPDIR/pack.b" >/dev/null ||
	bp_fail "pack: the rate is not from the probe"
jq -e '.rate_from == "model" and .model == "pi4-sd"' "$BP_TMPDIR/image.b" >/dev/null ||
	bp_fail "image: the rate is not from pi4-sd"
# image's aliases say what the fields say
jq -e '.installed.budget | .target_mem == .mem_total and .target_rate == .rate and
	.target_mem_from == .mem_from and .target_rate_from == .rate_from' \
	"$BP_TMPDIR/image.json" >/dev/null || bp_fail "image: the aliases differ from the fields"

# The text: pack's and image's lines are the same words, rate source aside.
for v in pack image; do
	grep -E '^ *budget: ' -A1 "$BP_TMPDIR/$v.txt" |
		sed -E 's/^ +//; s/; .*//; s/traced [^,]*,/traced T,/; s/, (probed|pi4-sd),/, SRC,/' \
		>"$BP_TMPDIR/$v.lines"
	bp_grep '^budget: [0-9.]+ [KMG]?i?B, auto, bound by disk$' "$BP_TMPDIR/$v.lines"
done
diff -u "$BP_TMPDIR/pack.lines" "$BP_TMPDIR/image.lines" || bp_fail "pack and image: other words"
bp_grep "^pi4-sd +$want disk " "$BP_TMPDIR/bench.txt"
exit 0
