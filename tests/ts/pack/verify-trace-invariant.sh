#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# verify --pack PACK --trace TRACE: every block the trace read is in the
# pack or cut by its budget, or verify names what is missing and exits 3.
# A pack of the trace passes (requests never below the minimum its layout
# allows); a pack of part of the trace fails and names the file and the
# directory it lacks; a pack the budget cut passes with the cut counted.
# The oracle of the block counts is debugfs (blocks, bmap).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs jq
img=$(bp_fixture ext4)
bs=4096
dir=/etc/systemd/system	# on no traced file's path
dirblk=$(debugfs -R "blocks $dir" "$img" 2>/dev/null | awk '{print $1}')
[ -n "$dirblk" ] || bp_fail "no block for $dir"
# the blocks of /etc/passwd and libbp6 (debugfs): what the trace reads of them
nblk() { debugfs -R "blocks $1" "$img" 2>/dev/null | wc -w; }
npw=$(nblk /etc/passwd) n6=$(nblk /usr/lib/x86_64-linux-gnu/libbp6.so.1)

# A version 1 trace of the fixture as made (no relayout since): its M
# range is named by its owner when verify opens the device.
pk_mktrace "$img" "$BP_TMPDIR/all" -m $((dirblk * bs)):$bs:0 \
	/etc/passwd:0:all:1000000 /usr/lib/x86_64-linux-gnu/libbp6.so.1:0:all:2000000
pk_mktrace "$img" "$BP_TMPDIR/part" /etc/passwd:0:all:1000000

# the pack of the whole trace: everything in it
"$BOOTPACK" pack --trace "$BP_TMPDIR/all" -o "$BP_TMPDIR/pack" "$img" >/dev/null
bp_expect_exit 0 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/pack" --trace "$BP_TMPDIR/all" "$img"
j=$BP_TMPDIR/out
jq -e --argjson d "$((npw + n6))" '.verify.trace | .missing == 0 and
	.blocks_by_owner.dir == {"read": 1, "packed": 1, "cut": 0, "missing": 0} and
	.blocks_by_owner.data.read == $d and .blocks_by_owner.data.packed == $d' "$j" >/dev/null ||
	{ cat "$j"; bp_fail "whole trace: not every block in the pack"; }
jq -e '.verify.trace | .requests >= .min_requests and .min_requests >= 1 and
	.seeks >= .min_seeks' "$j" >/dev/null || { cat "$j"; bp_fail "requests below the minimum"; }
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack" --trace "$BP_TMPDIR/all" "$img"
bp_grep '^  dir +1 read, +1 in the pack' "$BP_TMPDIR/out"
bp_grep '^Requests: +[0-9]+ read requests, [0-9]+ seeks in reading order; the layout allows [0-9]+ requests' \
	"$BP_TMPDIR/out"

# the pack of part of it: libbp6 and the directory are missing, named
"$BOOTPACK" pack --trace "$BP_TMPDIR/part" -o "$BP_TMPDIR/partpack" "$img" >/dev/null
bp_expect_exit 3 "$BOOTPACK" verify --pack "$BP_TMPDIR/partpack" --trace "$BP_TMPDIR/all" "$img"
bp_grep "^  missing: +dir block $dirblk$" "$BP_TMPDIR/out"
bp_grep "^  missing: +data block [0-9]+ of /usr/lib/x86_64-linux-gnu/libbp6.so.1$" "$BP_TMPDIR/out"
bp_grep "blocks the trace .* read are not in the pack .*bootpack pack --trace" "$BP_TMPDIR/err"
bp_expect_exit 3 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/partpack" --trace "$BP_TMPDIR/all" "$img"
jq -e --argjson m "$((1 + n6))" '.verify.trace.missing == $m' "$BP_TMPDIR/out" >/dev/null ||
	{ cat "$BP_TMPDIR/out"; bp_fail "missing blocks: expected $((1 + n6))"; }

# a budget that cuts libbp6: cut, not missing
"$BOOTPACK" pack --trace "$BP_TMPDIR/all" --budget $((2 * bs + npw * bs)) -o "$BP_TMPDIR/cutpack" \
	"$img" >/dev/null
bp_expect_exit 0 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/cutpack" --trace "$BP_TMPDIR/all" "$img"
jq -e '.verify.trace | .missing == 0 and .blocks_by_owner.data.cut > 0' "$BP_TMPDIR/out" \
	>/dev/null || { cat "$BP_TMPDIR/out"; bp_fail "budget cut counted as missing"; }
exit 0
