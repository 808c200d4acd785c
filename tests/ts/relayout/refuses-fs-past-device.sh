#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# relayout refuses a filesystem larger than the block device holding it
# (issue 37), dry run or not, exit 4, the message naming both sizes and the
# fix, nothing written: a loop device shorter than the filesystem (losetup
# --sizelimit), and the root partition of an MBR disk image as a loop
# device (its extent: --offset, --sizelimit) with a second partition right
# behind it, whose bytes
# stay the same and whose e2fsck -fn stays clean. The filesystem claims
# 128 MiB and its free second half is where the region goes (rl_overgrown):
# before the check, relayout wrote past the end of the device. e2fsck -fn
# exits 0 on such a device ("Abort? no"), so the loop's boot 2, which runs
# it first, relied on relayout alone (boot/relayout-root-faults).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_root
bp_require_cmd debugfs dumpe2fs resize2fs losetup sfdisk mke2fs e2fsck

img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
rl_overgrown "$img"
bp_fsck_clean "$img"
s0=$(rl_sum "$img")
msg() { echo "the filesystem is 134217728 bytes \\(32768 blocks of 4096\\) but the device holds only 67108864: grow the partition or resize2fs the filesystem first"; }

# a loop device shorter than the filesystem
bp_loop_attach "$img" loopdev --sizelimit 64M
for dry in -n ""; do
	bp_expect_exit 4 "$BOOTPACK" relayout $dry -z "$BP_TMPDIR/u" --trace "$BP_TMPDIR/t" "$loopdev"
	bp_grep "^bootpack relayout: $loopdev: $(msg)\$" "$BP_TMPDIR/err"
	[ ! -e "$BP_TMPDIR/u" ] || bp_fail "a refused run left an undo file"
done
bp_loop_detach "$loopdev" "$img"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "a refused run changed the image behind the loop device"

# an MBR partition (64 MiB) holding the filesystem's first 64 MiB, a second
# partition with an ext4 of its own right behind it
disk=$BP_TMPDIR/disk.img
truncate -s 130M "$disk"
sfdisk -q "$disk" >/dev/null <<-EOS || bp_fail "sfdisk $disk"
	label: dos
	start=2048, size=131072, type=83
	start=133120, size=131072, type=83
EOS
dd if="$img" of="$disk" bs=1M seek=1 count=64 conv=notrunc,sparse status=none
mke2fs -q -F -t ext4 -L second -E offset=$((65 * 1048576)) "$disk" 64M || bp_fail "mke2fs of partition 2"
p2() { dd if="$disk" bs=1M skip=65 count=64 status=none; }
s2=$(p2 | sha256sum)
d0=$(rl_sum "$disk")
# the partition as a device of its own (losetup -P needs a partition scan
# that containers often lack; an offset and a size limit are the same extent)
bp_loop_attach "$disk" loopdev --offset 1M --sizelimit 64M
for dry in -n ""; do
	bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$BP_TMPDIR/t" "$loopdev"
	bp_grep "^bootpack relayout: $loopdev: $(msg)\$" "$BP_TMPDIR/err"
done
bp_loop_detach "$loopdev" "$disk"
[ "$(p2 | sha256sum)" = "$s2" ] || bp_fail "partition 2's bytes changed"
p2 >"$BP_TMPDIR/part2.img"
rl_fsck_silent "$BP_TMPDIR/part2.img"
[ "$(rl_sum "$disk")" = "$d0" ] || bp_fail "a refused run changed the disk image"
exit 0
