#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack-read --no-exec under valgrind (memcheck, full leak check) over a
# real pack on a loop-mounted fixture, with a stale file, with every read
# method: no error, no leak. (Valgrind 3.19 does not know openat2(2): the
# reader's openat() fallback runs there.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd valgrind debugfs losetup readelf
if grep -q '^SAN_CFLAGS = -fsanitize' "$top_builddir/Makefile" 2>/dev/null; then
	bp_skip "valgrind cannot run a sanitizer build"
fi
# --enable-static-reader: valgrind replaces no malloc in a static binary (no
# leak check) and reports static glibc's own start-up and exit paths
readelf -lW "$READER" | grep -q INTERP ||
	bp_skip "a static reader (--enable-static-reader): valgrind checks the dynamic build"

img=$(bp_fixture ext4)
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" /etc/passwd /etc/hostname /usr/bin/bash /etc/group
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt"
echo changed >>"$BP_TMPDIR/mnt/etc/group"
for m in uring pread readahead fadvise; do
	bp_expect_exit 0 valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=all "$READER" --no-exec --log=stderr --config=none \
		--pack "$pack" --root "$BP_TMPDIR/mnt" --method=$m
	cat "$BP_TMPDIR/err"
	bp_grep '^bootpack-read: [1-9][0-9]* bytes .*, 3 files, 1 skipped \(1 stale' "$BP_TMPDIR/err"
	if grep -q '^==' "$BP_TMPDIR/err"; then bp_fail "valgrind reported something"; fi
done
