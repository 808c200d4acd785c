#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# trace -- COMMAND on a loop-mounted fixture, caches dropped: the trace holds
# exactly the files read (dd, mmap, exec), with the byte ranges read, in the
# order they were first read, plus the metadata of the directories walked;
# --import of the captured text gives the same trace.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs blockdev
tfs=$(bp_tracefs)
[ -d "$tfs/events/filemap/mm_filemap_get_pages" ] ||
	bp_skip "kernel without mm_filemap_get_pages (Linux 6.12+)"

tr_image img
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mnt=$BP_TMPDIR/mnt

workload() {
	# plain read of pages 16..23, mmap of pages 0 and 10, exec
	dd if="$mnt/data/plain.bin" of=/dev/null bs=4096 skip=16 count=8 status=none
	"$BP_TRACE_HELPERS/bp-mmap-touch" "$mnt/data/mapped.bin" 0 40960
	"$mnt/usr/bin/bp-hello" >/dev/null
}
export -f workload
export mnt BP_TRACE_HELPERS

# 1. read_ahead_kb = 0: what was read is exactly what was asked for.
tr_cold "$loop" 0
"$BOOTPACK" trace -o "$BP_TMPDIR/live" --device "$loop" --save-text "$BP_TMPDIR/raw" \
	-- bash -c workload
tr_no_instance
tr_ranges "$BP_TMPDIR/live" >"$BP_TMPDIR/ranges"
cat "$BP_TMPDIR/ranges"
tr_files "$BP_TMPDIR/live" >"$BP_TMPDIR/files"
printf "%s\n" /data/plain.bin /data/mapped.bin /usr/bin/bp-hello >"$BP_TMPDIR/want-files"
diff -u "$BP_TMPDIR/want-files" "$BP_TMPDIR/files" || bp_fail "not exactly the files read, in order"
grep -qx "/data/plain.bin 65536 32768" "$BP_TMPDIR/ranges" || bp_fail "plain.bin: wrong range"
[ "$(grep -c '^/data/plain.bin ' "$BP_TMPDIR/ranges")" = 1 ] || bp_fail "plain.bin: extra ranges"
grep -qx "/data/mapped.bin 0 4096" "$BP_TMPDIR/ranges" || bp_fail "mapped.bin: page 0 missing"
grep -qx "/data/mapped.bin 40960 4096" "$BP_TMPDIR/ranges" || bp_fail "mapped.bin: page 10 missing"
[ "$(grep -c '^/data/mapped.bin ' "$BP_TMPDIR/ranges")" = 2 ] || bp_fail "mapped.bin: extra ranges"
grep -q "^/usr/bin/bp-hello 0 " "$BP_TMPDIR/ranges" || bp_fail "bp-hello: ELF header not traced"

# Physical offsets: the bytes at each R's phys are the file's bytes at its offset.
awk '/^F /{p=$6} /^R /{print p, $2, $3, $5}' "$BP_TMPDIR/live" |
while read -r path off len phys; do
	[ "$phys" != - ] || continue
	cmp <(dd if="$img" bs=4096 iflag=skip_bytes,count_bytes skip="$phys" count="$len" \
		status=none) \
	    <(dd if="$mnt$path" bs=4096 iflag=skip_bytes,count_bytes skip="$off" count="$len" \
		status=none) || bp_fail "$path $off+$len: physical offset $phys is wrong"
done

# Metadata: the first block of every directory walked (the only block of
# small ones, the htree root of indexed ones). The root directory is left
# out when its block shares the device's first folio with the superblock,
# which the mounted filesystem pins in the page cache (drop_caches cannot
# evict it, so it is not read again).
for d in / /data /usr /usr/bin; do
	b=$(tr_dir_blocks "$img" "$d" | head -n 1)
	[ -n "$b" ] || bp_fail "no blocks for directory $d"
	if [ "$d" = / ] && [ "$b" -lt 65536 ]; then
		continue
	fi
	# named by owner (tracefile.h): the directory's inode, its logical block 0
	tr_owned "$BP_TMPDIR/live" dir "$(tr_ino "$img" "$d")" 0 ||
		bp_fail "directory $d: block at byte $b not named in the trace"
	! tr_meta_covers "$BP_TMPDIR/live" "$b" ||
		bp_fail "directory $d: block at byte $b kept as a raw offset"
done

# 2. --import of the captured text: the same records.
"$BOOTPACK" trace --import "$BP_TMPDIR/raw" -o "$BP_TMPDIR/imported" --device "$loop"
grep -E '^[OMFR] ' "$BP_TMPDIR/live" >"$BP_TMPDIR/live.rec"
grep -E '^[OMFR] ' "$BP_TMPDIR/imported" >"$BP_TMPDIR/imported.rec"
diff -u "$BP_TMPDIR/live.rec" "$BP_TMPDIR/imported.rec" || bp_fail "--import differs from the live trace"
bp_grep '^source import$' "$BP_TMPDIR/imported"

# 3. read_ahead_kb = 128: readahead brings in more, the trace keeps what was used.
tr_cold "$loop" 128
# (--device given as the mount point this time)
"$BOOTPACK" trace -o "$BP_TMPDIR/ra" --device "$mnt" --save-text "$BP_TMPDIR/raw-ra" \
	-- dd if="$mnt/data/plain.bin" of=/dev/null bs=4096 skip=16 count=8 status=none
tr_ranges "$BP_TMPDIR/ra" >"$BP_TMPDIR/ranges-ra"
cat "$BP_TMPDIR/ranges-ra"
[ "$(cat "$BP_TMPDIR/ranges-ra")" = "/data/plain.bin 65536 32768" ] ||
	bp_fail "with readahead: the trace must hold only the pages read"
ino=$(awk '/^F /{print $2}' "$BP_TMPDIR/ra")
added=$(grep -c "mm_filemap_add_to_page_cache: dev [0-9]*:[0-9]* ino $(printf %x "$ino") " \
	"$BP_TMPDIR/raw-ra" || true)
bp_info "add_to_page_cache events for plain.bin: $added"
awk -v ino="$(printf %x "$ino")" '$0 ~ "add_to_page_cache: .* ino " ino " " {
	sub(/.*ofs=/, ""); sub(/ order=/, " "); if ($1 >= 98304) beyond = 1 }
	END { exit !beyond }' "$BP_TMPDIR/raw-ra" ||
	bp_fail "with read_ahead_kb=128 the kernel should have read beyond the pages used"
bp_fsck_clean "$img"
