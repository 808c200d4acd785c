#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# image-boot --- the traced boot of 'bootpack image': boot a disk image's own
# kernel and initramfs under QEMU, traced from power-on, until done booting.
#
#   image-boot --image IMG --offset BYTES --out TEXTFILE --timeout SECONDS [--mem MB]
#              [--measure] [--model NAME --filter SO [--scale F]]
#
# IMG is a disk image (or a bare filesystem: --offset 0); the root is the
# ext4 filesystem at byte BYTES. Read from it (debugfs, IMG?offset=BYTES,
# nothing written): the newest /boot/vmlinuz-VERSION, its
# /boot/initrd.img-VERSION and the root's kernel arguments (/etc/kernel/cmdline,
# else the first 'linux' line of /boot/grub/grub.cfg for that kernel).
# QEMU (KVM where /dev/kvm is usable, else TCG; 1 vCPU, MB of memory, no
# network) boots it with the whole image as a virtio disk, its writes in a
# temporary overlay (snapshot=on): IMG is never modified.
#
# Added to the kernel arguments: console=ttyS0, root=UUID of the root,
# trace_event= (the page-cache and block events of bench/boot's traced boot)
# and trace_buf_size=64M. Appended to the image's initramfs (a second cpio
# archive, the image's own untouched): the done-booting monitor of
# bench/boot (bench-monitor.c, started from conf.d before anything reads
# the disk) and a udev rule that sets the disk's read_ahead_kb to 0, as
# bootpack=trace does: a page is read when, and only when, the boot touches
# it. Done booting is the bench's rule (CPU under 5 % and no disk read for
# 2 s); the monitor then writes its report, the kernel log and the trace
# buffer to the second serial port and powers the guest off.
#
# Writes TEXTFILE (the tracefs text of the boot), TEXTFILE.env (dev=MAJ:MIN
# of the root in the guest, done_s=SECONDS, mem_mb=MB, the guest's memory,
# which 'bootpack image' takes as the target's; then kernel=, cmdline=, accel=,
# read_ahead_kb=, wall_s=) and keeps TEXTFILE.console.log and
# TEXTFILE.monitor.log (the monitor's whole report).
#
# --measure (make check-image's timed boots, not 'bootpack image'): no
# page-cache events and readahead left as the image has it; TEXTFILE gets
# the block events (block_rq_insert/issue/complete, 8 MiB buffer), as the
# real-boot bench's measured boots. --model NAME --filter SO [--scale F]: the
# disk served by nbdkit through bench/boot's delay filter SO (the disk model
# NAME, its times multiplied by F) with a copy-on-write overlay (cow filter).
#
# Exit: 0 done booting, trace written; 1 usage or setup error (missing tool,
# unreadable image); 3 the image did not boot (no kernel or initramfs in it,
# root not mounted, not done within SECONDS) -- the message names the
# console log.
#
# Environment: BOOTPACK_IMAGE_MONITOR (the static monitor binary, default
# image-monitor next to this script), QEMU (qemu-system-x86_64),
# BOOTPACK_IMAGE_ACCEL (kvm|tcg, default: kvm if /dev/kvm is usable),
# BOOTPACK_IMAGE_CMDLINE (more kernel arguments).
set -uo pipefail

PROG=image-boot
TRACE_EVENTS=filemap:mm_filemap_add_to_page_cache,filemap:mm_filemap_get_pages,filemap:mm_filemap_map_pages,filemap:mm_filemap_fault,block:block_rq_issue,block:block_rq_complete
TRACE_BUF=64M
BLOCK_EVENTS=block:block_rq_insert,block:block_rq_issue,block:block_rq_complete

usage() {
	echo "usage: $PROG --image IMG --offset BYTES --out TEXTFILE --timeout SECONDS [--mem MB]" >&2
	echo "       [--measure] [--model NAME --filter SO [--scale F]]" >&2
	exit 1
}
die() { echo "$PROG: error: $*" >&2; exit 1; }
noboot() { echo "$PROG: the image does not boot: $*" >&2; exit 3; }

