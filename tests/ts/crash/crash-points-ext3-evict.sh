#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut during a relayout that must first evict other files from its region (--region 6000
# on ext3: the window is full of package files): eviction epoch, then fill epoch. e2fsck -p
# preens, e2fsck -fn is then clean, every file (evicted ones included) unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
CRASH_ARGS=(--region 6000)
CRASH_NAME_SUFFIX=-evict
crash_points ext3 --sample 40
grep -q "evicted [1-9][0-9]* blocks" "$BP_TMPDIR/crash/count.prog" ||
	bp_fail "no eviction happened: $(cat "$BP_TMPDIR/crash/count.prog")"
exit 0
