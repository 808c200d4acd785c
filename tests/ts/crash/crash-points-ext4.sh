#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut at every write (up to 60 in the suite) of a relayout on ext4 (metadata_csum, extents):
# e2fsck -p preens (exit 0/1, allowed messages only), e2fsck -fn is then clean, every file
# unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
crash_points ext4 --sample 60
exit 0
