#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A real trace -> pack -> dump --json: on a loop-mounted fixture with cold
# caches, trace a workload (whole files, a partial read, a file read twice),
# pack it from the device while it is mounted, and check that the pack holds
# exactly the traced ranges under the budget, each at its physical offset.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs blockdev jq
tfs=$(bp_tracefs)
[ -d "$tfs/events/filemap/mm_filemap_add_to_page_cache" ] || bp_skip "no filemap tracepoints"

img=$(bp_fixture ext4)
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mnt=$BP_TMPDIR/mnt
echo 0 >"/sys/block/$(basename "$loop")/queue/read_ahead_kb"
sync
blockdev --flushbufs "$loop"
bp_drop_caches
bp_cache_hold

L=$mnt/usr/lib/x86_64-linux-gnu
"$BOOTPACK" trace -o "$BP_TMPDIR/trace" --device "$loop" -- sh -c "
	cat $mnt/etc/passwd $mnt/etc/group >/dev/null
	dd if=$L/libbp6.so.1 of=/dev/null bs=4096 skip=10 count=20 status=none
	cat $L/libbp3.so.1 >/dev/null
	cat $mnt/etc/passwd >/dev/null
	dd if=$L/libbp8.so.1 of=/dev/null bs=65536 count=4 status=none"
grep -c '^R ' "$BP_TMPDIR/trace" >/dev/null || bp_fail "empty trace"
for f in /etc/passwd /etc/group $L/libbp6.so.1 $L/libbp3.so.1 $L/libbp8.so.1; do
	grep -q "^F .* ${f#"$mnt"}$" "$BP_TMPDIR/trace" || bp_fail "${f#"$mnt"} not traced"
done

# Whole trace, then a budget that cuts in the middle.
for budget in 0 300K; do
	"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget "$budget" "$loop" \
		>"$BP_TMPDIR/summary"
	cat "$BP_TMPDIR/summary"
	"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
	b=$(jq '.pack.budget' "$BP_TMPDIR/dump.json")
	pk_expect "$BP_TMPDIR/trace" "$b" "$img" >"$BP_TMPDIR/want"
	pk_pack_ranges "$BP_TMPDIR/dump.json" >"$BP_TMPDIR/got"
	diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "budget $budget: pack differs from trace"
	pk_check_phys "$img" "$BP_TMPDIR/dump.json"
	bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack" "$loop"
done
grep -q "^R /usr/lib/x86_64-linux-gnu/libbp6.so.1 40960 122880$" <(pk_expect "$BP_TMPDIR/trace" 0) ||
	bp_fail "libbp6: the partial read is not the traced range"
jq -e '.pack.cut_bytes > 0 and .pack.total_bytes <= 307200' "$BP_TMPDIR/dump.json" >/dev/null ||
	bp_fail "300K budget did not cut"
