#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image refuses a root whose ext4 is larger than its partition
# (issue 37): a GPT, then an MBR, disk image whose root partition is 64 MiB
# while its ext4 says 128 MiB, the second half a free run where relayout
# would put its region, and a second partition right behind it holding an
# ext4 of its own. Exit 4, the message names both sizes and the fix;
# nothing is written: partition 2's bytes are unchanged (sha256), its
# e2fsck -fn is clean, the whole image is unchanged, no undo file. Before
# the check, relayout wrote the boot set over partition 2's superblock.
# Without --trace the refusal comes before the boot driver runs.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs e2fsck dumpe2fs sfdisk resize2fs mke2fs

stub=$BP_TMPDIR/image-boot-a
printf '#!/bin/sh\ntouch "%s"\nexit 3\n' "$BP_TMPDIR/driver.ran" >"$stub"
chmod +x "$stub"
root=$BP_TMPDIR/root-a.img
img_overgrown "$root"
t=$root.trace
for label in gpt dos; do
	disk=$BP_TMPDIR/disk-$label.img
	off2=$(img_two "$disk" "$root" "$label")
	p2() { dd if="$disk" bs=1M iflag=skip_bytes skip="$off2" count=64 status=none; }
	s2=$(p2 | sha256sum)
	s0=$(rl_sum "$disk")
	args=(--trace "$t")
	[ "$label" = gpt ] || args+=(--root-label bp-ext4)	# two type-83 ext4
	bp_expect_exit 4 "$BOOTPACK" image "${args[@]}" "$disk"
	bp_grep "bootpack image: $disk \\(partition at byte 1048576\\): the filesystem is 134217728 bytes \\(32768 blocks of 4096\\) but the partition holds only 67108864: grow the partition or resize2fs the filesystem first" "$BP_TMPDIR/err"
	[ "$(p2 | sha256sum)" = "$s2" ] || bp_fail "$label: partition 2's bytes changed"
	p2 >"$BP_TMPDIR/part2.img"
	rl_fsck_silent "$BP_TMPDIR/part2.img"
	[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "$label: a refused run changed the image"
	ls "$disk".bootpack-undo* >/dev/null 2>&1 && bp_fail "$label: a refused run wrote an undo file"
	# without --trace: refused before the boot driver runs (a boot for nothing)
	BOOTPACK_IMAGE_BOOT=$stub bp_expect_exit 4 "$BOOTPACK" image "${args[@]:2}" "$disk"
	bp_grep "but the partition holds only 67108864" "$BP_TMPDIR/err"
	[ ! -e "$BP_TMPDIR/driver.ran" ] || bp_fail "$label: the boot driver ran"
	[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "$label: a refused run changed the image"
done
exit 0
