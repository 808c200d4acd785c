#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image refuses an image in use (exit 4): attached to a loop device
# (through which it may be mounted), naming the device and the fix; the
# image is unchanged. Once detached, the same run succeeds.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_root
bp_require_cmd debugfs sfdisk losetup

img_root "$BP_TMPDIR/root-a.img"
t=$BP_TMPDIR/root-a.img.trace
disk=$BP_TMPDIR/image-in-use-a.img
img_gpt "$disk" "$BP_TMPDIR/root-a.img" >/dev/null
s0=$(rl_sum "$disk")

bp_loop_attach "$disk" loopdev
bp_expect_exit 4 "$BOOTPACK" image --trace "$t" "$disk"
bp_grep "$disk: is in use by the loop device $loopdev .*'losetup -d $loopdev'" "$BP_TMPDIR/err"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a refused run changed the image in use"
ls "$disk".bootpack-undo* >/dev/null 2>&1 && bp_fail "a refused run wrote an undo file"

bp_loop_detach "$loopdev" "$disk"
bp_expect_exit 0 "$BOOTPACK" image --trace "$t" "$disk"
exit 0
