#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image packs to the automatic budget with the TARGET's inputs, not
# this host's: the smallest of the traced bytes, a quarter of --target-mem
# (default 1 GiB) and --target-rate or --model's sequential rate (default
# 25 MB/s) x the trace's last first access. Each term binds in turn; the
# expected budget and term are computed here from the trace file and the
# inputs (awk), and checked in the pack inside the image (bootpack dump -J
# of the file debugfs copies out), in --json and in the text. The traced
# term: everything packed, nothing cut, and at least the trace's own bytes.
# --budget SIZE still wins; the target inputs without auto are refused.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
# shellcheck source=tests/ts/pack/budget-oracle.sh
. "$top_srcdir/tests/ts/pack/budget-oracle.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs jq

base=$BP_TMPDIR/root.img
img_root "$base"
t=$base.trace
# rl_mktrace reads the ranges 1 ms apart: the last first access is known
last_ns=$(awk '/^[MR] /{ if ($4 > m) m = $4 } END { print m }' "$t")
[ "$last_ns" -gt 0 ] || bp_fail "the trace has no times"
traced_min=$(awk '/^R /{ s += $3 } END { print s }' "$t")

# want MEM RATE_BPS TRACED: "BUDGET TERM", the rule computed here
want() { bp_budget_want "$3" "$1" "$2" "$last_ns"; }

# run NAME IMAGE-OPTIONS...: bootpack image on a fresh copy; the pack copied
# out to $BP_TMPDIR/NAME.pack, --json in NAME.json, dump -J in NAME.dump
run() {
	local name=$1 img=$BP_TMPDIR/$1.img
	shift
	cp --sparse=always "$base" "$img"
	bp_expect_exit 0 "$BOOTPACK" image --no-undo --json --trace "$t" "$@" "$img"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/$name.json"
	debugfs -R "dump /var/lib/bootpack/pack $BP_TMPDIR/$name.pack" "$img" >/dev/null 2>&1
	"$BOOTPACK" dump -J "$BP_TMPDIR/$name.pack" >"$BP_TMPDIR/$name.dump" ||
		bp_fail "$name: no pack inside the image"
	rm -f "$img"
}

# check NAME BUDGET TERM: the pack and the report say BUDGET (- : any) and TERM
check() {
	local name=$1 budget=$2 term=$3 j=$BP_TMPDIR/$1.json d=$BP_TMPDIR/$1.dump total
	jq -e --arg w "$term" '.pack.budget_bound == $w' "$d" >/dev/null ||
		bp_fail "$name: the pack records $(jq -r .pack.budget_bound "$d"), not $term"
	jq -e --arg w "$term" '.installed.budget.bound == $w' "$j" >/dev/null ||
		bp_fail "$name: --json names $(jq -r .installed.budget.bound "$j"), not $term"
	total=$(jq '.pack.total_bytes' "$d")
	if [ "$budget" != - ]; then
		jq -e --argjson b "$budget" '.pack.budget == $b' "$d" >/dev/null ||
			bp_fail "$name: the pack's budget is $(jq .pack.budget "$d"), not $budget"
		jq -e --argjson b "$budget" '.installed.budget.bytes == $b' "$j" >/dev/null ||
			bp_fail "$name: --json's budget is not $budget"
		[ "$total" -le "$budget" ] || bp_fail "$name: $total bytes packed, over $budget"
		jq -e '.pack.cut_bytes > 0' "$d" >/dev/null || bp_fail "$name: nothing cut"
	fi
	jq -e --argjson n "$total" '.installed.budget.packed_bytes == $n' "$j" >/dev/null ||
		bp_fail "$name: --json's packed_bytes is not the pack's $total"
	bp_info "$name: budget $(jq .pack.budget "$d") ($term), $total bytes packed"
}

# 1. Traced: 4 GiB and 10 GB/s; everything the boot uses fits: nothing
#    cut, at least the trace's own bytes, and the rule computed here with
#    them agrees. Their count is the traced term of the cases below.
run traced --target-mem 4G --target-rate 10000
check traced - traced
all=$(jq .pack.total_bytes "$BP_TMPDIR/traced.dump")
[ "$all" -ge "$traced_min" ] || bp_fail "traced: $all bytes packed, the trace has $traced_min"
jq -e '.pack.cut_bytes == 0 and .pack.budget == .pack.total_bytes' "$BP_TMPDIR/traced.dump" \
	>/dev/null || bp_fail "traced: cut, or the budget is not the traced bytes"
jq -e --argjson n "$all" '.installed.budget.traced_bytes == $n' "$BP_TMPDIR/traced.json" \
	>/dev/null || bp_fail "traced: --json's traced_bytes is not $all"
read -r b w < <(want 4294967296 10000000000 "$all")
[ "$w" = traced ] || bp_fail "traced: the rule computed here says $w"

# 2. No option: 1 GiB, 25 MB/s x the last first access; the disk binds.
run default
read -r b w < <(want 1073741824 25000000 "$all")
[ "$w" = disk ] || bp_fail "default: the rule computed here says $w (fixture too small?)"
check default "$b" disk
jq -e '.installed.budget.target_mem == 1073741824 and .installed.budget.target_mem_from ==
	"default" and .installed.budget.target_rate == 25000000 and
	.installed.budget.target_rate_from == "default"' "$BP_TMPDIR/default.json" >/dev/null ||
	bp_fail "default: not the documented defaults (1 GiB, 25 MB/s)"

# 3. The disk of a model: pi4-sd streams 43 MB/s.
run model --model pi4-sd
read -r b w < <(want 1073741824 43000000 "$all")
[ "$w" = disk ] || bp_fail "model: the rule computed here says $w"
check model "$b" disk
jq -e '.installed.budget.model == "pi4-sd" and .installed.budget.target_rate == 43000000 and
	.installed.budget.target_rate_from == "model"' "$BP_TMPDIR/model.json" >/dev/null ||
	bp_fail "model: not pi4-sd's rate"

# 4. Memory: 800 KiB of it, a quarter is 204800 bytes; a disk of 1 GB/s.
run memory --target-mem 800K --target-rate 1000
read -r b w < <(want 819200 1000000000 "$all")
[ "$w" = memory ] || bp_fail "memory: the rule computed here says $w"
check memory "$b" memory
jq -e '.installed.budget.target_mem == 819200 and .installed.budget.target_mem_from ==
	"option"' "$BP_TMPDIR/memory.json" >/dev/null || bp_fail "memory: not the given memory"

# 5. --budget SIZE wins and records no term.
run given --budget 100K
check given 102400 given

# The text names the term and the inputs' sources.
cp --sparse=always "$base" "$BP_TMPDIR/text.img"
bp_expect_exit 0 "$BOOTPACK" image --no-undo --trace "$t" --target-mem 800K --model emmc \
	"$BP_TMPDIR/text.img"
bp_grep '^budget: .*, auto, bound by memory' "$BP_TMPDIR/out"
bp_grep 'a quarter of 800.0 KiB, given' "$BP_TMPDIR/out"
bp_grep '180.0 MB/s, emmc' "$BP_TMPDIR/out"

# Bad use: inputs without auto, a rate and a model, unknown model, bad sizes (2).
for bad in "--budget 1M --target-mem 1G" "--target-rate 40 --model emmc" "--model floppy" \
	"--target-mem 0" "--target-rate 0" "--target-rate fast" "--budget lots"; do
	# shellcheck disable=SC2086  # the options are words
	bp_expect_exit 2 "$BOOTPACK" image --no-undo --trace "$t" $bad "$BP_TMPDIR/text.img"
done
exit 0