IMG='' OFF='' OUT='' TMO='' MEM=1024 MEASURE=0 MODEL='' FILTER='' SCALE=1
while [ $# -gt 0 ]; do
	case $1 in
	--image|--offset|--out|--timeout|--mem|--model|--filter|--scale)
		[ $# -ge 2 ] || usage
		case $1 in
		--image) IMG=$2 ;;
		--offset) OFF=$2 ;;
		--out) OUT=$2 ;;
		--timeout) TMO=$2 ;;
		--mem) MEM=$2 ;;
		--model) MODEL=$2 ;;
		--filter) FILTER=$2 ;;
		--scale) SCALE=$2 ;;
		esac
		shift 2 ;;
	--measure) MEASURE=1; shift ;;
	-h|--help) sed -n '3,6p' "$0" >&2; exit 0 ;;
	*) echo "$PROG: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$IMG" ] && [ -n "$OFF" ] && [ -n "$OUT" ] && [ -n "$TMO" ] || usage
[[ $OFF =~ ^[0-9]+$ ]] || { echo "$PROG: --offset: not a number of bytes: $OFF" >&2; usage; }
[[ $TMO =~ ^[1-9][0-9]*$ ]] || { echo "$PROG: --timeout: not a number of seconds: $TMO" >&2; usage; }
[[ $MEM =~ ^[1-9][0-9]*$ ]] || { echo "$PROG: --mem: not a number of MiB: $MEM" >&2; usage; }
[ -f "$IMG" ] && [ -r "$IMG" ] || die "cannot read the image $IMG"
[ -d "$(dirname -- "$OUT")" ] || die "no directory for $OUT"
if [ -n "$MODEL" ]; then
	[ -n "$FILTER" ] || { echo "$PROG: --model needs --filter SO (bench/boot's delay filter)" >&2; usage; }
	[ -f "$FILTER" ] || die "no delay filter $FILTER"
	command -v nbdkit >/dev/null 2>&1 || die "nbdkit is missing (apt-get install nbdkit)"
fi

for t in debugfs dumpe2fs; do
	command -v "$t" >/dev/null 2>&1 || die "$t is missing (apt-get install e2fsprogs)"
done

FS="$IMG?offset=$OFF"
dumpe2fs -h "$FS" >/dev/null 2>&1 ||
	die "no ext4 filesystem at byte $OFF of $IMG"
# debugfs -c: catastrophic mode, read-only, bitmaps not read
dfs() { debugfs -c -R "$1" "$FS" 2>/dev/null; }

# ---------------------------------------------------------------- the kernel
KVER=$(dfs "ls -l /boot" | grep -o 'vmlinuz-[^ ]*' | sed 's/^vmlinuz-//' | sort -V | tail -n1)
[ -n "$KVER" ] || noboot "no kernel (/boot/vmlinuz-*) in the root filesystem at byte $OFF of $IMG"
INITRD_NAME=
for n in "initrd.img-$KVER" "initramfs-$KVER.img" "initrd-$KVER"; do
	if dfs "stat /boot/$n" | grep "^Inode:" >/dev/null; then INITRD_NAME=$n; break; fi
done
[ -n "$INITRD_NAME" ] || noboot "no initramfs for the kernel $KVER (/boot/initrd.img-$KVER) in $IMG"

