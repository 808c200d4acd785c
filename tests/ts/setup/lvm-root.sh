#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The loop on the roots laptops have: an LVM logical volume, and LVM on LUKS
# (dm-crypt, a keyfile for the passphrase), each made on a loop device of an
# image of our own with a volume group of a unique name. Setup on the tree
# mounted from the logical volume finds the device-mapper device and its
# UUID; boot 2's relayout-root.sh (in a mount namespace with a tmpfs /run,
# as the initramfs runs it once cryptroot and lvm2 are done:
# boot/initramfs-order-lvm.sh) relays out /dev/mapper/VG-root; the boot
# event takes the pack and the undo file into the state directory on the
# volume; bootpack-read reads the pack through the volume (its metadata
# from the dm device). Oracles: e2fsck -fn clean and every file's SHA-256
# the same after the relayout, e2undo with the undo file giving the volume
# back, and mincore: every packed page resident after the reader. Always
# torn down (umount, lvchange -an, vgremove, cryptsetup close, losetup -d).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd pvcreate vgcreate lvcreate lvchange vgremove dmsetup unshare e2undo
dmsetup version >"$BP_TMPDIR/dm.out" 2>&1 ||
	bp_skip "the running kernel has no device-mapper (dmsetup version: $(grep -m 1 -iE 'fail|no such' "$BP_TMPDIR/dm.out")): LVM and LUKS roots cannot be made here"
mincore=$top_builddir/tests/ts/reader/bp-mincore
[ -x "$mincore" ] || bp_fail "no $mincore (make check builds it)"
script=$top_builddir/boot/relayout-root.sh
[ -f "$script" ] || bp_fail "$script is not built"
lvmcfg='activation { udev_sync = 0 udev_rules = 0 } devices { obtain_device_list_from_udev = 0 }'
ROOT=$BP_TMPDIR/root
files="/usr/lib/x/f1 /usr/lib/x/f3.2 /usr/lib/x/f2.2 /usr/lib/x/f4"

# boot2 DEV: relayout-root.sh as the initramfs runs it; its /run/bootpack left in $BP_TMPDIR/run
boot2() {
	rm -rf "$BP_TMPDIR/run"
	mkdir -p "$BP_TMPDIR/run"
	echo quiet >"$BP_TMPDIR/cmdline"
	: >"$BP_TMPDIR/console"
	mkdir -p "$BP_TMPDIR/bin"
	ln -sf "$BOOTPACK" "$BP_TMPDIR/bin/bootpack"	# where the initramfs has it, in PATH
	PATH=$BP_TMPDIR/bin:$PATH timeout -s KILL 300 unshare -m --propagation private bash -c '
		set -e
		T=$1 script=$2 dev=$3
		mount -t tmpfs -o size=64m none /run
		mount --bind "$T/cmdline" /proc/cmdline
		mount --bind "$T/console" /dev/console
		sh "$script" "$dev" </dev/null >"$T/script.out" 2>&1
		cp -a /run/bootpack/. "$T/run/" 2>/dev/null || :
	' sh "$BP_TMPDIR" "$script" "$1" || { cat "$BP_TMPDIR/script.out"; bp_fail "boot 2 on $1 failed"; }
}

