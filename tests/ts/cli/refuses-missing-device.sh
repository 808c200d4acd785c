#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A device that does not exist: exit 1 and the path named.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

bp_expect_exit 1 "$BOOTPACK" relayout --trace /dev/null "$BP_TMPDIR/nonexistent.img"
bp_grep "nonexistent.img: No such file or directory" "$BP_TMPDIR/err"
bp_expect_exit 1 "$BOOTPACK" relayout --trace /dev/null /dev/null
bp_grep "neither a block device nor an image file" "$BP_TMPDIR/err"
# A directory stands for the filesystem mounted there, so it must be a mount point.
bp_expect_exit 1 "$BOOTPACK" relayout --trace /dev/null /proc/self
bp_grep "/proc/self: a directory, not a mount point" "$BP_TMPDIR/err"
exit 0
