#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut at every write (up to 60 in the suite) of a relayout on ext4 with inline_data (tiny
# files have no blocks to move): e2fsck -p preens, e2fsck -fn is then clean, every file unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
crash_points ext4-inline --sample 60
exit 0
