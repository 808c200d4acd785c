#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut during a relayout whose region spans block groups (--region 22000 on
# ext4 with 1 KiB blocks steps over the backup superblock, descriptors and
# reserved GDT blocks of group 3, after moving other files out of it): the
# fixed metadata inside the region is never written, reserved or freed.
# e2fsck -p preens, e2fsck -fn is then clean, every file unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
CRASH_ARGS=(--region 22000)
CRASH_NAME_SUFFIX=-span
crash_points ext4-1k --sample 40
grep -q "evicted [1-9][0-9]* blocks" "$BP_TMPDIR/crash/count.prog" ||
	bp_fail "no eviction happened: $(cat "$BP_TMPDIR/crash/count.prog")"
# The region runs past the start of group 3 (block 24577: backup superblock).
read -r rs rl < <(sed -n 's/.*region \([0-9]*\)+\([0-9]*\);.*/\1 \2/p' "$BP_TMPDIR/crash/count.prog")
[ "${rs:-0}" = 22000 ] && [ $((rs + rl)) -gt 24577 ] ||
	bp_fail "the region does not span groups: $(cat "$BP_TMPDIR/crash/count.prog")"
exit 0
