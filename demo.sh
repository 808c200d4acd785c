#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh --- the main job end to end on the embedded default: a generated,
# aged ext4 image standing in for a lived-in root filesystem.
#
#   trace a boot-like workload  ->  relayout (with an undo file; it writes
#   the pack)  ->  check nothing was lost  ->  bench  ->  bootpack-read with
#   cold caches  ->  e2undo
#
# Needs root (loop devices, mount, tracefs). Everything it makes is under
# $BP_DEMO_DIR (default ./demo); loop devices and mounts are released on exit.
set -euo pipefail
top=$(cd "$(dirname "$0")" && pwd)
bin=${BUILDDIR:-$top}
out=${BP_DEMO_DIR:-$top/demo}
B=$bin/bootpack
export LC_ALL=C E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null

[ "$(id -u)" = 0 ] || { echo "demo.sh: needs root (loop devices, mount, tracefs)"; exit 1; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing

mkdir -p "$out"
img=$out/aged-ext4.img
mnt=$out/mnt
dev=
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	return 0
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

attach_ro() {
	dev=$(losetup --find --show --read-only "$img")
	mkdir -p "$mnt"
	mount -o ro "$dev" "$mnt"
	echo 128 >"/sys/block/${dev#/dev/}/queue/read_ahead_kb"	# the 2008 default
	sync
	echo 3 >/proc/sys/vm/drop_caches
}
detach() {
	umount "$mnt"
	losetup -d "$dev"
	dev=
}
hash_all() {
	local d
	d=$(mktemp -d "$out/rdump.XXXXXX")
	debugfs -R "rdump / $d" "$img" >/dev/null 2>&1
	(cd "$d" && find . -type f -print0 | sort -z | xargs -0r sha256sum)
	rm -rf "$d"
}

step "generating the aged ext4 image (deterministic: fixtures/mkfixture.sh)"
rm -f "$img"
"$top/fixtures/mkfixture.sh" --aged --bindir "$bin/fixtures" ext4 "$img"
"$bin/fixtures/bp-fragreport" "$img"

step "tracing a boot-like workload on the loop-mounted image (cold cache, read_ahead_kb=128)"
attach_ro
m=$mnt
"$B" trace -o "$out/boot.trace" --device "$dev" -- sh -c "
	cat $m/etc/fstab $m/etc/hostname $m/etc/passwd $m/etc/group $m/etc/ld.so.cache
	cat $m/usr/bin/bash $m/etc/bp-pkg*.conf
	find $m/usr/lib/x86_64-linux-gnu -type f -name "*.so*" -exec cat {} +
	cat $m/usr/bin/bp-tool* $m/usr/lib/firmware/regulatory.db
	head -c 2000000 $m/boot/initrd.img-6.1.0-bootpack
	ls -lR $m/etc $m/usr/share/doc" >/dev/null
detach
"$B" dump "$out/boot.trace" | tail -n 1

step "before: contiguity and modelled boot I/O"
"$B" verify --trace "$out/boot.trace" "$img"
"$B" bench --trace "$out/boot.trace" "$img"

step "relayout (offline, crash safe, undoable)"
before=$(hash_all)
cp --sparse=always "$img" "$out/before.img"
"$B" relayout --trace "$out/boot.trace" -z "$out/relayout.e2undo" --pack "$out/pack" "$img"

step "nothing lost: e2fsck -fn and the SHA-256 of every file"
e2fsck -fn "$img" >/dev/null 2>&1 && echo "e2fsck -fn: clean"
after=$(hash_all)
if [ "$before" = "$after" ]; then
	echo "all $(echo "$after" | wc -l) files unchanged"
else
	echo "FILE CONTENT CHANGED"; exit 1
fi

step "after: contiguity and modelled boot I/O"
"$B" verify --trace "$out/boot.trace" "$img"
"$B" bench --trace "$out/boot.trace" "$img"

step "the pack relayout wrote for the new layout"
"$B" verify --pack "$out/pack" "$img"

step "bootpack-read with cold caches, then what is resident"
attach_ro
read_before=$(awk '{print $3}' "/sys/block/${dev#/dev/}/stat")
"$bin/bootpack-read" --no-exec --root "$mnt" --pack "$out/pack" --log stderr
read_after=$(awk '{print $3}' "/sys/block/${dev#/dev/}/stat")
echo "bootpack-read read $(( (read_after - read_before) / 2 )) KiB from $dev"
if command -v fincore >/dev/null; then
	fincore "$mnt/usr/bin/bash" "$mnt/etc/fstab" "$mnt/usr/lib/firmware/regulatory.db"
fi
detach

step "undo: e2undo restores the original image byte for byte"
cp --sparse=always "$img" "$out/undo-check.img"
e2undo "$out/relayout.e2undo" "$out/undo-check.img" >/dev/null
if cmp -s "$out/undo-check.img" "$out/before.img"; then
	echo "e2undo: identical to the image before relayout"
else
	echo "e2undo: IMAGE DIFFERS"; exit 1
fi
rm -f "$out/undo-check.img" "$out/before.img"
echo
echo "demo: done (files in $out)"
