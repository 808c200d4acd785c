#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# image-boot (the traced boot of 'bootpack image') refuses what it cannot
# boot, quickly and without writing to the image: a root with no kernel in
# /boot (exit 3, "no kernel"), a kernel without its initramfs (exit 3), a
# boot that does not end within --timeout (exit 3, the console log named;
# QEMU stood in for by a script that never powers off), no ext4 at --offset
# and bad arguments (exit 1). Oracle: the image's SHA-256, before and after.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

DRIVER=$top_srcdir/image/image-boot.sh
IMG=$BP_TMPDIR/disk.img
OFF=$((1024 * 1024))
T=$BP_TMPDIR/tree

# a disk image with a root filesystem at 1 MiB, /boot holding no kernel
mkdir -p "$T/boot" "$T/etc/kernel"
echo 'CONFIG_FTRACE=y' >"$T/boot/config-6.1.0-test-amd64"
echo 'root=UUID=x ro quiet' >"$T/etc/kernel/cmdline"
truncate -s 48M "$IMG"
mke2fs -q -F -t ext4 -E offset=$OFF -d "$T" "$IMG" 32M
sha=$(sha256sum <"$IMG")

start=$(date +%s)
bp_expect_exit 3 bash "$DRIVER" --image "$IMG" --offset $OFF --out "$BP_TMPDIR/t.txt" --timeout 30
bp_grep 'does not boot: no kernel \(/boot/vmlinuz-\*\)' "$BP_TMPDIR/err"
[ $(($(date +%s) - start)) -lt 20 ] || bp_fail "the refusal took more than 20 s"
[ ! -e "$BP_TMPDIR/t.txt" ] && [ ! -e "$BP_TMPDIR/t.txt.env" ] || bp_fail "a refused boot wrote its outputs"
[ "$(sha256sum <"$IMG")" = "$sha" ] || bp_fail "the refusal changed the image"

# a kernel, no initramfs for it
echo 'not a kernel' >"$T/boot/vmlinuz-6.1.0-test-amd64"
mke2fs -q -F -t ext4 -E offset=$OFF -d "$T" "$IMG" 32M
sha=$(sha256sum <"$IMG")
bp_expect_exit 3 bash "$DRIVER" --image "$IMG" --offset $OFF --out "$BP_TMPDIR/t.txt" --timeout 30
bp_grep 'does not boot: no initramfs for the kernel 6.1.0-test-amd64' "$BP_TMPDIR/err"
[ "$(sha256sum <"$IMG")" = "$sha" ] || bp_fail "the refusal changed the image"

# kernel and initramfs there, the boot never ends: the time limit holds
echo 'not an initramfs' >"$T/boot/initrd.img-6.1.0-test-amd64"
mke2fs -q -F -t ext4 -E offset=$OFF -d "$T" "$IMG" 32M
sha=$(sha256sum <"$IMG")
printf '#!/bin/sh\necho "$*" >"%s/qemu-args"\nexec sleep 600\n' "$BP_TMPDIR" >"$BP_TMPDIR/fake-qemu"
chmod 755 "$BP_TMPDIR/fake-qemu"
printf '#!/bin/sh\nexit 0\n' >"$BP_TMPDIR/fake-monitor"
chmod 755 "$BP_TMPDIR/fake-monitor"
start=$(date +%s)
QEMU=$BP_TMPDIR/fake-qemu BOOTPACK_IMAGE_MONITOR=$BP_TMPDIR/fake-monitor \
	bp_expect_exit 3 bash "$DRIVER" --image "$IMG" --offset $OFF --out "$BP_TMPDIR/t.txt" --timeout 3
bp_grep "not done booting within 3 s \(console: $BP_TMPDIR/t.txt.console.log\)" "$BP_TMPDIR/err"
[ $(($(date +%s) - start)) -lt 20 ] || bp_fail "the time limit of 3 s did not hold"
[ ! -e "$BP_TMPDIR/t.txt" ] || bp_fail "a boot that did not end wrote a trace"
[ "$(sha256sum <"$IMG")" = "$sha" ] || bp_fail "the timed-out boot changed the image"
# what QEMU was given: the image's arguments, ours, the image behind an overlay
uuid=$(dumpe2fs -h "$IMG?offset=$OFF" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
bp_grep "-append root=UUID=$uuid ro quiet console=ttyS0 .*trace_event=filemap:mm_filemap_add_to_page_cache,.*block:block_rq_issue" \
	"$BP_TMPDIR/qemu-args"
bp_grep "-drive file=$IMG,if=virtio,format=raw,snapshot=on" "$BP_TMPDIR/qemu-args"

# no filesystem at the offset; usage errors
bp_expect_exit 1 bash "$DRIVER" --image "$IMG" --offset 4096 --out "$BP_TMPDIR/t.txt" --timeout 30
bp_grep 'no ext4 filesystem at byte 4096' "$BP_TMPDIR/err"
bp_expect_exit 1 bash "$DRIVER" --image "$IMG" --offset $OFF --out "$BP_TMPDIR/t.txt"
bp_grep '^usage: image-boot --image IMG --offset BYTES --out TEXTFILE --timeout SECONDS' "$BP_TMPDIR/err"
bp_expect_exit 1 bash "$DRIVER" --image "$IMG" --offset 1M --out "$BP_TMPDIR/t.txt" --timeout 30
bp_expect_exit 1 bash "$DRIVER" --image "$BP_TMPDIR/none.img" --offset 0 --out "$BP_TMPDIR/t.txt" --timeout 30
bp_grep 'cannot read the image' "$BP_TMPDIR/err"
[ "$(sha256sum <"$IMG")" = "$sha" ] || bp_fail "a refusal changed the image"
exit 0
