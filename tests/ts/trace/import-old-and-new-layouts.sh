#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --import of saved text traces: an old kernel's layout (32-bit i_ino, no
# folio order, no access events: every page added counts) and the 6.18
# layout (access events: only pages used count); metadata entries of the
# block device; lost events; several devices need --dev; corrupt input is
# refused with its line number.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_cmd debugfs
data=$top_srcdir/tests/ts/trace/data
img=$(bp_fixture ext4)
cp "$img" "$BP_TMPDIR/before.img"

# Old layout: all pages added, clipped to the file size; metadata merged.
tr_render "$data/old-layout.txt.in" "$img" "$BP_TMPDIR/old.txt"
"$BOOTPACK" trace --import "$BP_TMPDIR/old.txt" -o "$BP_TMPDIR/old" --device "$img" \
	2>"$BP_TMPDIR/err"
bp_grep 'no page-access events' "$BP_TMPDIR/err"
printf '%s\n' /etc/passwd /usr/bin/bash /etc/hostname >"$BP_TMPDIR/want"
tr_files "$BP_TMPDIR/old" | diff -u "$BP_TMPDIR/want" - || bp_fail "old layout: files or order"
cat >"$BP_TMPDIR/want" <<-END
/etc/passwd 0 1480
/usr/bin/bash 0 12288
/etc/hostname 0 9
END
tr_ranges_merged "$BP_TMPDIR/old" | diff -u "$BP_TMPDIR/want" - || bp_fail "old layout: ranges"
# Bytes 1048576+8192 (blocks 256-257) are inode table blocks of group 0:
# named by owner (tracefile.h, O lines), the index counted from where
# dumpe2fs says the table starts.
itab=$(dumpe2fs "$img" 2>/dev/null | sed -n 's/^  Inode table at \([0-9]*\)-.*/\1/p' | head -n1)
[ -n "$itab" ] || bp_fail "dumpe2fs: no inode table"
[ "$(grep -E '^[OM] ' "$BP_TMPDIR/old")" = "O itable 0 0 $((256 - itab)) 2 0 at=1048576" ] ||
	bp_fail "old layout: metadata"
bp_grep '^bootpack-trace 2$' "$BP_TMPDIR/old"
bp_grep '^F [0-9]+ [0-9]+ 1480 1700000000 /etc/passwd$' "$BP_TMPDIR/old"
bp_grep '^R 0 1480 99500000 [0-9]+$' "$BP_TMPDIR/old"
bp_grep '^events 7 0 0$' "$BP_TMPDIR/old"
bp_grep '^uuid b0075ac0-0000-4000-8000-000000000001$' "$BP_TMPDIR/old"
bp_grep '^dev 8:1$' "$BP_TMPDIR/old"

# New layout: added ∩ accessed, first access times, lost events.
tr_render "$data/new-layout.txt.in" "$img" "$BP_TMPDIR/new.txt"
"$BOOTPACK" trace --import "$BP_TMPDIR/new.txt" -o "$BP_TMPDIR/new" --device "$img" \
	2>"$BP_TMPDIR/err"
bp_grep '3 events were lost.*bigger buffer' "$BP_TMPDIR/err"
printf '%s\n' /usr/lib/systemd/systemd /etc/ld.so.cache /etc/passwd >"$BP_TMPDIR/want"
tr_files "$BP_TMPDIR/new" | diff -u "$BP_TMPDIR/want" - || bp_fail "new layout: files or order"
cat >"$BP_TMPDIR/want" <<-END
/usr/lib/systemd/systemd 0 8192
/usr/lib/systemd/systemd 32768 32768
/usr/lib/systemd/systemd 131072 4096
/etc/ld.so.cache 4096 8192
/etc/passwd 0 1480
END
tr_ranges_merged "$BP_TMPDIR/new" | diff -u "$BP_TMPDIR/want" - || bp_fail "new layout: ranges"
# Bytes 8192+8192 (blocks 2-3): group 0's descriptor run (descriptors,
# then the reserved GDT blocks), which dumpe2fs says starts at block 1.
gdt=$(dumpe2fs "$img" 2>/dev/null | sed -n 's/.*Group descriptors at \([0-9]*\)-.*/\1/p' | head -n1)
[ "$(grep -E '^[OM] ' "$BP_TMPDIR/new")" = "O gdt 0 0 $((2 - gdt)) 2 0 at=8192" ] ||
	bp_fail "new layout: metadata"