MON=${BOOTPACK_IMAGE_MONITOR:-$(dirname -- "$0")/image-monitor}
[ -x "$MON" ] || die "no done-booting monitor $MON (set BOOTPACK_IMAGE_MONITOR)"
QEMU=${QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null 2>&1 || die "$QEMU is missing (apt-get install qemu-system-x86)"
for t in cpio gzip partx timeout; do
	command -v "$t" >/dev/null 2>&1 || die "$t is missing (apt-get install cpio gzip util-linux coreutils)"
done

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bootpack-image-boot.XXXXXX") || die "mktemp"
QPID=
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

dfs "dump /boot/vmlinuz-$KVER $WORK/vmlinuz" >/dev/null
dfs "dump /boot/$INITRD_NAME $WORK/initrd.img" >/dev/null
[ -s "$WORK/vmlinuz" ] || noboot "cannot read /boot/vmlinuz-$KVER from $IMG"
[ -s "$WORK/initrd.img" ] || noboot "cannot read /boot/$INITRD_NAME from $IMG"

# ---------------------------------------------------------------- arguments
UUID=$(dumpe2fs -h "$FS" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
ARGS=$(dfs "cat /etc/kernel/cmdline" | head -n1)
if [ -z "$ARGS" ]; then
	# the 'linux' line of GRUB's menu for this kernel, its path left out
	ARGS=$(dfs "cat /boot/grub/grub.cfg" | grep -E "^[[:space:]]*linux(efi)?[[:space:]].*vmlinuz-$KVER([[:space:]]|$)" |
		head -n1 | sed -E 's/^[[:space:]]*linux(efi)?[[:space:]]+[^[:space:]]+//')
fi
# root and console are ours; BOOT_IMAGE is GRUB's; quiet/splash stay as the image has them
KEEP=()
rw=
for a in $ARGS; do
	case $a in
	root=*|console=*|BOOT_IMAGE=*|initrd=*|trace_event=*|trace_buf_size=*) ;;
	ro|rw) rw=$a; KEEP+=("$a") ;;
	*) KEEP+=("$a") ;;
	esac
done
# no ro/rw: read-only as GRUB's menu has it, or, when the image names no
# arguments at all (a mkosi GPT image, its root found by partition type),
# read-write as systemd's GPT auto-discovery mounts it (with a read-only
# root and no fstab, no boot of such an image settles)
if [ -z "$rw" ]; then
	if [ -n "$ARGS" ]; then KEEP+=(ro); else KEEP+=(rw); fi
fi
[ $MEASURE = 1 ] && TRACE_EVENTS=$BLOCK_EVENTS TRACE_BUF=8M
CMDLINE="root=UUID=$UUID ${KEEP[*]} console=ttyS0 no_timer_check panic=5 trace_event=$TRACE_EVENTS trace_buf_size=$TRACE_BUF${BOOTPACK_IMAGE_CMDLINE:+ $BOOTPACK_IMAGE_CMDLINE}"

# ---------------------------------------------------------------- initramfs
# The monitor and the readahead rule, as a second archive after the image's
# own (the kernel unpacks concatenated archives in turn). initramfs-tools'
# /init sources conf/conf.d/* once /proc, /sys and /dev are mounted, before
# any script reads the disk.
R=$WORK/extra
mkdir -p "$R/conf/conf.d" "$R/etc/udev/rules.d"
install -m 0755 "$MON" "$R/bootpack-image-monitor"
cat > "$R/conf/conf.d/zz-bootpack-image-boot" <<EOF
# bootpack image-boot: the done-booting monitor (not part of the image)
if [ -x /bootpack-image-monitor ] && [ ! -e /.monitor-ready ]; then
	/bootpack-image-monitor --out /dev/ttyS1 --disk vda --timeout-s $TMO &
