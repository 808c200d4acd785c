#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One boot set, one number: dump (trace and pack), verify --trace,
# verify --pack and bench (traced and now) count the discontiguities of the
# same reads with the one rule of bootpack(8), before and after a relayout.
# The boot set is chosen so that every verb reads the same blocks: small
# files of one block each (no extent tree), whole, and the traced metadata
# ranges are exactly the directories relayout streams before them. The
# expected count comes from debugfs, not from bootpack.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd debugfs dumpe2fs jq

img=$(bp_fixture --aged ext4)
bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
files=(/etc/bp-pkg2.conf /etc/fstab /etc/bp-pkg1.conf /etc/passwd /etc/ld.so.cache)

# blocks PATH: its blocks, one per line, from debugfs.
blocks() { debugfs -R "blocks \"$1\"" "$img" 2>/dev/null | tr ' ' '\n' | grep .; }

# expect: discontiguities of "/, /etc, files..." block by block (debugfs),
# with the rule of bootpack(8): a read continues the run when it starts in
# it or in the block right after it.
expect() {
	{ blocks /; blocks /etc; for f in "${files[@]}"; do blocks "$f"; done; } |
		awk 'NR > 1 && !($1 >= first && $1 <= last + 1) { n++; first = $1; last = $1; next }
		     NR == 1 { first = $1; last = $1; next }
		     $1 > last { last = $1 }
		     END { print n + 0 }'
}

# mktrace OUT: the boot set as it is on the image now, directories first.
mktrace() {
	local args=() ns=10 f d
	for d in / /etc; do
		args+=(-m "$(($(blocks "$d" | head -n1) * bs)):$(($(blocks "$d" | wc -l) * bs)):$ns")
		ns=$((ns + 1))
	done
	for f in "${files[@]}"; do
		ns=$((ns + 10))
		args+=("$f:0:all:$ns")
	done
	"$top_srcdir/tests/mktrace.sh" "$img" "$1" "${args[@]}" || bp_fail "mktrace"
}

# counts TRACE: the figure from every verb, one per line, "verb count".
counts() {
	local t=$1
	"$BOOTPACK" dump --json "$t" | jq -r '"dump-trace \(.summary.discontiguities)"'
	"$BOOTPACK" verify --json --trace "$t" "$img" |
		jq -r '"verify-trace \(.verify.discontiguities)"'
	# --meta=trace: the trace has no metadata ranges; the default would add
	# the files' directories and inode blocks, which debugfs does not count here
	"$BOOTPACK" pack -B 0 --meta=trace -o "$BP_TMPDIR/pack" --trace "$t" "$img" >/dev/null
	"$BOOTPACK" dump --json "$BP_TMPDIR/pack" |
		jq -r '"dump-pack \(.. | objects | select(has("discontiguities")) | .discontiguities)"'
	"$BOOTPACK" verify --json --pack "$BP_TMPDIR/pack" "$img" |
		jq -r '"verify-pack \(.. | objects | select(has("discontiguities")) | .discontiguities)"'
	"$BOOTPACK" bench --json -m hdd-5k160 --trace "$t" "$img" |
		jq -r '.bench.models[0] | "bench-traced \(.traced.discontiguities)",
		       "bench-now \(.now.discontiguities)"'
}

# check WHEN: every verb gives the debugfs figure.
check() {
	local want verb n bad=0
	want=$(expect)
	mktrace "$BP_TMPDIR/t"
	counts "$BP_TMPDIR/t" >"$BP_TMPDIR/counts"
	cat "$BP_TMPDIR/counts"
	[ "$(wc -l <"$BP_TMPDIR/counts")" = 6 ] || bp_fail "$1: not one figure per verb"
	while read -r verb n; do
		[ "$n" = "$want" ] || { echo "$1: $verb says $n, debugfs $want" >&2; bad=1; }
	done <"$BP_TMPDIR/counts"
	[ $bad = 0 ] || bp_fail "$1: the verbs disagree"
	echo "$want"
}

before=$(check "before relayout" | tail -n1)
[ "$before" -gt 2 ] || bp_fail "the aged boot set has only $before discontiguities"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t" "$img"
bp_fsck_clean "$img"
after=$(check "after relayout" | tail -n1)
[ "$after" -lt "$before" ] || bp_fail "relayout did not help: $before -> $after"
bp_info "discontiguities $before -> $after, the same from every verb"
exit 0