bp_grep '^events 7 5 3$' "$BP_TMPDIR/new"
awk '/^F /{p=$6} /^R /{print p, $4}' "$BP_TMPDIR/new" | sort -u >"$BP_TMPDIR/times"
bp_grep '^/usr/lib/systemd/systemd 200000$' "$BP_TMPDIR/times"
# same microsecond as its add event: kept in line order, 1 ns later
bp_grep '^/etc/ld.so.cache 100000001$' "$BP_TMPDIR/times"
bp_grep '^/etc/passwd 200000000$' "$BP_TMPDIR/times"

# Physical offsets match the image's bytes.
awk '/^F /{p=$6} /^R /{print p, $2, $3, $5}' "$BP_TMPDIR/new" |
while read -r path off len phys; do
	debugfs -R "dump $path $BP_TMPDIR/f" "$img" >/dev/null 2>&1
	cmp <(dd if="$img" bs=4096 iflag=skip_bytes,count_bytes skip="$phys" count="$len" \
		status=none) \
	    <(dd if="$BP_TMPDIR/f" bs=4096 iflag=skip_bytes,count_bytes skip="$off" \
		count="$len" status=none) || bp_fail "$path $off+$len: wrong physical offset"
done

# Two devices: refused and listed without --dev; --dev picks one.
tr_render "$data/new-layout.txt.in" "$img" "$BP_TMPDIR/two.txt"
echo "  cat-7 [000] ..... 12.0: mm_filemap_add_to_page_cache: dev 8:2 ino 1c pfn=0x1 ofs=0 order=0" \
	>>"$BP_TMPDIR/two.txt"
bp_expect_exit 4 "$BOOTPACK" trace --import "$BP_TMPDIR/two.txt" -o "$BP_TMPDIR/two" \
	--device "$img"
bp_grep 'from 2 block devices.*--dev' "$BP_TMPDIR/err"
bp_grep '^  8:1$' "$BP_TMPDIR/err"
bp_grep '^  8:2$' "$BP_TMPDIR/err"
[ ! -e "$BP_TMPDIR/two" ] || bp_fail "refused import wrote a trace"
bp_expect_exit 0 "$BOOTPACK" trace --import "$BP_TMPDIR/two.txt" -o "$BP_TMPDIR/two" \
	--device "$img" --dev 8:1
diff <(grep -E '^[MFR] ' "$BP_TMPDIR/new") <(grep -E '^[MFR] ' "$BP_TMPDIR/two") ||
	bp_fail "--dev 8:1 must give the same trace"
bp_expect_exit 2 "$BOOTPACK" trace --import "$BP_TMPDIR/two.txt" -o "$BP_TMPDIR/x" \
	--device "$img" --dev 8
bp_grep "expected MAJOR:MINOR" "$BP_TMPDIR/err"

# Corrupt text traces: line number and reason, exit 3, nothing written.
bp_expect_exit 3 "$BOOTPACK" trace --import "$data/corrupt.txt" -o "$BP_TMPDIR/c" --device "$img"
bp_grep 'corrupt.txt:4: not a trace event line' "$BP_TMPDIR/err"
bp_expect_exit 3 "$BOOTPACK" trace --import "$data/corrupt-field.txt" -o "$BP_TMPDIR/c" \
	--device "$img"
bp_grep "corrupt-field.txt:3: bad or missing 'ino'" "$BP_TMPDIR/err"
bp_expect_exit 3 "$BOOTPACK" trace --import "$BP_TMPDIR/none.txt" -o "$BP_TMPDIR/c" \
	--device "$img"
bp_grep 'none.txt: cannot open' "$BP_TMPDIR/err"
[ ! -e "$BP_TMPDIR/c" ] || bp_fail "a corrupt import wrote a trace"

# Resolution only reads the image.
cmp "$img" "$BP_TMPDIR/before.img" || bp_fail "import changed the image"
