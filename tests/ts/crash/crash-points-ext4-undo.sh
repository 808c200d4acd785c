#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut during a relayout that writes an undo file: crash_io sits underneath libext2fs's undo
# manager (device and undo file both volatile); the oracle still holds.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
# Sanitizer builds: libext2fs 1.47.0's undo manager leaks its written-block
# bitmap (allocated at the first write, also with `bootpack relayout -z` and
# unix_io); keep LeakSanitizer quiet about that one allocation site only.
echo "leak:ext2fs_alloc_generic_bmap" >"$BP_TMPDIR/lsan.supp"
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$BP_TMPDIR/lsan.supp
# @IMG@: each parallel run gets its own undo file next to its image.
CRASH_ARGS=(--undo @IMG@.e2undo)
CRASH_NAME_SUFFIX=-undo
# ~11500 of the writes go to the undo file. The crash points are the writes
# to the image (an undo-file write cannot change the filesystem); the undo
# file's pending writes are still volatile and cut with the rest.
export BP_CRASH_DEVICE=.img
crash_points ext4 --sample 60
exit 0
