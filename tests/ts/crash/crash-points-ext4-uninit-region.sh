#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut at every write (up to 60 in the suite) of a relayout into a BLOCK_UNINIT group (512
# MiB uninit_bg image, --region 40000 in group 1): the bitmap must be durable before the
# descriptor that clears BLOCK_UNINIT; e2fsck -p preens, files unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
img=$(crash_sized_fixture ext4-uninit 512M)
dumpe2fs "$img" 2>/dev/null | grep -q '^Group 1: .*BLOCK_UNINIT' ||
	bp_fail "group 1 of $img is not BLOCK_UNINIT"
CRASH_ARGS=(--region 40000)
crash_points_img "$img" ext4-uninit-512M-region --sample 60
exit 0
