#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-loop.sh --- the whole loop on a real Debian 12 system in QEMU (issue 12)
#
#   check-loop.sh rootfs     Debian 12 tree with initramfs-tools and a Debian kernel installed
#   check-loop.sh image      ext4 image of it with bootpack installed and 'bootpack setup --root' run
#   check-loop.sh boot N     one boot of the image (QEMU TCG, direct kernel boot of the
#                            image's own /boot/vmlinuz and initrd.img), logs in $LB/boot-N
#   check-loop.sh run        everything: image, boots 1-3, host checks, the stale boot 4
#
# LOOP_INSTALL=deb: bootpack goes into the image as the built .deb (DEB=path,
# default: 'make deb' in the harness build) installed with dpkg -i in a chroot,
# instead of make install; its image and boots are $LB/loop-deb.img and
# $LB/deb-boot-N (the make-install ones stay).
#
# Not part of make check or CI: it needs root, debootstrap's mirror (first run),
# qemu-system-x86 and minutes of TCG (make check-loop installs what it needs:
# ./setup.sh deps-loop). Logs under LOOPBENCH_DIR (as root, default
# /var/cache/bootpack/loopbench: bench/boot/env.sh). The tree of BOOTBENCH_DIR
# (the real-boot benchmark's cache) is copied, never modified.
set -euo pipefail

HERE=${LOOP_HERE:-$(cd "$(dirname "$0")" && pwd)}
SRC=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-$SRC}
. "$SRC/bench/boot/env.sh"
LB=$LOOPBENCH_DIR
BB=$BOOTBENCH_DIR
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
IMG_SIZE=${IMG_SIZE:-3G}
MEM=${MEM:-1024}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-1500}
FS_UUID=b0075ac0-b007-4008-8000-000000000012

