#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut at a sample of the writes of a relayout on an aged ext4-uninit fixture (fragmented
# boot files, depth-1 trees), random subsets and torn writes: e2fsck -p preens, -fn clean, files
# unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
crash_points --aged ext4-uninit --sample 30 --torn-seeds 1
exit 0
