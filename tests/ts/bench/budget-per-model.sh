#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack bench prices the pack on each disk model at the automatic budget
# of bootpack setup, with the model's sequential rate as the disk: the
# smallest of the boot stream's bytes, a quarter of --mem (default 1 GiB)
# and the rate (doc/disk-models.md, written here) x the trace's last first
# access (read here from the trace file). Each term binds on some model or
# memory; the budget and its term are computed here (awk), and the packed
# bytes are the stream's requests that fit whole, at most the budget.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
# shellcheck source=tests/ts/pack/budget-oracle.sh
. "$top_srcdir/tests/ts/pack/budget-oracle.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs jq

img=$(bp_fixture --aged ext4)
t=$BP_TMPDIR/boot.trace
# ranges 1 ms apart, the last at 40 ms (the initrd's second range)
rl_mktrace "$img" "$t" /usr/bin/bash@0+65536/0 /etc/passwd@0+4096/10000000 \
	/boot/initrd.img-6.1.0-bootpack@0+1048576/20000000,2097152+1048576/40000000
last_ns=$(awk '/^[MR] /{ if ($4 > m) m = $4 } END { print m }' "$t")
[ "$last_ns" = 40000000 ] || bp_fail "the trace's last first access is $last_ns"

# want TRACED MEM RATE_BPS: "BUDGET TERM", the rule computed here
want() { bp_budget_want "$1" "$2" "$3" "$last_ns"; }

# check JSON MODEL RATE_BPS MEM TERM: the model's budget as computed here
check() {
	local j=$1 model=$2 rate=$3 mem=$4 term=$5 all b w
	all=$(jq '.bench.file_bytes + .bench.metadata_bytes' "$j")
	read -r b w < <(want "$all" "$mem" "$rate")
	[ "$w" = "$term" ] || bp_fail "$model: the rule computed here says $w, the case wants $term"
	jq -e --arg m "$model" --argjson b "$b" --arg w "$w" '.bench.models[] | select(.model == $m) |
		.budget.bytes == $b and .budget.bound == $w and .pack.bytes <= $b and
		.pack.bytes + .pack.cut_bytes == .budget.traced_bytes' "$j" >/dev/null ||
		bp_fail "$model: not a budget of $b ($w): $(jq -c --arg m "$model" \
			'.bench.models[] | select(.model == $m) | [.budget, .pack]' "$j")"
	bp_info "$model: budget $b ($w)"
}

# 1 GiB (the default): eee-flash's 25 MB/s x 40 ms = 1,000,000 bytes and
# hdd-5k160's 45 MB/s x 40 ms = 1,800,000 bind (the stream is 2 MiB and
# more); sata-ssd's 560 MB/s x 40 ms = 22.4 MB does not: all is packed.
bp_expect_exit 0 "$BOOTPACK" bench --json -m eee-flash -m hdd-5k160 -m sata-ssd --trace "$t" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/default.json"
check "$BP_TMPDIR/default.json" eee-flash 25000000 1073741824 disk
check "$BP_TMPDIR/default.json" hdd-5k160 45000000 1073741824 disk
check "$BP_TMPDIR/default.json" sata-ssd 560000000 1073741824 traced
jq -e '.bench.models[] | select(.model == "sata-ssd") | .pack.cut_bytes == 0' \
	"$BP_TMPDIR/default.json" >/dev/null || bp_fail "sata-ssd: the whole stream is not packed"
jq -e '.bench.models[] | select(.model == "eee-flash") | .pack.cut_bytes > 0' \
	"$BP_TMPDIR/default.json" >/dev/null || bp_fail "eee-flash: nothing cut"

# 2 MiB of memory: a quarter, 524288 bytes, binds on every model.
bp_expect_exit 0 "$BOOTPACK" bench --json --mem 2M -m eee-flash -m sata-ssd --trace "$t" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/mem.json"
check "$BP_TMPDIR/mem.json" eee-flash 25000000 2097152 memory
check "$BP_TMPDIR/mem.json" sata-ssd 560000000 2097152 memory

# The text names the term of each model.
bp_expect_exit 0 "$BOOTPACK" bench --mem 2M -m eee-flash -m sata-ssd --trace "$t" "$img"
bp_grep '^eee-flash +524288 memory ' "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" bench -m eee-flash -m sata-ssd --trace "$t" "$img"
bp_grep '^eee-flash +1000000 disk ' "$BP_TMPDIR/out"
bp_grep '^sata-ssd +[0-9]+ traced ' "$BP_TMPDIR/out"

bp_expect_exit 2 "$BOOTPACK" bench --mem 0 --trace "$t" "$img"
bp_expect_exit 2 "$BOOTPACK" bench --mem lots --trace "$t" "$img"
exit 0
