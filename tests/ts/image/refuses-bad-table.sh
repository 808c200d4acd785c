#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image refuses disk images whose table would make it relay out
# the wrong filesystem or write across partitions (issue 37, red team), exit
# 4 with a message naming the partitions and the fix, the image unchanged:
#  - an MBR image cut short inside its root partition (labelled root): the
#    partition was skipped and the other ext4, with bootpack installed, was
#    relaid out as "the only ext" on 12884de (exit 0);
#  - an MBR table whose partition 2 starts inside the root (sfdisk refuses
#    to write one; the entry is patched in): relaid out on 12884de;
#  - a GPT image whose root-type partition holds no ext4 and whose other
#    partition, an ext4 with bootpack installed, is not the root: relaid out
#    on 12884de;
#  - a qcow2 file: named as such, with the conversion to do (12884de: "no
#    filesystem signature ... nor a disk image with a partition table").
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs sfdisk mke2fs python3

root=$BP_TMPDIR/root-a.img
img_root "$root"
t=$root.trace
mib=$(($(stat -c %s "$root") / 1048576))	# 128
# refused IMG ERE: exit 4, the message, nothing written
refused() {
	local s0
	s0=$(rl_sum "$1")
	bp_expect_exit 4 "$BOOTPACK" image --trace "$t" "$1"
	bp_grep "$2" "$BP_TMPDIR/err"
	[ "$(rl_sum "$1")" = "$s0" ] || bp_fail "$1: a refused run changed it"
	ls "$1".bootpack-undo* >/dev/null 2>&1 && bp_fail "$1: a refused run wrote an undo file"
	return 0
}

# cut short inside the root: partition 1 the fixture (bootpack installed),
# partition 2 an ext4 labelled root, the file ending 8 MiB into it
disk=$BP_TMPDIR/cut.img
truncate -s $(((1 + mib + 32 + 1) * 1048576)) "$disk"
sfdisk -q "$disk" >/dev/null <<-EOS || bp_fail "sfdisk $disk"
	label: dos
	start=2048, size=$((mib * 2048)), type=83
	start=$(((1 + mib) * 2048)), size=65536, type=83
EOS
dd if="$root" of="$disk" bs=1M seek=1 conv=notrunc,sparse status=none
mke2fs -q -F -t ext4 -L root -E offset=$(((1 + mib) * 1048576)) "$disk" 32M || bp_fail "mke2fs"
truncate -s $(((1 + mib + 8) * 1048576)) "$disk"
refused "$disk" "^bootpack image: $disk: partition 2 \\(bytes $(((1 + mib) * 1048576)) to $(((1 + mib + 32) * 1048576))\\) ends past the end of the file \\($(((1 + mib + 8) * 1048576)) bytes\\): the image is cut short; restore it whole, or fix its partition table\$"

# overlapping: partition 2 starts 64 MiB into the root
disk=$BP_TMPDIR/overlap.img
truncate -s $(((1 + mib + 1) * 1048576)) "$disk"
sfdisk -q "$disk" >/dev/null <<-EOS || bp_fail "sfdisk $disk"
	label: dos
	start=2048, size=$((mib * 2048)), type=83
EOS
python3 - "$disk" $((65 * 2048)) $(((mib - 64) * 2048)) <<-'PY'
	import struct, sys
	with open(sys.argv[1], "r+b") as f:
	    f.seek(446 + 16)
	    f.write(struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", int(sys.argv[2]), int(sys.argv[3])))
PY
dd if="$root" of="$disk" bs=1M seek=1 conv=notrunc,sparse status=none
sfdisk -d "$disk" 2>/dev/null | grep -q "start= *133120" || bp_fail "the overlapping entry was not written"
refused "$disk" "^bootpack image: $disk: the root, partition 1 \\(bytes 1048576 to $(((1 + mib) * 1048576))\\), overlaps partition 2 \\(bytes $((65 * 1048576)) to $(((1 + mib) * 1048576))\\): a write to one would change the other; fix the partition table first\$"

# the root type on a partition without ext4; the other ext4 is not the root
disk=$BP_TMPDIR/roottype.img
img_gpt "$disk" "$root" "$IMG_LINUX_TYPE" >/dev/null	# partition 2 the fixture, of type Linux
sfdisk -q --part-type "$disk" 1 "$IMG_ROOT_TYPE" >/dev/null 2>&1 || bp_fail "sfdisk --part-type"
refused "$disk" "^bootpack image: $disk: partition 1 has the root partition type but holds no filesystem, not ext2/3/4 \\(partition 2, found by only-ext, is not the root\\)"
# named with --root-label, it is the root
bp_expect_exit 0 "$BOOTPACK" image --root-label bp-ext4 --trace "$t" "$disk"
bp_grep "^$disk: root is partition 2 \\(ext4, gpt table, found by label\\)" "$BP_TMPDIR/out"

# a qcow2 file (its header's magic: no qemu-img needed)
disk=$BP_TMPDIR/disk.qcow2
{ printf 'QFI\373\0\0\0\3'; head -c $((1048576 - 8)) /dev/zero; } >"$disk"
refused "$disk" "^bootpack image: $disk: is a qcow2 image, not a raw disk image: convert it first \\(qemu-img convert -O raw $disk IMAGE.raw\\)"
exit 0
