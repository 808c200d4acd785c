#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image with a trace it cannot use: a corrupt one (exit 3), a
# missing one (3), one of another filesystem (4); the image is unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs sfdisk

img_root "$BP_TMPDIR/root-a.img"
t=$BP_TMPDIR/root-a.img.trace
disk=$BP_TMPDIR/disk-a.img
img_gpt "$disk" "$BP_TMPDIR/root-a.img" >/dev/null
s0=$(rl_sum "$disk")

printf 'bootpack-trace 1\nF garbage\n' >"$BP_TMPDIR/bad.trace"
bp_expect_exit 3 "$BOOTPACK" image --trace "$t" --trace "$BP_TMPDIR/bad.trace" "$disk"
bp_grep "$BP_TMPDIR/bad.trace" "$BP_TMPDIR/err"
bp_expect_exit 3 "$BOOTPACK" image --trace "$BP_TMPDIR/missing.trace" "$disk"
bp_grep "$BP_TMPDIR/missing.trace" "$BP_TMPDIR/err"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a run with a bad trace changed the image"

# A trace of another filesystem (same files, another UUID).
mkdir -p "$BP_TMPDIR/tree/etc"
echo "/dev/vda1 / ext4 defaults 0 1" >"$BP_TMPDIR/tree/etc/fstab"
other=$BP_TMPDIR/other-a.img
mke2fs -q -F -t ext4 -d "$BP_TMPDIR/tree" "$other" 8M
rl_mktrace "$other" "$BP_TMPDIR/other.trace" /etc/fstab
bp_expect_exit 4 "$BOOTPACK" image --trace "$BP_TMPDIR/other.trace" "$disk"
bp_grep 'the trace is of filesystem UUID .* make the trace again on this filesystem' \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a run with a foreign trace changed the image"
ls "$disk".bootpack-undo* >/dev/null 2>&1 && bp_fail "a refused run wrote an undo file"
exit 0
