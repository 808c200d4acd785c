#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A buffer too small for the trace: the events lost are counted from the
# buffer's own counters, stored and reported with a hint. A file written
# during the trace is left out (its data is not stable); files only read stay.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs blockdev fsfreeze
tfs=$(bp_tracefs)
[ -d "$tfs/events/filemap/mm_filemap_get_pages" ] ||
	bp_skip "kernel without mm_filemap_get_pages (Linux 6.12+)"

tr_image img
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt"
mnt=$BP_TMPDIR/mnt

# Lost events: 1 MiB read page by page is ~512 events; the buffer holds a few.
tr_cold "$loop" 0
"$BOOTPACK" trace -o "$BP_TMPDIR/small" --device "$loop" --buffer-size 4K \
	-- dd if="$mnt/data/plain.bin" of=/dev/null bs=4096 status=none 2>"$BP_TMPDIR/err"
cat "$BP_TMPDIR/err"
bp_grep '[0-9]+ events were lost .*--buffer-size' "$BP_TMPDIR/err"
lost=$(awk '/^events /{print $4}' "$BP_TMPDIR/small")
[ "$lost" -gt 0 ] || bp_fail "the trace does not record the lost events"
tr_no_instance

# A file written during the trace (and checkpointed, so that libext2fs sees
# it) is left out; the file read next to it stays.
tr_cold "$loop" 0
"$BOOTPACK" -v trace -o "$BP_TMPDIR/w" --device "$loop" -- bash -c "
	head -c 65536 /dev/zero >'$mnt/data/new.bin'
	cat '$mnt/data/new.bin' '$mnt/data/untouched.bin' >/dev/null
	fsfreeze -f '$mnt' && fsfreeze -u '$mnt'" 2>"$BP_TMPDIR/err"
cat "$BP_TMPDIR/err"
tr_files "$BP_TMPDIR/w" >"$BP_TMPDIR/files"
echo /data/untouched.bin | diff -u - "$BP_TMPDIR/files" || bp_fail "written file not left out"
bp_grep 'left out .* 1 written during the trace' "$BP_TMPDIR/err"
umount "$mnt"
bp_fsck_clean "$img"
