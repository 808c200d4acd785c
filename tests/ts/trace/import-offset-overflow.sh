#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An imported filemap event whose offset is near 2^64 (ofs=18446744073709547520)
# does not wrap into an empty range reported as "out of memory" (exit 1): it is
# a corrupt trace (exit 3) with its line named, and nothing is written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd blkid
img=$(bp_fixture ext4)
for ev in "mm_filemap_fault: dev=8:1 ino=c ofs=18446744073709547520" \
	"mm_filemap_add_to_page_cache: dev 8:1 ino c pfn=0x1234 ofs=18446744073709547520 order=2" \
	"mm_filemap_get_pages: dev=8:1 ino=c ofs=9223372036854775808-9223372036854779903"; do
	printf '# tracer: nop\n#\n          init-1     [000] .....    11.000400: %s\n' "$ev" \
		>"$BP_TMPDIR/t.txt"
	bp_expect_exit 3 "$BOOTPACK" trace --import "$BP_TMPDIR/t.txt" -o "$BP_TMPDIR/imported" \
		--device "$img"
	bp_grep "t.txt:3: offset beyond the largest file size in a filemap event" "$BP_TMPDIR/err"
	! grep -q "out of memory" "$BP_TMPDIR/err" || bp_fail "reported as out of memory"
	[ ! -e "$BP_TMPDIR/imported" ] || bp_fail "a trace was written"
done
exit 0
