#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A pack built for 16 KiB pages (bootpack pack --page-size 16K) read on this
# system: the reader adapts, never refuses (the ranges are bytes of files,
# whole pages of the pack's size): it logs the two page sizes and the
# 16 KiB range around the traced 4 KiB is resident afterwards (mincore).
# (Older packs, 128-byte header: readahead-pack/parse/test-pack-parse.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs blockdev
[ "$(getconf PAGESIZE)" = 4096 ] || bp_skip "the case expects 4 KiB pages here"
img=$(bp_fixture ext4)
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mnt=$BP_TMPDIR/mnt
f=/usr/bin/python3
"$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/trace" $f:20480:4096:1000 ||
	bp_fail "mktrace"
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 0 \
	--page-size 16K "$loop" >/dev/null || bp_fail "pack --page-size 16K"

for _ in 1 2 3; do
	rd_cold "$loop"
	[ "$("$RD_HELPERS/bp-mincore" -m "$mnt$f" 16384 16384)" = 4 ] || bp_fail "not cold"
	rd_canary_set
	bp_expect_exit 0 "$READER" --no-exec --log=stderr --config=none --root "$mnt" \
		--method=pread --pack "$BP_TMPDIR/pack"
	cat "$BP_TMPDIR/err"
	miss=$("$RD_HELPERS/bp-mincore" -m "$mnt$f" 16384 16384)
	rd_canary_lost || break
done
bp_grep 'pack built for 16384-byte pages, this system.s are 4096: ranges read as recorded' \
	"$BP_TMPDIR/err"
bp_grep '^bootpack-read: 16384 bytes \(0 metadata\), 1 files, 0 skipped' "$BP_TMPDIR/err"
[ "$miss" = 0 ] || bp_fail "$miss of the 4 pages of [16K, 32K) not resident"
exit 0
