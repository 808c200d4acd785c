#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Relayout of the boot set on ext4: e2fsck clean, every file unchanged,
# one stream (0 discontiguities), idempotent, e2undo restores the image.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs e2fsck e2undo dumpe2fs blkid
rl_full_check ext4
exit 0