# loop_on KIND: the whole loop on a root of KIND (lvm, luks)
loop_on() {
	local kind=$1 img=$BP_TMPDIR/$1.img loopdev pv vg=bpt$$$1 key=$BP_TMPDIR/key lv uuid f
	truncate -s 256M "$img"
	bp_loop_attach "$img" loopdev
	pv=$loopdev
	if [ "$kind" = luks ]; then
		head -c 64 /dev/urandom >"$key"
		cryptsetup luksFormat --batch-mode --type luks2 --pbkdf pbkdf2 \
			--pbkdf-force-iterations 1000 --key-file "$key" "$loopdev" ||
			bp_fail "cryptsetup luksFormat $loopdev"
		cryptsetup open --key-file "$key" "$loopdev" "$vg-crypt" || bp_fail "cryptsetup open"
		bp_on_exit "cryptsetup close '$vg-crypt'"
		pv=/dev/mapper/$vg-crypt
	fi
	lvm_() { "$@" --config "$lvmcfg" --devices "$pv"; }
	lvm_ pvcreate -q "$pv" || bp_fail "pvcreate $pv"
	lvm_ vgcreate -q "$vg" "$pv" || bp_fail "vgcreate $vg"
	bp_on_exit "vgremove -f --config '$lvmcfg' --devices '$pv' '$vg'"
	bp_on_exit "lvchange -an --config '$lvmcfg' --devices '$pv' '$vg'"
	lvm_ lvcreate -q -y -L 160M -n root "$vg" || bp_fail "lvcreate $vg/root"
	lv=/dev/mapper/$vg-root
	[ -b "$lv" ] || bp_fail "no $lv after lvcreate"
	mke2fs -q -F -t ext4 "$lv"
	uuid=$(blkid -p -s UUID -o value "$lv")

	# the tree on the volume: bootpack, the loop's pieces, files in two fragments each
	bp_mount "$lv" "$ROOT"
	tree_install
	mkdir -p "$ROOT/usr/lib/x" "$ROOT/var/lib/bootpack"
	for f in 1 2 3 4; do
		head -c $((512 * 1024)) /dev/urandom >"$ROOT/usr/lib/x/f$f"
		head -c $((256 * 1024)) /dev/urandom >"$ROOT/usr/lib/x/pad$f"
	done
	rm -f "$ROOT"/usr/lib/x/pad*
	for f in 1 2 3 4; do cat "$ROOT/usr/lib/x/f$f" >>"$ROOT/usr/lib/x/f$f.2"; done
	sync
	bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --probe never --region-size 32M
	bp_grep "^Root filesystem: /dev/(dm-[0-9]+|mapper/$vg-root) \(ext4, UUID=$uuid\)" "$BP_TMPDIR/out"
	bp_grep "^device=UUID=$uuid\$" "$ROOT/var/lib/bootpack/loop"
	# boot 1: its trace (as bootpack trace --from-boot would save it), first reads a
	# second apart (the automatic budget is what the disk streams in the boot's time)
	bash "$top_srcdir/tests/mktrace.sh" "$lv" "$ROOT/var/lib/bootpack/trace" \
		/usr/lib/x/f1:0:all:1000000000 /usr/lib/x/f3.2:0:all:2000000000 \
		/usr/lib/x/f2.2:0:all:3000000000 /usr/lib/x/f4:0:all:4000000000
	bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event traced
	bp_grep '^phase=relayout$' "$ROOT/var/lib/bootpack/loop"
	umount "$ROOT"
	bp_hash_files "$lv" >"$BP_TMPDIR/files.before"
	dd if="$lv" of="$BP_TMPDIR/before.img" bs=1M status=none

	# boot 2: the relayout of the volume by its device-mapper name
	boot2 "$lv"
	status=$(cat "$BP_TMPDIR/run/relayout.status" 2>/dev/null || true)
	[[ $status =~ ^done\ in\ [0-9]+\ s$ ]] ||
		{ cat "$BP_TMPDIR/script.out" "$BP_TMPDIR/run/relayout.log"; bp_fail "$kind: relayout status '$status'"; }
	bp_fsck_clean "$lv"
	bp_hash_files "$lv" >"$BP_TMPDIR/files.after"
	diff -u "$BP_TMPDIR/files.before" "$BP_TMPDIR/files.after" ||
		bp_fail "$kind: the relayout changed file contents"
	cp "$BP_TMPDIR/run/relayout.e2undo" "$BP_TMPDIR/undo"
	# the undo file gives the volume back as it was before the relayout (on a copy)
	dd if="$lv" of="$BP_TMPDIR/after.img" bs=1M status=none
	e2undo "$BP_TMPDIR/undo" "$BP_TMPDIR/after.img" >/dev/null || bp_fail "$kind: e2undo"
	cmp -s "$BP_TMPDIR/after.img" "$BP_TMPDIR/before.img" ||
		bp_fail "$kind: e2undo with the undo file did not give the volume back"
	rm -f "$BP_TMPDIR/after.img" "$BP_TMPDIR/before.img"

	# the boot event, root mounted: pack and undo file into the state directory on the volume
	bp_mount "$lv" "$ROOT"
	mkdir -p "$ROOT/run/bootpack"
	cp "$BP_TMPDIR/run/relayout.status" "$BP_TMPDIR/run/pack" "$BP_TMPDIR/run/relayout.e2undo" \
		"$ROOT/run/bootpack/"
	bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
	bp_grep '^phase=read$' "$ROOT/var/lib/bootpack/loop"
	cmp "$BP_TMPDIR/undo" "$ROOT/var/lib/bootpack/relayout-root.e2undo" ||
		bp_fail "$kind: the undo file is not in the state directory"
	rm -rf "$ROOT/run"

	# a read boot: bootpack-read through the volume, every packed page comes in
	bp_cache_hold
	for f in $files; do
		dd if="$ROOT$f" iflag=nocache count=0 status=none
	done
	bp_expect_exit 0 "$top_builddir/bootpack-read" --no-exec --root "$ROOT" \
		--pack "$ROOT/var/lib/bootpack/pack" --log=stderr
	for f in $files; do
		[ "$("$mincore" -m "$ROOT$f" 0 "$(stat -c %s "$ROOT$f")")" = 0 ] ||
			{ cat "$BP_TMPDIR/err"; bp_fail "$kind: $f not read into the page cache by bootpack-read"; }
	done
	bp_info "$kind: relayout $status, $(wc -l <"$BP_TMPDIR/files.after") files the same, read back whole"
	umount "$ROOT"
	bp_fsck_clean "$lv"
}

loop_on lvm
if command -v cryptsetup >/dev/null && dmsetup targets | grep -q '^crypt'; then
	loop_on luks
else
	bp_info "no cryptsetup or no dm-crypt in this kernel: LUKS+LVM not tried"
fi
exit 0