log() { echo "check-loop: $*" >&2; }
die() { echo "check-loop: error: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || die "run as root (chroot, loop devices, mounts)"; }

CHROOT_MNTS=()
chroot_umount() {
	local i
	for ((i = ${#CHROOT_MNTS[@]} - 1; i >= 0; i--)); do
		umount "${CHROOT_MNTS[$i]}" 2>/dev/null || umount -l "${CHROOT_MNTS[$i]}" 2>/dev/null || true
	done
	CHROOT_MNTS=()
}
chroot_mount() {
	local r=$1 d
	for d in proc sys dev dev/pts; do
		mount --bind "/$d" "$r/$d"
		CHROOT_MNTS+=("$r/$d")
	done
}

# ---------------------------------------------------------------- rootfs
# The bench's debootstrap tree (systemd, udev, the Debian kernel package)
# plus initramfs-tools and Debian's own initrd for its kernel.
do_rootfs() {
	need_root
	[ -f "$LB/rootfs/.done" ] && return 0
	local r=$LB/rootfs.tmp
	mkdir -p "$LB/logs"
	rm -rf "$r"
	if [ -f "$BB/rootfs/.done" ]; then
		log "copying $BB/rootfs"
		cp -a "$BB/rootfs" "$r"
	else
		log "debootstrap $SUITE: several minutes"
		nice -n 10 debootstrap --variant=minbase \
			--include=systemd-sysv,udev,dbus,kmod,procps,e2fsprogs "$SUITE" "$r" "$MIRROR" \
			> "$LB/logs/debootstrap.log" 2>&1 || die "debootstrap: $LB/logs/debootstrap.log"
	fi
	rm -f "$r/.done"
	trap chroot_umount EXIT
	chroot_mount "$r"
	printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
	log "apt-get install initramfs-tools linux-image-amd64 in the tree: log $LB/logs/rootfs-apt.log"
	nice -n 10 chroot "$r" sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update &&
		apt-get -y --no-install-recommends -f install &&
		apt-get install -y --no-install-recommends initramfs-tools e2fsprogs zstd busybox linux-image-amd64 &&
		dpkg --configure -a &&
		for k in $(ls /lib/modules); do update-initramfs -c -k $k || update-initramfs -u -k $k; done' \
		> "$LB/logs/rootfs-apt.log" 2>&1 || die "apt-get in the tree: $LB/logs/rootfs-apt.log"
	rm -f "$r/usr/sbin/policy-rc.d" "$r"/var/cache/apt/archives/*.deb
	echo loopbench > "$r/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tloopbench\n' > "$r/etc/hosts"
	printf '/dev/vda\t/\text4\tdefaults\t0\t1\n' > "$r/etc/fstab"
	chroot_umount
	trap - EXIT
	ls -l "$r/boot" >&2
	mv "$r" "$LB/rootfs"
	touch "$LB/rootfs/.done"
}

# ---------------------------------------------------------------- build
# bootpack built for the guest (prefix /usr), from the files of the source
# tree (tracked and new, not ignored), in $LB/build.
GB=$LB/build
do_build() {
	mkdir -p "$GB"
	(cd "$SRC" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) |
		tar -C "$GB" -xf -
	(
		cd "$GB"
		[ -f configure ] || ./autogen.sh > "$LB/logs/autogen.log" 2>&1
		[ -f Makefile ] || ./configure -q --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
			--with-systemdsystemunitdir=/lib/systemd/system \
			--with-tmpfilesdir=/usr/lib/tmpfiles.d > "$LB/logs/configure.log" 2>&1
		nice -n 10 make -s -j2 bootpack bootpack-read > "$LB/logs/make.log" 2>&1
		nice -n 10 make -s -j2 > "$LB/logs/make.log" 2>&1
	) || die "guest build failed: $LB/logs/"
	if [ "${LOOP_INSTALL:-make}" = deb ] && [ -z "${DEB:-}" ]; then
		log "make deb in $GB: log $LB/logs/deb.log"
		(cd "$GB" && DEB_BUILD_OPTIONS="nocheck parallel=2" nice -n 10 make deb) \
			> "$LB/logs/deb.log" 2>&1 || die "make deb: $LB/logs/deb.log"
	fi
	mkdir -p "$LB/bin"
	gcc -O2 -Wall -Wextra -static -I "$SRC/include" -o "$LB/bin/bench-monitor" "$SRC/bench/boot/guest/bench-monitor.c"
}

# ---------------------------------------------------------------- image
LOOP=
MNT=
cleanup_mount() {
	chroot_umount
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then umount "$MNT" || umount -l "$MNT"; fi
	[ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null || true
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
	MNT='' LOOP=''
}
mount_image() {
	LOOP=$(losetup --find --show "$1")
	MNT=$(mktemp -d "$LB/mnt.XXXXXX")
	mount ${2:+-o "$2"} "$LOOP" "$MNT"
}

# install_bootpack TREE: bootpack into the image's tree, by make install or
# (LOOP_INSTALL=deb) as the .deb; prints the bootpack binary for 'setup --root'
install_bootpack() {
	local t=$1 deb
	if [ "${LOOP_INSTALL:-make}" != deb ]; then
		make -s -C "$GB" install DESTDIR="$t" > "$LB/logs/install.log" 2>&1 ||
			die "make install: $LB/logs/install.log"
		echo "$GB/bootpack"
		return
	fi
	deb=${DEB:-$(compgen -G "$GB/build-deb/bootpack_*_amd64.deb" | head -n1)}
	[ -f "$deb" ] || die "no .deb: set DEB= or let the harness run make deb"
	cp "$deb" "$t/tmp/bootpack.deb"
	chroot_mount "$t"
	# no network in the chroot needed: the dependencies are in the tree
	chroot "$t" sh -c 'DEBIAN_FRONTEND=noninteractive dpkg -i /tmp/bootpack.deb' \
		> "$LB/logs/install.log" 2>&1 || { chroot_umount; die "dpkg -i $deb: $LB/logs/install.log"; }
	chroot_umount
	rm -f "$t/tmp/bootpack.deb"
	log "installed $(basename "$deb") with dpkg -i ($(chroot "$t" dpkg-query -W -f '${Version}' bootpack))"
	# the package's own binary runs setup (it is built for this Debian too)
	rm -rf "$LB/deb-root"
	dpkg-deb -x "$deb" "$LB/deb-root"
	echo "$LB/deb-root/usr/sbin/bootpack"
}

do_image() {
	need_root
	do_rootfs
	do_build
	local img=${IMG:-$LB/loop.img} bp
	rm -f "$img" "$img.tmp"
	truncate -s "$IMG_SIZE" "$img.tmp"
	mke2fs -q -F -t ext4 -L loopbench -U "$FS_UUID" "$img.tmp"
	trap cleanup_mount EXIT
	mount_image "$img.tmp"
	log "image: copying the tree, installing bootpack (${LOOP_INSTALL:-make}), bootpack setup --root"
	(cd "$LB/rootfs" && tar --exclude=./.done -cf - .) | tar -C "$MNT" -xf -
	bp=$(install_bootpack "$MNT")
	# the harness's own pieces: done-booting monitor, the guest driver
	install -m 755 "$LB/bin/bench-monitor" "$MNT/usr/local/sbin/bench-monitor"
	install -m 755 "$HERE/guest/loopbench-guest" "$MNT/usr/local/sbin/loopbench-guest"
	install -m 644 "$HERE/guest/loopbench-guest.service" "$MNT/etc/systemd/system/"
	ln -sf /etc/systemd/system/loopbench-guest.service \
		"$MNT/etc/systemd/system/multi-user.target.wants/loopbench-guest.service"
	install -m 755 "$HERE/guest/hook-monitor" "$MNT/etc/initramfs-tools/hooks/loopbench-monitor"
	install -m 755 "$HERE/guest/init-top-monitor" \
		"$MNT/etc/initramfs-tools/scripts/init-top/loopbench-monitor"
	# a package of the boot path, for the stale boot (no network in the guest)
	# (world-readable: apt fetches local .debs as the _apt user)
	mkdir -p "$MNT/srv/loopbench" "$LB/debs"
	local v
	v=$(chroot "$MNT" dpkg-query -W -f '${Version}' libkmod2)
	[ -f "$LB/debs/libkmod2_${v}_amd64.deb" ] ||
		(cd "$LB/debs" && apt-get download "libkmod2=$v" > /dev/null 2>&1) ||
		die "apt-get download libkmod2=$v"
	cp "$LB/debs/libkmod2_${v}_amd64.deb" "$MNT/srv/loopbench/"
	"$bp" setup --root "$MNT" > "$LB/logs/setup.log" 2>&1 ||
		{ cat "$LB/logs/setup.log" >&2; die "bootpack setup --root failed"; }
	cat "$LB/logs/setup.log" >&2
	chroot_mount "$MNT"
	chroot "$MNT" update-initramfs -u -k all > "$LB/logs/update-initramfs.log" 2>&1 ||
		die "update-initramfs: $LB/logs/update-initramfs.log"
	cleanup_mount
	trap - EXIT
	e2fsck -fn "$img.tmp" > "$LB/logs/image-fsck.log" 2>&1 || die "e2fsck -fn: $LB/logs/image-fsck.log"
	mv "$img.tmp" "$img"
	log "image: $img ready"
}

# ---------------------------------------------------------------- boot
# hashes IMG OUT: "sha256 mtime path" of every regular file, from a read-only
# mount of the image (noload: the journal is not replayed, nothing written).
hashes() {
	trap cleanup_mount EXIT
	mount_image "$1" ro,noload
	(cd "$MNT" && find . -xdev -type f -printf '%T@ %p\n' > "$2.mtime" &&
		find . -xdev -type f -print0 | nice -n 10 xargs -0 -n 500 sha256sum > "$2.sha")
	cleanup_mount
	trap - EXIT
	awk 'NR == FNR { m[substr($0, index($0, " ") + 1)] = $1; next }
	     { p = substr($0, 67); print $1, m[p], p }' "$2.mtime" "$2.sha" | sort -k3 > "$2"
	rm -f "$2.mtime" "$2.sha"
}

kver() { debugfs -c -R "ls -l /boot" "$1" 2>/dev/null | grep -o 'vmlinuz-[^ ]*' | sed 's/vmlinuz-//' | sort -V | tail -n1; }

# boot N [--kill-at PATTERN [--kill-delay S]]: one boot; logs in $LB/boot-N
do_boot() {
	need_root
	local n=$1 img=${IMG:-$LB/loop.img} out kill_at='' kill_delay=0 k args
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--kill-at) kill_at=$2; shift ;;
		--kill-delay) kill_delay=$2; shift ;;
		*) die "boot: unknown option $1" ;;
		esac
		shift
	done
	out=$LB/${BOOTDIR:-boot}-$n
	rm -rf "$out"
	mkdir -p "$out"
	k=$(kver "$img")
	debugfs -c -R "dump /boot/vmlinuz-$k $out/vmlinuz" "$img" > /dev/null 2>&1
	debugfs -c -R "dump /boot/initrd.img-$k $out/initrd.img" "$img" > /dev/null 2>&1
	[ -s "$out/vmlinuz" ] && [ -s "$out/initrd.img" ] || die "no kernel/initrd $k in the image"
	debugfs -c -R "cat /var/lib/bootpack/loop" "$img" > "$out/state-before" 2>/dev/null || true
	args=$(debugfs -c -R "cat /var/lib/bootpack/cmdline" "$img" 2>/dev/null | head -n1)
	# no_timer_check: under a loaded host TCG can fail the IO-APIC timer check
	# (a panic at 0.07 s); panic=5: a panic ends the boot instead of hanging
	local cmdline="console=ttyS0 root=/dev/vda ro quiet no_timer_check panic=5 $args${EXTRA_CMDLINE:+ $EXTRA_CMDLINE}"
	echo "$cmdline" > "$out/cmdline"
	log "boot $n: $(sed -n 's/^phase=//p' "$out/state-before") (kernel $k) -> $out"
	local t0 qpid rc=0
	t0=$(date +%s)
	local qemu="qemu-system-x86_64 -accel tcg -smp 1 -m $MEM -nodefaults \
		-display none -no-reboot -kernel $out/vmlinuz -initrd $out/initrd.img \
		-append '$cmdline' -serial file:$out/console.log -serial file:$out/results.log"
	if [ -n "${MODEL:-}" ]; then
		# the disk model of bench/boot (delay filter of nbdkit), writes kept
		local so=${FILTER:-$GB/bench/boot/nbdkit-bootpack-delay-filter.so} scale
		scale=${SCALE:-$(sed -n 's/^tcg_factor=//p' "$BB/calib.env" 2>/dev/null)}
		echo "model=$MODEL scale=$scale" > "$out/model.env"
		nice -n 10 nbdkit -U - --filter="$so" file file="$img" model="$MODEL" \
			scale="${scale:-1}" log="$out/disk.log" \
			--run "timeout $QEMU_TIMEOUT $qemu \
				-drive file=nbd+unix:///?socket=\$unixsocket,if=virtio,format=raw" \
			> "$out/nbdkit.log" 2>&1 &
	else
		eval "nice -n 10 timeout $QEMU_TIMEOUT $qemu \
			-drive file=$img,if=virtio,format=raw,cache=writeback${THROTTLE:+,throttling.bps-write=$THROTTLE}" &
	fi
	qpid=$!
	if [ -n "$kill_at" ]; then
		while kill -0 $qpid 2>/dev/null; do
			if grep -aq -- "$kill_at" "$out/console.log" 2>/dev/null; then
				sleep "$kill_delay"
				log "boot $n: '$kill_at' seen; killing QEMU (power cut) after ${kill_delay} s"
				echo "killed after '$kill_at' + ${kill_delay}s" > "$out/killed"
				# this boot's own QEMU, found by its console log path
				local qp
				qp=$(pgrep -f "^qemu-system-x86_64 .*serial file:$out/console.log" || true)
				[ -n "$qp" ] && kill -9 "$qp"
				sleep 1
				break
			fi
			sleep 0.2
		done
	fi
	wait $qpid || rc=$?
	echo "qemu_exit=$rc host_wall_s=$(($(date +%s) - t0))" > "$out/boot.env"
	local frc=0
	e2fsck -fn "$img" > "$out/fsck.log" 2>&1 || frc=$?
	echo "fsck_exit=$frc" >> "$out/boot.env"
	debugfs -c -R "cat /var/lib/bootpack/loop" "$img" > "$out/state-after" 2>/dev/null || true
	sed -n 's/^done_ms=//p' "$out/results.log" | head -n1 | sed 's/^/done_ms=/' >> "$out/boot.env"
	grep -a 'loopbench:\|bootpack:' "$out/console.log" | tr -d '\r' > "$out/summary.txt" || true
	cat "$out/boot.env" >&2
}

phase_of() { debugfs -c -R "cat /var/lib/bootpack/loop" "$1" 2>/dev/null | sed -n 's/^phase=//p'; }

# compare BEFORE AFTER: every file that the running system did not write
# (same mtime) has the same sha256
compare_hashes() {
	local before=$1 after=$2 res=$3
	awk 'NR == FNR { h[$3] = $1; m[$3] = $2; next }
	     ($3 in h) { if (m[$3] != $2) { written++; next }
	                 same++; if (h[$3] != $1) { bad++; print "CHANGED " $3 } }
	     END { printf("files_compared=%d content_changed=%d written_by_the_boot=%d\n", same, bad, written) }' \
		"$before" "$after" > "$res"
	cat "$res" >&2
	! grep -q '^CHANGED' "$res"
}

do_run() {
	need_root
	if [ "${LOOP_INSTALL:-make}" = deb ]; then
		export IMG=${IMG:-$LB/loop-deb.img} BOOTDIR=${BOOTDIR:-deb-boot}
	fi
	local img=${IMG:-$LB/loop.img} b=$LB/${BOOTDIR:-boot} fail=0
	[ -f "$img" ] && [ "${REBUILD:-0}" = 0 ] || do_image
	if [ "${START:-1}" = 1 ]; then
		do_boot 1
		# for the fault cases (FAULT_BASE=)
		if [ "$img" = "$LB/loop.img" ]; then
			cp --sparse=always "$img" "$LB/after-boot-1.img"
		else
			cp --sparse=always "$img" "${img%.img}-after-boot-1.img"
		fi
	fi
	[ "$(phase_of "$img")" = relayout ] || { log "FAIL: boot 1 did not schedule the relayout"; fail=1; }
	hashes "$img" "$b-hashes-before-2"
	do_boot 2
	hashes "$img" "$b-hashes-after-2"
	compare_hashes "$b-hashes-before-2" "$b-hashes-after-2" "$b-hashes-compare-2" ||
		{ log "FAIL: a file's content changed across the relayout boot"; fail=1; }
	grep -q '^fsck_exit=0' "$b-2/boot.env" || { log "FAIL: e2fsck -fn after boot 2"; fail=1; }
	grep -aq 'relayout.*: done' "$b-2/console.log" || { log "FAIL: boot 2 did not relay out"; fail=1; }
	[ "$(phase_of "$img")" = read ] || { log "FAIL: phase after boot 2 is not read"; fail=1; }
	do_boot 3
	grep -a 'bootpack-read' "$b-3/console.log" | tail -n 3 >&2 || true
	[ "$(phase_of "$img")" = trace ] || { log "FAIL: apt-get did not mark the pack stale"; fail=1; }
	if [ "${STOP_AFTER:-4}" -ge 4 ]; then
		do_boot 4
		[ "$(phase_of "$img")" = relayout ] || { log "FAIL: boot 4 was not re-traced"; fail=1; }
	fi
	# no bootpack process crashed and no bootpack unit failed in any boot
	# (bootpack-loop-sample.service segfaulted on every read boot once, and
	# nothing here looked)
	for n in 1 2 3 4; do
		[ -f "$b-$n/console.log" ] || continue
		if grep -aE 'bootpack[^ ]*\[[0-9]+\]: segfault|Failed to start bootpack|bootpack[^ ]*\.service: Failed with' \
			"$b-$n/console.log" >&2; then
			log "FAIL: boot $n: a bootpack process or unit failed"
			fail=1
		fi
	done
	for n in 1 2 3 4; do
		[ -f "$b-$n/boot.env" ] && echo "boot $n: $(tr '\n' ' ' < "$b-$n/boot.env")"
	done
	return $fail
}

# update-guest IMG: the current guest driver and local .deb into an image
do_update_guest() {
	need_root
	trap cleanup_mount EXIT
	mount_image "$1"
	install -m 755 "$HERE/guest/loopbench-guest" "$MNT/usr/local/sbin/loopbench-guest"
	mkdir -p "$MNT/srv/loopbench"
	cp "$LB"/debs/libkmod2_*.deb "$MNT/srv/loopbench/"
	cleanup_mount
	trap - EXIT
}

# ---------------------------------------------------------------- faults
# Boot 2 from the image as boot 1 left it (after-boot-1.img, or FAULT_BASE:
# loop-deb-after-boot-1.img for the .deb route's), with a fault;
# then a boot after it. Each must complete, the host's e2fsck -fn after the
# second boot must be clean, and no file the boots did not write changed.
#   fault NAME kill PATTERN DELAY | fault NAME needs-fsck | fault NAME refusal
do_fault() {
	need_root
	local name=$1 kind=$2 img=$LB/fault-$1.img fail=0 base=${FAULT_BASE:-$LB/after-boot-1.img}
	[ -f "$base" ] || die "no $base: run check-loop.sh run first"
	cp --sparse=always "$base" "$img"
	hashes "$img" "$LB/fault-$name-hashes-before"
	case $kind in
	kill)
		# writes slowed to 2 MB/s, so that the kill lands inside the pass
		THROTTLE=2000000 IMG=$img BOOTDIR=fault-$name do_boot 1 --kill-at "$3" --kill-delay "$4" ;;
	needs-fsck)
		# the error state a crash or the kernel leaves: e2fsck must run
		debugfs -w -R "ssv state 2" "$img" > /dev/null 2>&1
		IMG=$img BOOTDIR=fault-$name do_boot 1 ;;
	refusal)
		# a trace of another filesystem: relayout refuses it
		local other=$LB/other.img
		rm -f "$other"; truncate -s 64M "$other"; mke2fs -q -F -t ext4 "$other"
		debugfs -w -R "write /etc/hostname /f" "$other" > /dev/null 2>&1
		bash "$SRC/tests/mktrace.sh" "$other" "$LB/other.trace" /f
		debugfs -w -R "rm /var/lib/bootpack/trace" "$img" > /dev/null 2>&1
		debugfs -w -R "write $LB/other.trace /var/lib/bootpack/trace" "$img" > /dev/null 2>&1
		IMG=$img BOOTDIR=fault-$name do_boot 1 ;;
	b1-cut)
		# the power cut inside relayout's barrier B1 (doc/relayout-safety.md
		# §4.7), made on the host with the crash harness's I/O manager: the
		# block bitmaps (the region reserved) are durable, the group
		# descriptors that carry their checksums are not. The guest's run
		# has --force (mounted since the last check); tune2fs -T stands in.
		local crash=$GB/relayout/crash/bp-crash-relayout tr=$LB/fault-$name.trace
		local scratch=$LB/fault-$name.scratch.img at seed
		nice -n 10 make -s -C "$GB" relayout/crash/bp-crash-relayout > /dev/null 2>&1 ||
			die "make relayout/crash/bp-crash-relayout in $GB"
		debugfs -R "dump /var/lib/bootpack/trace $tr" "$img" > /dev/null 2>&1
		tune2fs -T now "$img" > /dev/null
		cp --sparse=always "$img" "$scratch"
		rm -f "$scratch.wlog"
		BP_CRASH_COUNT=/dev/null BP_CRASH_LOG=$scratch.wlog "$crash" "$scratch" "$tr" > /dev/null
		# the first descriptor block write (block 1 of a 4 KiB filesystem)
		at=$(awk '$1 == "write" { n++; if ($3 == 4096) { print n; exit } }' "$scratch.wlog")
		[ -n "$at" ] || die "b1-cut: no descriptor write in $scratch.wlog"
		for seed in 1 2 3 4 5 6 7 8; do
			cp --sparse=always "$img" "$scratch"
			BP_CRASH_AT=$at BP_CRASH_SEED=$seed "$crash" "$scratch" "$tr" \
				> "$LB/fault-$name.cut" 2>&1 || true
			grep -q ' 0 of 1 pending' "$LB/fault-$name.cut" && break
		done
		grep -q ' 0 of 1 pending' "$LB/fault-$name.cut" || die "b1-cut: no seed left B1's descriptor out"
		mv "$scratch" "$img"
		rm -f "$scratch.wlog" "$tr"
		e2fsck -fn "$img" > "$LB/fault-$name.fsck-after-cut" 2>&1 || true
		log "b1-cut: cut at write $at (seed $seed): $(grep -c 'does not match checksum' \
			"$LB/fault-$name.fsck-after-cut") bitmap checksum finding(s) on e2fsck -fn"
		IMG=$img BOOTDIR=fault-$name do_boot 1 ;;
	near-full)
		# a nearly full, fragmented root (issue 23): every free block a
		# single-block hole, the last block in use, so that relayout must
		# evict runs of several blocks with no free run that long (the case
		# that spun forever in libext2fs' ext2fs_new_range); boot 2 runs
		# under a short time limit and must go on within it
		near_full "$img"
		EXTRA_CMDLINE="${EXTRA_CMDLINE:+$EXTRA_CMDLINE }bootpack.relayout_limit=${NEAR_FULL_LIMIT:-60}" \
			IMG=$img BOOTDIR=fault-$name do_boot 1
		local st
		st=$(grep -a 'relayout of /dev/vda' "$LB/fault-$name-1/console.log" | tr -d '\r' | tail -n1)
		log "near-full: ${st:-no relayout line on the console}"
		[ -n "$st" ] || { log "FAIL: near-full: boot 2 wrote no relayout status"; fail=1; } ;;
	*) die "fault: unknown kind $kind" ;;
	esac
	# after a power cut: the next boot; otherwise the faulty boot itself
	local last=1
	if [ "$kind" = kill ]; then
		IMG=$img BOOTDIR=fault-$name do_boot 2
		last=2
	fi
	# systemd-fsck-root repairs a root mounted read-only and reboots
	# (Debian's initramfs here has no fsck): the boot after it completes
	if ! grep -aq 'loopbench: poweroff' "$LB/fault-$name-$last/console.log" &&
		grep -aq 'reboot: Restarting system' "$LB/fault-$name-$last/console.log"; then
		log "$name: boot $last rebooted after its fsck; one more boot"
		last=$((last + 1))
		IMG=$img BOOTDIR=fault-$name do_boot $last
	fi
	grep -q '^fsck_exit=0' "$LB/fault-$name-$last/boot.env" || { log "FAIL: $name: e2fsck -fn after the boot"; fail=1; }
	grep -aq 'loopbench: poweroff' "$LB/fault-$name-$last/console.log" || { log "FAIL: $name: the boot did not complete"; fail=1; }
	hashes "$img" "$LB/fault-$name-hashes-after"
	compare_hashes "$LB/fault-$name-hashes-before" "$LB/fault-$name-hashes-after" "$LB/fault-$name-compare" ||
		{ log "FAIL: $name: a file's content changed"; fail=1; }
	grep -ah 'relayout of\|loopbench: relayout status\|loopbench: status: \(Phase\|Reason\|Attempts\)' \
		"$LB"/fault-"$name"-[123]/console.log | tr -d '\r' >&2 || true
	log "fault $name: $([ $fail = 0 ] && echo PASS || echo FAIL)"
	[ $fail = 0 ] && rm -f "$img"
	return $fail
}

# near_full IMG: a nearly full, fragmented root. One large file takes all
# but NEAR_FULL_MIB (160) of the free space; the rest is filled with files of
# one and of two blocks in turn, through a mount; then the one-block files are
# deleted (but the one holding the last block): every free block a hole of
# one, the last block in use, and every window relayout can clear holds runs
# of two blocks that must move out
near_full() {
	local img=$1 free bs n last ino keep i
	trap cleanup_mount EXIT
	mount_image "$img"
	mkdir -p "$MNT/var/tmp/nearfull"
	bs=$(stat -f -c %S "$MNT")
	free=$(stat -f -c %f "$MNT")
	n=$((free - ${NEAR_FULL_MIB:-160} * 1048576 / bs))
	[ $n -gt 0 ] && fallocate -l $((n * bs)) "$MNT/var/tmp/nearfull/big"
	# one process writes them (a fork per file takes minutes)
	i=$(python3 - "$MNT/var/tmp/nearfull" "$bs" <<-'EOF'
	import os, sys
	d, bs = sys.argv[1], int(sys.argv[2])
	two = os.urandom(2 * bs)
	i = 0
	try:
	    while True:
	        for name, data in (("f%d" % i, two[:bs]), ("g%d" % i, two)):
	            with open(os.path.join(d, name), "wb") as f:
	                f.write(data)
	        i += 1
	        if i % 256 == 0:
	            os.sync()
	except OSError:
	    pass
	print(i)
	EOF
	)
	sync
	cleanup_mount
	trap - EXIT
	# the free tail ext4 keeps back (reserved clusters) cut off, so that the
	# last block is in use
	last=$(($(dumpe2fs -h "$img" 2> /dev/null | awk -F': *' '/^Block count/ {print $2}') - 1))
	n=$(dumpe2fs "$img" 2> /dev/null | awk '/^  Free blocks: / { f = $NF } END { print f }')
	if [ "${n#*-}" = "$last" ]; then
		resize2fs -f "$img" "${n%-*}" > "$LB/logs/near-full-resize.log" 2>&1 ||
			die "near-full: resize2fs: $LB/logs/near-full-resize.log"
		last=$((${n%-*} - 1))
	fi
	ino=$(debugfs -R "icheck $last" "$img" 2> /dev/null | awk 'NR == 2 {print $2}')
	keep=$(debugfs -R "ncheck $ino" "$img" 2> /dev/null | awk 'NR == 2 {print $2}')
	trap cleanup_mount EXIT
	mount_image "$img"
	find "$MNT/var/tmp/nearfull" -name 'f*' ! -path "$MNT$keep" -delete
	sync
	cleanup_mount
	trap - EXIT
	log "near-full: $i pairs of files of one and two blocks, the one-block files deleted; last block $last: ${keep:-free}"
	log "near-full: $(dumpe2fs -h "$img" 2> /dev/null | grep '^Free blocks')"
}

do_faults() {
	local f=0
	local c
	for c in ${FAULTS:-kill-copy kill-map kill-done b1-cut needs-fsck refusal near-full}; do
		case $c in
		kill-copy) do_fault kill-copy kill "relayout pass 2/4" 2 || f=1 ;;
		kill-map) do_fault kill-map kill "relayout pass 3/4" 0 || f=1 ;;
		kill-done) do_fault kill-done kill "relayout of /dev/vda: done" 0 || f=1 ;;
		needs-fsck) do_fault needs-fsck needs-fsck || f=1 ;;
		refusal) do_fault refusal refusal || f=1 ;;
		b1-cut) do_fault b1-cut b1-cut || f=1 ;;
		near-full) do_fault near-full near-full || f=1 ;;
		esac
	done
	return $f
}

# model: done-booting times on a disk model of bench/boot (MODEL, default
# hdd-5k160), from the image as boot 1 left it: a stock boot (bootpack=off),
# a traced boot (boot 1's arguments, relayout off), the relayout boot (2) and
# a boot read from the pack (3).
do_model() {
	need_root
	export MODEL=${MODEL:-hdd-5k160}
	export EXTRA_CMDLINE="loopbench.wait=${MODEL_WAIT:-150}"
	local a=$LB/model-a.img b=$LB/model-b.img n
	cp --sparse=always "$LB/after-boot-1.img" "$a"
	cp --sparse=always "$LB/after-boot-1.img" "$b"
	do_update_guest "$a"
	do_update_guest "$b"
	EXTRA_CMDLINE="$EXTRA_CMDLINE bootpack=off" IMG=$a BOOTDIR=model-$MODEL-stock do_boot 0
	if [ "${MODEL_TRACED:-1}" = 1 ]; then
		cp --sparse=always "$LB/after-boot-1.img" "$a"
		do_update_guest "$a"
		EXTRA_CMDLINE="$EXTRA_CMDLINE bootpack.relayout=off $(sed -n 's/^cmdline=//p' "$LB/boot-1/state-before")" \
			IMG=$a BOOTDIR=model-$MODEL-traced do_boot 1
	fi
	IMG=$b BOOTDIR=model-$MODEL do_boot 2
	IMG=$b BOOTDIR=model-$MODEL do_boot 3
	for n in stock-0 traced-1 2 3; do
		[ -f "$LB/model-$MODEL-$n/boot.env" ] || continue
		echo "$MODEL $n: $(tr '\n' ' ' < "$LB/model-$MODEL-$n/boot.env")"
	done | tee "$LB/model-$MODEL.txt"
	rm -f "$a" "$b"
}

case ${1:-} in
rootfs) do_rootfs ;;
build) do_build ;;
image) do_image ;;
boot) shift; do_boot "$@" ;;
hashes) hashes "$2" "$3" ;;
run) do_run ;;
fault) shift; do_fault "$@" ;;
update-guest) do_update_guest "$2" ;;
faults) do_faults ;;
model) do_model ;;
*) sed -n '3,14p' "$0"; exit 2 ;;
esac
