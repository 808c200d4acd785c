# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# img-functions.sh --- helpers shared by the image cases (sourced after
# functions.sh and rl-functions.sh)

# The GPT type GUIDs: an EFI system partition, and the x86-64 root
# (Discoverable Partitions Specification).
IMG_ESP_TYPE=C12A7328-F81F-11D2-BA4B-00A0C93EC93B
IMG_ROOT_TYPE=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709
# shellcheck disable=SC2034  # used by the cases that source this file
IMG_LINUX_TYPE=0FC63DAF-8483-4772-8E79-3D69C8477DE4

# img_root OUT [FSTAB]: an aged ext4 fixture (IMG_FIXTURE: another, e.g.
# "ext4") with bootpack's reader unit installed (what the bootpack package
# puts there), /etc/fstab replaced by the file FSTAB if given, and the trace
# of its boot set in OUT.trace (tests/mktrace.sh, on the bare filesystem:
# same UUID).
img_root() {
	local root
	# shellcheck disable=SC2086  # "--aged ext4": two words
	root=$(bp_fixture ${IMG_FIXTURE:---aged ext4})
	if [ -n "${2:-}" ]; then
		debugfs -w -f - "$root" >/dev/null 2>&1 <<-EOC
			rm /etc/fstab
			write $2 /etc/fstab
		EOC
	fi
	printf '[Unit]\nDescription=test copy of bootpack-read.service\n' >"$BP_TMPDIR/unit"
	debugfs -w -f - "$root" >/dev/null 2>&1 <<-EOC
		mkdir /usr/lib/systemd/system
		write $BP_TMPDIR/unit /usr/lib/systemd/system/bootpack-read.service
	EOC
	debugfs -R "stat /usr/lib/systemd/system/bootpack-read.service" "$root" 2>/dev/null |
		grep -q "Type: regular" || bp_fail "fixture: the unit was not written"
	rl_mktrace "$root" "$1.trace" "${RL_BOOT_FILES[@]}"
	mv "$root" "$1"
}

# img_gpt OUT ROOTFS [ROOTTYPE [FIRST [FIRSTTYPE [LABEL]]]]: a disk image
# with a partition table (LABEL: gpt, the default, or dos): partition 1
# 8 MiB, the file FIRST in it if given (else empty), of type FIRSTTYPE
# (default an ESP); partition 2 ROOTFS, of type ROOTTYPE (default the x86-64
# root); 1 MiB aligned. Prints the root partition's byte offset.
img_gpt() {
	local out=$1 rootfs=$2 type=${3:-$IMG_ROOT_TYPE} first=${4:-} ftype=${5:-$IMG_ESP_TYPE}
	local label=${6:-gpt} size mib
	size=$(stat -c %s "$rootfs")
	mib=$(((size + 1048575) / 1048576))
	truncate -s $(((1 + 8 + mib + 1) * 1048576)) "$out"
	sfdisk -q "$out" >/dev/null <<-EOS || bp_fail "sfdisk $out"
		label: $label
		start=2048, size=16384, type=$ftype
		start=18432, size=$((mib * 2048)), type=$type
	EOS
	[ -z "$first" ] || dd if="$first" of="$out" bs=1M seek=1 conv=notrunc,sparse status=none
	dd if="$rootfs" of="$out" bs=1M seek=9 conv=notrunc,sparse status=none
	echo $((9 * 1048576))
}

# img_part IMG OFFSET SIZE OUT: the partition copied out (e2fsck and
# debugfs take no offset).
img_part() {
	dd if="$1" of="$4" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" conv=sparse \
		status=none
}

# img_overgrown OUT: img_root of the plain ext4 fixture, grown past what
# a 64 MiB partition holds (rl_overgrown).
img_overgrown() {
	IMG_FIXTURE=ext4 img_root "$1"
	rl_overgrown "$1"
}

# img_two OUT ROOTFS LABEL [SECOND]: a disk image (LABEL gpt or dos) whose
# partition 1, the root (x86-64 root type, or 83), is 64 MiB at 1 MiB and
# holds ROOTFS's first 64 MiB, and whose partition 2, right behind it (at
# 65 MiB, 64 MiB long, type Linux), holds a fresh ext4 labelled "second"
# (or the file SECOND). Prints partition 2's offset.
img_two() {
	local out=$1 rootfs=$2 label=$3 rtype=$IMG_ROOT_TYPE ltype=$IMG_LINUX_TYPE
	[ "$label" = gpt ] || { rtype=83; ltype=83; }
	truncate -s $((130 * 1048576)) "$out"
	sfdisk -q "$out" >/dev/null <<-EOS || bp_fail "sfdisk $out"
		label: $label
		start=2048, size=131072, type=$rtype
		start=133120, size=131072, type=$ltype
	EOS
	dd if="$rootfs" of="$out" bs=1M seek=1 count=64 conv=notrunc,sparse status=none
	if [ -n "${4:-}" ]; then
		dd if="$4" of="$out" bs=1M seek=65 count=64 conv=notrunc,sparse status=none
	else
		mke2fs -q -F -t ext4 -L second -E offset=$((65 * 1048576)) "$out" 64M ||
			bp_fail "mke2fs of partition 2"
	fi
	echo $((65 * 1048576))
}
