#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut at every write of a relayout on ext4 (metadata_csum) on a disk with
# 512-byte physical sectors: multi-sector writes may land as any subset of their
# sectors, the 1024-byte superblock included. Relayout's two superblock writes
# change only the first sector (the checksum is kept, relayout/sbwrite.c), so
# no cut may leave a superblock that fails its checksum.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
BP_CRASH_TORN512=1 crash_points ext4
exit 0
