#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden outputs, e2fsprogs style: the text of 'bootpack dump' (a trace and a
# pack) and 'bootpack verify' (--trace before and after relayout, --pack) on
# fixtures is compared line by line with tests/expected/*.out. The fixtures
# are deterministic (fixed UUIDs, times and contents), the traces are made
# by tests/mktrace.sh from debugfs; only the temporary directory and the
# pack's creation time are filtered out (bp_golden). A change of output
# format or of a figure shows here as a diff; when it is intended, rerun
# with BP_GOLDEN_UPDATE=1 and commit the new files with the change.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd debugfs dumpe2fs
# shellcheck disable=SC2054  # PATH:OFFSET:LEN,LEN:... entries: the commas are the format's
BOOT=(/boot/vmlinuz-6.1.0-bootpack /boot/initrd.img-6.1.0-bootpack:0:1048576,4194304:2097152
	/usr/lib/systemd/systemd /usr/lib/x86_64-linux-gnu/libbp1.so.1 /usr/bin/bash /etc/fstab)

for spec in "ext4-aged:--aged ext4" "ext3:ext3"; do
	name=${spec%%:*}
	# shellcheck disable=SC2086  # the fixture's options, split into words on purpose
	img=$(bp_fixture ${spec#*:})
	t=$BP_TMPDIR/$name.trace p=$BP_TMPDIR/$name.pack
	# one metadata range: the root directory's first block
	bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	root=$(debugfs -R "bmap / 0" "$img" 2>/dev/null | tail -n1)
	"$top_srcdir/tests/mktrace.sh" "$img" "$t" -m "$((root * bs)):$bs:0" "${BOOT[@]}" ||
		bp_fail "mktrace"
	bp_expect_exit 0 "$BOOTPACK" dump "$t"
	bp_golden "dump-trace-$name.out" "$BP_TMPDIR/out"
	bp_expect_exit 0 "$BOOTPACK" pack --trace "$t" -o "$p" "$img"
	bp_expect_exit 0 "$BOOTPACK" dump "$p"
	bp_golden "dump-pack-$name.out" "$BP_TMPDIR/out"
	bp_expect_exit 0 "$BOOTPACK" verify --trace "$t" "$img"
	bp_golden "verify-trace-$name.out" "$BP_TMPDIR/out"
	bp_expect_exit 0 "$BOOTPACK" verify --pack "$p" "$img"
	bp_golden "verify-pack-$name.out" "$BP_TMPDIR/out"
	bp_expect_exit 0 "$BOOTPACK" relayout -q --no-undo --trace "$t" "$img"
	bp_expect_exit 0 "$BOOTPACK" verify --trace "$t" "$img"
	bp_golden "verify-trace-$name-relaid.out" "$BP_TMPDIR/out"
done
exit 0
