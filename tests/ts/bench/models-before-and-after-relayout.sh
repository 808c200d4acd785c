#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench on a real trace of an aged image: before relayout the traced and the
# current layout cost the same (the traced stream's metadata at the O
# records' at=, the current one's where the owners are now); after relayout the current layout has fewer
# discontiguities, is faster on the hard disk model, and never beats the
# physical limit. That the traced ranges are then one run in the order read
# is checked with debugfs (bp_layout_check), not with bench's own figures.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd jq
bp_tracefs >/dev/null

img=$(bp_fixture --aged ext4)
bp_trace_reads "$img" "$BP_TMPDIR/boot.trace" /etc/fstab /usr/bin/bash /boot/vmlinuz-6.1.0-bootpack \
	'/etc/bp-pkg*' /boot/initrd.img-6.1.0-bootpack
mapfile -t traced < <(bp_trace_specs "$BP_TMPDIR/boot.trace")

# row MODEL LAYOUT COLUMN: a number from the text table.
row() {
	awk -v m="$1" -v l="$2" -v c="$3" '$1 == m && $2 == l { print $c }' "$BP_TMPDIR/out"
}

# the traced metadata by owner, each O record with where the boot read it
grep -q '^O ' "$BP_TMPDIR/boot.trace" || bp_fail "no O record in the trace"
! grep '^O ' "$BP_TMPDIR/boot.trace" | grep -qv ' at=[0-9]*$' || bp_fail "an O record without at="
bp_expect_exit 0 "$BOOTPACK" bench --trace "$BP_TMPDIR/boot.trace" "$img"
# the same stream: time, requests and discontiguities (at= and the owners now agree)
for model in eee-flash hdd-5k160 sata-ssd; do
	for c in 3 9 10; do
		[ "$(row $model traced $c)" = "$(row $model now $c)" ] ||
			bp_fail "$model: traced and current layout differ before relayout (column $c)"
	done
done
before_hdd=$(row hdd-5k160 now 3)
before_disc=$(row hdd-5k160 now 10)
[ "$before_disc" -gt 20 ] || bp_fail "aged image: only $before_disc discontiguities"

bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/boot.trace" "$img"
bp_fsck_clean "$img"
# debugfs, not bench: the traced ranges are one run in the order read
bp_layout_check "$img" "${traced[@]}" || bp_fail "boot set not laid out (debugfs)"
bp_expect_exit 0 "$BOOTPACK" bench --trace "$BP_TMPDIR/boot.trace" "$img"
cat "$BP_TMPDIR/out"
[ "$(row hdd-5k160 traced 3)" = "$before_hdd" ] || bp_fail "the traced layout changed"
after_hdd=$(row hdd-5k160 now 3)
after_disc=$(row hdd-5k160 now 10)
[ "$after_disc" -lt $((before_disc / 4)) ] ||
	bp_fail "discontiguities $before_disc -> $after_disc"
awk -v a="$after_hdd" -v b="$before_hdd" 'BEGIN { exit !(a < b) }' ||
	bp_fail "hdd model not faster: $before_hdd -> $after_hdd s"
for model in eee-flash hdd-5k160 sata-ssd; do
	awk -v t="$(row $model now 3)" -v p="$(row $model now 7)" 'BEGIN { exit !(t >= p) }' ||
		bp_fail "$model beats the physical limit"
done

# JSON: one object with both layouts per model.
bp_expect_exit 0 "$BOOTPACK" bench --json -m eee-flash --trace "$BP_TMPDIR/boot.trace" "$img"
bp_grep '"model": "eee-flash"' "$BP_TMPDIR/out"
bp_grep '"ratio_to_limit": ' "$BP_TMPDIR/out"
jq -e '[.bench.models[].model] == ["eee-flash"]' "$BP_TMPDIR/out" >/dev/null ||
	bp_fail "-m did not select one model"

# Usage and refusal.
bp_expect_exit 2 "$BOOTPACK" bench -m nosuchdisk --trace "$BP_TMPDIR/boot.trace" "$img"
bp_grep "unknown disk model 'nosuchdisk'" "$BP_TMPDIR/err"
other=$(bp_fixture ext3)
bp_expect_exit 4 "$BOOTPACK" bench --trace "$BP_TMPDIR/boot.trace" "$other"
bp_grep "the trace is of filesystem" "$BP_TMPDIR/err"
exit 0
