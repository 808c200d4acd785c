#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --from-boot reads the top-level trace buffer, as filled by trace_event= at
# boot (simulated here by enabling the same events there), keeps what was
# read from the device, then disables the events and restores tracing_on.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs blockdev
tfs=$(bp_tracefs)
[ -d "$tfs/events/filemap/mm_filemap_get_pages" ] ||
	bp_skip "kernel without mm_filemap_get_pages (Linux 6.12+)"
events="mm_filemap_add_to_page_cache mm_filemap_get_pages mm_filemap_map_pages mm_filemap_fault"
for e in $events; do
	[ "$(cat "$tfs/events/filemap/$e/enable")" = 0 ] ||
		bp_skip "filemap:$e is already enabled in the top-level buffer (in use)"
done
[ "$(cat "$tfs/tracing_on")" = 1 ] || bp_skip "tracing_on is off in the top-level buffer"

tr_image img
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
tr_cold "$loop" 0

# "Boot": the events on in the top buffer, then a workload.
for e in $events; do
	bp_on_exit "echo 0 > '$tfs/events/filemap/$e/enable'"
done
: >"$tfs/trace"
for e in $events; do echo 1 >"$tfs/events/filemap/$e/enable"; done
dd if="$BP_TMPDIR/mnt/data/plain.bin" of=/dev/null bs=4096 skip=16 count=8 status=none
cat "$BP_TMPDIR/mnt/data/mapped.bin" >/dev/null

"$BOOTPACK" trace --from-boot -o "$BP_TMPDIR/t" --device "$loop" --save-text "$BP_TMPDIR/raw"
for e in $events; do
	[ "$(cat "$tfs/events/filemap/$e/enable")" = 0 ] || bp_fail "filemap:$e left enabled"
done
[ "$(cat "$tfs/tracing_on")" = 1 ] || bp_fail "tracing_on not restored"
bp_grep '^source boot$' "$BP_TMPDIR/t"
tr_files "$BP_TMPDIR/t" >"$BP_TMPDIR/files"
printf '%s\n' /data/plain.bin /data/mapped.bin | diff -u - "$BP_TMPDIR/files" ||
	bp_fail "--from-boot: not the files read"
tr_ranges_merged "$BP_TMPDIR/t" >"$BP_TMPDIR/ranges"
printf '%s\n' "/data/plain.bin 65536 32768" "/data/mapped.bin 0 1048576" |
	diff -u - "$BP_TMPDIR/ranges" || bp_fail "--from-boot: ranges"

# Nothing traced since (events off): a second read finds no boot trace.
: >"$tfs/trace"
bp_expect_exit 3 "$BOOTPACK" trace --from-boot -o "$BP_TMPDIR/t2" --device "$loop"
bp_grep 'holds no filemap event.*--setup' "$BP_TMPDIR/err"