fi
EOF
[ $MEASURE = 1 ] || cat > "$R/etc/udev/rules.d/59-bootpack-image-boot.rules" <<'EOF'
# bootpack image-boot: readahead off on the traced disk, as bootpack=trace
ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="vda", ATTR{queue/read_ahead_kb}="0"
EOF
(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$WORK/extra.cpio.gz" ||
	die "cannot build the monitor's archive"
cat "$WORK/initrd.img" "$WORK/extra.cpio.gz" > "$WORK/initrd-traced.img"

# ---------------------------------------------------------------- boot
ACCEL=${BOOTPACK_IMAGE_ACCEL:-}
if [ -z "$ACCEL" ]; then
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then ACCEL=kvm; else ACCEL=tcg; fi
fi
CONSOLE=$OUT.console.log
RESULTS=$OUT.monitor.log
rm -f "$CONSOLE" "$RESULTS" "$OUT" "$OUT.env"
echo "$PROG: booting $(basename -- "$IMG") (kernel $KVER, $ACCEL, at most $TMO s); console: $CONSOLE" >&2
t0=$(date +%s)
QARGS=(-accel "$ACCEL" -smp 1 -m "$MEM" -nodefaults -display none -no-reboot
	-kernel "$WORK/vmlinuz" -initrd "$WORK/initrd-traced.img" -append "$CMDLINE"
	-serial "file:$CONSOLE" -serial "file:$RESULTS")
if [ -z "$MODEL" ]; then
	# the overlay of snapshot=on lives in TMPDIR: the work directory
	TMPDIR=$WORK timeout --kill-after=10 "$TMO" "$QEMU" "${QARGS[@]}" \
		-drive "file=$IMG,if=virtio,format=raw,snapshot=on" > "$WORK/qemu.log" 2>&1 &
else
	# bench/boot's disk model; the writes go to the cow filter's overlay
	printf '%q ' exec timeout --kill-after=10 "$TMO" "$QEMU" "${QARGS[@]}" > "$WORK/run.sh"
	echo '-drive "file=nbd+unix:///?socket=$unixsocket,if=virtio,format=raw"' >> "$WORK/run.sh"
	TMPDIR=$WORK nbdkit -U - --filter="$FILTER" --filter=cow file file="$IMG" \
		model="$MODEL" scale="$SCALE" log="$OUT.disk.log" \
		--run "export unixsocket; bash $WORK/run.sh" > "$WORK/qemu.log" 2>&1 &
fi
QPID=$!
wait "$QPID"
rc=$?
QPID=
wall=$(($(date +%s) - t0))
if [ $rc = 124 ] || [ $rc = 137 ]; then
	noboot "not done booting within $TMO s (console: $CONSOLE)"
fi
[ $rc = 0 ] || noboot "QEMU exited with $rc: $(head -c 300 "$WORK/qemu.log") (console: $CONSOLE)"

# ---------------------------------------------------------------- results
section() { sed -n "/^=== BENCH-BEGIN $1\r\?\$/,/^=== BENCH-END $1\r\?\$/p" "$RESULTS" | sed '1d;$d' | tr -d '\r'; }
grep -q '^=== BENCH-DONE' "$RESULTS" 2>/dev/null ||
	noboot "no done-booting report: the guest powered off or panicked first (console: $CONSOLE)"
summary=$(section summary)
val() { printf '%s\n' "$summary" | sed -n "s/^$1=//p" | head -n1; }
[ "$(val reached)" = 1 ] || noboot "not done booting within $TMO s (console: $CONSOLE)"

# the root's partition in the guest: the one that starts at BYTES
part=vda
if [ "$OFF" != 0 ]; then
	nr=$(partx -g -o NR,START "$IMG" 2>/dev/null | awk -v s=$((OFF / 512)) '$2 == s { print $1; exit }')
	[ -n "$nr" ] || die "no partition of $IMG starts at byte $OFF"
	part=vda$nr
fi
dev=$(section partitions | awk -v p="$part" '$4 == p { print $1 ":" $2; exit }')
[ -n "$dev" ] || noboot "the guest has no $part (console: $CONSOLE)"
section kmsg | grep -a "EXT4-fs ($part): mounted filesystem" >/dev/null ||
	noboot "the root $part was not mounted (console: $CONSOLE)"

section trace > "$OUT.tmp"
[ $MEASURE = 1 ] || grep -q 'mm_filemap_add_to_page_cache' "$OUT.tmp" ||
	{ rm -f "$OUT.tmp"; die "the trace has no page-cache events (monitor log: $RESULTS)"; }
mv "$OUT.tmp" "$OUT"
done_ms=$(val done_ms)
{
	echo "dev=$dev"
	echo "done_s=$(awk -v m="$done_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	echo "mem_mb=$MEM"
	echo "kernel=$KVER"
	echo "accel=$ACCEL"
	echo "read_ahead_kb=$(val read_ahead_kb)"
	echo "wall_s=$wall"
	echo "rd_bytes=$(val rd_bytes)"
	[ -z "$MODEL" ] || echo "model=$MODEL scale=$SCALE"
	echo "cmdline=$CMDLINE"
} > "$OUT.env"
echo "$PROG: done booting at $(sed -n 's/^done_s=//p' "$OUT.env") s (root $part = $dev, $(wc -l < "$OUT") trace lines)" >&2
exit 0
