#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-boot.sh --- the real-boot harness: a Debian 12 guest in QEMU (TCG) on
# an aged ext4 image served by nbdkit through a disk-model delay filter.
# See bench/boot/README.md. Run as root.
#
#   bench-boot.sh rootfs | kernel | initramfs | image | calibrate
#   bench-boot.sh traced [KB]                 traced boot -> bootpack trace (KB:
#                                             its read_ahead_kb, default TRACE_RA_KB)
#   bench-boot.sh traced initrd               the same with bootpack=trace, the
#                                             reader in the initramfs
#   bench-boot.sh initramfs-bp                bootpack-initrd's initramfs
#   bench-boot.sh prepare STRATEGY            strategy image from the aged one
#   bench-boot.sh boot [options]              one boot, figures in --out DIR
#   bench-boot.sh run                         everything: MODELS x STRATEGIES x BOOTS
#                                             (SCENARIO=drift: on the drifted images)
#   bench-boot.sh drift STRATEGY...           the drifted image of each strategy
#   bench-boot.sh report RUNDIR               tables of a run
#   bench-boot.sh charts RUNDIR PREFIX        PREFIX-MODEL.svg: each strategy's
#                                             median boot (bp-bootchart)
#   bench-boot.sh model [RESULTS.json]        bp-strategies' ranking of the
#                                             strategies against a run's (default:
#                                             the newest first-boot results/*.json)
#   bench-boot.sh probe [MODEL...]            bootpack probe inside the guest on
#                                             each model's emulated disk: named
#                                             as emulated? (default: every model)
#
# Environment: BOOTBENCH_DIR (the cache; default from bench/boot/env.sh:
# /var/cache/bootpack/bootbench as root, else
# $XDG_CACHE_HOME/bootpack/bootbench), BUILD (the bootpack build tree,
# default the source tree), MODELS (disk models of
# 'bootpack bench --help': eee-flash, hdd-5k160, sata-ssd, and today's
# pi4-sd, pi4-sd-slow, usb2-stick, emmc, hdd-smr, cloud-gp3, cloud-cold;
# default "hdd-5k160 eee-flash sata-ssd"), STRATEGIES, BOOTS,
# SCALE (raw|tcg|tcg-exec|a number; default tcg), SEED, FILTER (path of the delay
# filter .so; none: no delay), TRACE_RA_KB (read_ahead_kb of the traced
# boot, default 0), SCENARIO (first: every boot is the traced boot's
# sequel on the same bytes; drift: the boots after it, see do_drift),
# DRIFT_BOOTS (persistent boots before the measured ones, default 2),
# DRIFT_PKGS (packages reinstalled between them), DRIFT_REFRESH (1: the
# bootpack strategies' packs refreshed from a traced boot of the drifted
# image merged into the first trace, as the loop does; 2: that merged trace
# relaid out, as the loop does when the misses or the pack's gained ranges
# pass its rule; 0: the first pack).
# VARIANT (server, the default; desktop: the Xfce session boot, its own
# cache $BOOTBENCH_DIR/desktop, see desktop_rootfs). PROBE_SCALE, PROBE_TIME,
# PROBE_DIR: the probe verb's (see do_probe). BENCH_NO_INSTALL=1: name the
# missing host packages, install none. The host tools are the list of
# './setup.sh deps-bench'; every verb that needs root checks it (need_root).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$SRC/bench/boot
. "$HERE/env.sh"	# BOOTBENCH_DIR's default: the cache where a user looks for one
BUILD=${BUILD:-$SRC}
BB=$BOOTBENCH_DIR
SEED=${SEED:-2008}
MODELS=${MODELS:-"hdd-5k160 eee-flash sata-ssd"}
STRATEGIES=${STRATEGIES:-"stock sreadahead ureadahead bootpack bootpack-initrd"}
BOOTS=${BOOTS:-3}
SCALE=${SCALE:-tcg}
VARIANT=${VARIANT:-server}
if [ "$VARIANT" = desktop ]; then BB=$BB/desktop; : "${IMG_SIZE:=4G}" "${MEM:=2048}"; fi
IMG_SIZE=${IMG_SIZE:-2G}
MEM=${MEM:-1024}
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PKGS=systemd-sysv,udev,dbus,rsyslog,cron,openssh-server,python3,procps,kmod,iproute2,less,vim-tiny,man-db,bash-completion,logrotate,ca-certificates
FS_UUID=b0075ac0-b007-4008-8000-000000002008
HASH_SEED=b0075ac0-b007-4008-8000-0000000000ff
TRACE_EVENTS=filemap:mm_filemap_add_to_page_cache,filemap:mm_filemap_get_pages,filemap:mm_filemap_map_pages,filemap:mm_filemap_fault,block:block_rq_issue,block:block_rq_complete
BLOCK_EVENTS=${BLOCK_EVENTS:-block:block_rq_insert,block:block_rq_issue,block:block_rq_complete}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-1800}
SCENARIO=${SCENARIO:-first}
DRIFT_BOOTS=${DRIFT_BOOTS:-2}
DRIFT_PKGS=${DRIFT_PKGS:-"rsyslog cron"}
DRIFT_REFRESH=${DRIFT_REFRESH:-1}
CALIB_ITERS=20000000
# The packs' budget: the automatic default of bootpack setup and its loop,
# with the guest's inputs, not this host's. Memory: the guest's MEM. Disk:
# no probe (--probe none), so the default 25 MB/s x the traced boot's last
# first access. One image serves every disk model of a run, so the disk
# term cannot be one model's rate: it is the rate a machine that has not
# probed its disk gets, the same for every model (bootpack image and
# bootpack bench take a model's rate instead).
BUDGET_ARGS=(--budget auto --mem-total "${MEM}M" --probe none)
# the desktop variant: packages added to the rootfs, the autologin user, the
# kernel log line its session writes when up, the guest's display adapter
DESKTOP_PKGS=${DESKTOP_PKGS:-"xfce4 lightdm lightdm-gtk-greeter xserver-xorg-core xserver-xorg-input-libinput dbus-user-session xfce4-terminal fonts-dejavu-core"}
DESKTOP_USER=bench
SESSION_MARK=bench-session-up
QEMU_EXTRA=${QEMU_EXTRA:-}
if [ "$VARIANT" = desktop ] && [ -z "$QEMU_EXTRA" ]; then QEMU_EXTRA="-vga std"; fi

log() { echo "bench-boot: $*" >&2; }
die() { echo "bench-boot: error: $*" >&2; exit 1; }
# root, and the host tools of the bench: the one list is setup.sh's
# BP_DEPS_BENCH, which 'setup.sh deps-bench' installs from Debian's archive
# when missing (BENCH_NO_INSTALL=1: it only names them); checked once a run
need_root() {
	[ "$(id -u)" = 0 ] || die "run as root (debootstrap, loop devices, mounts)"
	[ -n "${BENCH_TOOLS_OK:-}" ] && return 0
	BP_NO_INSTALL=${BENCH_NO_INSTALL:-0} bash "$SRC/setup.sh" deps-bench >&2 ||
		die "the bench's host tools are missing: '$SRC/setup.sh deps-bench' installs them" \
			"(root, Debian 12)"
	BENCH_TOOLS_OK=1
	# a new cache: every verb logs into $BB/logs
	mkdir -p "$BB/logs"
}

# The disk models the delay filter knows: those 'bootpack bench --help' lists.
known_models() {
	"$BUILD/bootpack" bench --help 2>/dev/null |
		sed -n '/^Models:/,/^$/s/^ \([a-z0-9][a-z0-9-]*\) .*/\1/p' | tr '\n' ' '
}

# check_models NAME...: die on a name that is not a model, before any boot.
check_models() {
	local known m
	known=$(known_models)
	[ -n "$known" ] || die "cannot list the disk models: is $BUILD/bootpack built?"
	for m in "$@"; do
		case " $known" in
		*" $m "*) ;;
		*) die "unknown disk model '$m' (the models: ${known% })" ;;
		esac
	done
}

# ---------------------------------------------------------------- kernel
kver() {
	local d
	for d in "$BB/kernel/root/lib/modules"/*; do
		[ -d "$d" ] && { echo "${d##*/}"; return; }
	done
}

do_kernel() {
	[ -n "$(kver)" ] && [ -f "$BB/kernel/.done" ] && return 0
	mkdir -p "$BB/kernel" && cd "$BB/kernel"
	rm -rf root ./*.deb
	apt-get download linux-image-amd64 >/dev/null 2>&1 || die "apt-get download linux-image-amd64"
	local dep
	dep=$(dpkg-deb -f linux-image-amd64_*.deb Depends | grep -o 'linux-image-[0-9.]*-[0-9]*-amd64' | head -n1)
	[ -n "$dep" ] || die "no linux-image-6.1.* dependency in linux-image-amd64"
	apt-get download "$dep" linux-base >/dev/null 2>&1 || die "apt-get download $dep"
	dpkg-deb -x "$dep"_*.deb root
	depmod -b "$PWD/root" "$(kver)"
	touch .done
	log "kernel: $(kver)"
	cd - >/dev/null
}

# ---------------------------------------------------------------- rootfs
do_rootfs() {
	need_root
	do_kernel
	[ -f "$BB/rootfs/.done" ] && return 0
	local r=$BB/rootfs.tmp
	if [ ! -f "$r/.debootstrap-done" ]; then
		rm -rf "$r"
		log "debootstrap $SUITE (minbase + $PKGS): several minutes"
		nice -n 10 debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$r" "$MIRROR" \
			> "$BB/logs/debootstrap.log" 2>&1 || die "debootstrap failed: $BB/logs/debootstrap.log"
		touch "$r/.debootstrap-done"
	fi
	if [ "$VARIANT" = desktop ]; then desktop_rootfs "$r"; fi
	# the Debian kernel package, registered with dpkg (modules in /lib/modules;
	# initramfs-tools is not needed: the bench has its own initramfs)
	cp "$BB"/kernel/linux-image-[0-9]*.deb "$BB"/kernel/linux-base_*.deb "$r/tmp/"
	chroot "$r" sh -c 'dpkg --force-depends -i /tmp/linux-base_*.deb /tmp/linux-image-*.deb' \
		> "$BB/logs/rootfs-kernel.log" 2>&1 || die "kernel install into the rootfs: $BB/logs/rootfs-kernel.log"
	rm -f "$r"/tmp/*.deb
	echo bootbench > "$r/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tbootbench\n' > "$r/etc/hosts"
	printf '/dev/vda\t/\text4\tdefaults\t0\t1\n' > "$r/etc/fstab"
	echo 0b007bac0b0070080000000000002008 > "$r/etc/machine-id"
	chroot "$r" passwd -d root >/dev/null
	# every boot does the same work: no periodic maintenance jobs (apt-daily,
	# man-db, logrotate, fstrim, e2scrub ...) that fire on the first boot after
	# their period; the 2008 boots did none either
	local t
	for t in "$r"/lib/systemd/system/*.timer; do
		[ -e "$t" ] || continue
		ln -sf /dev/null "$r/etc/systemd/system/$(basename "$t")"
	done
	rm -f "$r"/var/cache/apt/*.bin "$r"/var/cache/apt/archives/*.deb
	mv "$r" "$BB/rootfs"
	touch "$BB/rootfs/.done"
	log "rootfs: $(du -sh --exclude=proc "$BB/rootfs" | cut -f1)"
}

# ---------------------------------------------------------------- desktop
# The desktop variant's rootfs: the server's, plus Xfce from Debian 12
# (DESKTOP_PKGS, no recommends) installed with apt-get in a chroot (the
# mirror; services not started: policy-rc.d), a user logged in by lightdm
# at once (autologin), graphical.target the default. The session's XDG
# autostart entry writes SESSION_MARK to /dev/kmsg (made writable for all
# by a udev rule: writing a record needs no privilege beyond the file
# mode); the monitor (bench.session=) takes that record's time as
# session_ms. X: the kernel's bochs DRM driver for QEMU's -vga std, and
# xserver-xorg-core's modesetting driver on it.
desktop_rootfs() {	# ROOTFS
	local r=$1
	[ -f "$r/.desktop-done" ] && return 0
	log "desktop: apt-get install $DESKTOP_PKGS (log: $BB/logs/desktop-apt.log)"
	printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	cp /etc/resolv.conf "$r/etc/resolv.conf"
	trap 'umount "$r/proc" 2>/dev/null || true' EXIT
	mount -t proc proc "$r/proc"
	chroot "$r" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $DESKTOP_PKGS" > "$BB/logs/desktop-apt.log" 2>&1 ||
		{ umount "$r/proc"; die "apt-get install in the rootfs: $BB/logs/desktop-apt.log"; }
	umount "$r/proc"
	trap - EXIT
	rm -f "$r/usr/sbin/policy-rc.d"
	rm -rf "$r"/var/lib/apt/lists/*
	mkdir -p "$r/var/lib/apt/lists/partial"
	printf '' > "$r/etc/resolv.conf"
	chroot "$r" useradd -m -s /bin/bash -G audio,video,input "$DESKTOP_USER"
	chroot "$r" passwd -d "$DESKTOP_USER" >/dev/null
	mkdir -p "$r/etc/lightdm/lightdm.conf.d"
	printf '[Seat:*]\nautologin-user=%s\nautologin-user-timeout=0\nautologin-session=xfce\n' \
		"$DESKTOP_USER" > "$r/etc/lightdm/lightdm.conf.d/50-bench.conf"
	ln -sf /lib/systemd/system/lightdm.service "$r/etc/systemd/system/display-manager.service"
	ln -sf /lib/systemd/system/graphical.target "$r/etc/systemd/system/default.target"
	mkdir -p "$r/etc/xdg/autostart" "$r/etc/udev/rules.d"
	printf 'KERNEL=="kmsg", MODE="0622"\n' > "$r/etc/udev/rules.d/99-bench-kmsg.rules"
	printf '#!/bin/sh\necho "%s $(id -un)" > /dev/kmsg\n' "$SESSION_MARK" \
		> "$r/usr/local/bin/bench-session-mark"
	chmod 755 "$r/usr/local/bin/bench-session-mark"
	printf '[Desktop Entry]\nType=Application\nName=bench session marker\nExec=/usr/local/bin/bench-session-mark\nNoDisplay=true\n' \
		> "$r/etc/xdg/autostart/bench-session-mark.desktop"
	touch "$r/.desktop-done"
}

# ---------------------------------------------------------------- initramfs
build_guest_bins() {
	mkdir -p "$BB/bin"
	gcc -O2 -Wall -Wextra -static -I "$SRC/include" -o "$BB/bin/bench-monitor" "$HERE/guest/bench-monitor.c"
	gcc -O2 -Wall -Wextra -static -o "$BB/bin/bench-calib" "$HERE/guest/bench-calib.c"
}

do_initramfs() {
	need_root
	do_kernel
	build_guest_bins
	local k d m
	k=$(kver)
	d=$(mktemp -d "$BB/initramfs.XXXXXX")
	mkdir -p "$d/bin" "$d/dev" "$d/modules" "$d/proc" "$d/sys" "$d/newroot"
	cp /bin/busybox "$d/bin/busybox"
	file -L /bin/busybox | grep -q 'statically linked' || die "/bin/busybox is not static: apt-get install busybox-static"
	cp "$HERE/guest/init" "$d/init"
	chmod 755 "$d/init"
	cp "$BB/bin/bench-monitor" "$d/bench-monitor"
	mknod -m 600 "$d/dev/console" c 5 1
	# the modules the root needs, dependencies first (modules.dep)
	local md=$BB/kernel/root/lib/modules/$k
	: > "$d/modules.list"
	add_mod() {
		local path deps x
		path=$(grep -E "(^|/)$1\.ko(\.[a-z]+)?:" "$md/modules.dep" | head -n1 | cut -d: -f1)
		[ -n "$path" ] || die "module $1 not in $md/modules.dep"
		deps=$(grep -E "^$path:" "$md/modules.dep" | cut -d: -f2)
		for x in $deps; do
			x=$(basename "$x"); x=${x%%.ko*}
			add_mod "$x"
		done
		grep -qx "$(basename "$path")" "$d/modules.list" && return 0
		cp "$md/$path" "$d/modules/"
		basename "$path" >> "$d/modules.list"
	}
	for m in virtio_pci virtio_blk crc32c_generic ext4; do add_mod $m; done
	(cd "$d" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -9 > "$BB/initramfs.cpio.gz.tmp"
	mv "$BB/initramfs.cpio.gz.tmp" "$BB/initramfs.cpio.gz"
	cp "$BB/kernel/root/boot/vmlinuz-$k" "$BB/vmlinuz"
	rm -rf "$d"
	log "initramfs: $(tr '\n' ' ' < <(cd "$BB" && gzip -dc initramfs.cpio.gz | cpio -t --quiet | grep modules/))"
}

# The bootpack-initrd strategy's initramfs: the bench's own, and appended
# to it (the kernel unpacks concatenated archives in turn) the package's
# initramfs-tools init-bottom script and the static reader, stripped, at
# the paths initramfs-tools gives them. The bench's /init runs the script
# once the root is mounted.
do_initramfs_bp() {
	do_initramfs
	local rd=${BOOTPACK_READ:-$BUILD/bootpack-read} hook=$BUILD/boot/initramfs-tools/scripts/init-bottom/bootpack d
	file "$rd" | grep -q 'statically linked' || die "$rd is not static: configure --enable-static-reader"
	[ -f "$hook" ] || die "no $hook (make in $BUILD)"
	d=$(mktemp -d "$BB/initramfs-bp.XXXXXX")
	mkdir -p "$d/sbin" "$d/scripts/init-bottom"
	strip -o "$d/sbin/bootpack-read" "$rd" || die "strip $rd"
	install -m 0755 "$hook" "$d/scripts/init-bottom/bootpack"
	(cd "$d" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -9 > "$d.cpio.gz"
	cat "$BB/initramfs.cpio.gz" "$d.cpio.gz" > "$BB/initramfs-bp.cpio.gz"
	rm -rf "$d" "$d.cpio.gz"
}

# ---------------------------------------------------------------- image
LOOP=
MNT=
cleanup_mount() {
	if [ -n "$MNT" ] && mountpoint -q "$MNT"; then umount "$MNT" || umount -l "$MNT"; fi
	[ -n "$MNT" ] && rmdir "$MNT" 2>/dev/null || true
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
	MNT='' LOOP=''
}

do_image() {
	need_root
	do_rootfs
	local img=$BB/aged.img
	[ -f "$img" ] && [ -f "$BB/aged.done" ] && [ "$(cat "$BB/aged.done")" = "seed=$SEED" ] && return 0
	rm -f "$img" "$BB/aged.done"
	truncate -s "$IMG_SIZE" "$img.tmp"
	mke2fs -q -F -t ext4 -L bootbench -U "$FS_UUID" -E "hash_seed=$HASH_SEED,lazy_itable_init=0,lazy_journal_init=0" \
		"$img.tmp"
	trap cleanup_mount EXIT
	LOOP=$(losetup --find --show "$img.tmp")
	MNT=$(mktemp -d "$BB/mnt-ager.XXXXXX")
	mount -t ext4 "$LOOP" "$MNT"
	log "ageing (seed $SEED): log in $BB/logs/ager.log"
	nice -n 10 /usr/bin/python3 "$HERE/ager.py" --tree "$BB/rootfs" --mount "$MNT" --seed "$SEED" \
		2> "$BB/logs/ager.log" || { tail -5 "$BB/logs/ager.log"; die "ager failed"; }
	rm -f "$MNT/.done"
	cleanup_mount
	trap - EXIT
	e2fsck -fn "$img.tmp" > "$BB/logs/aged-fsck.log" 2>&1 || die "e2fsck -fn of the aged image: $BB/logs/aged-fsck.log"
	mv "$img.tmp" "$img"
	echo "seed=$SEED" > "$BB/aged.done"
	fragreport "$img" > "$BB/aged.frag.txt"
	tail -1 "$BB/logs/ager.log"
}

fragreport() {
	local img=$1
	echo "# e2freefrag $img"
	e2freefrag "$img" 2>&1 | sed -n '1,20p'
	if [ -x "$BUILD/fixtures/bp-fragreport" ]; then
		echo "# bp-fragreport $img"
		"$BUILD/fixtures/bp-fragreport" "$img" 2>&1 | head -40
	fi
}

# ---------------------------------------------------------------- boot
# boot --image IMG --out DIR [--model M|none] [--scale F] [--init PATH]
#      [--initrd FILE] [--trace] [--cmdline "extra"]
do_boot() {
	need_root
	local img='' out='' model=none scale=1 init=/sbin/init trace=0 extra='' ev initrd=$BB/initramfs.cpio.gz
	local cow=--filter=cow
	while [ $# -gt 0 ]; do
		case $1 in
		--image) img=$2; shift ;;
		--initrd) initrd=$2; shift ;;
		--out) out=$2; shift ;;
		--model) model=$2; shift ;;
		--scale) scale=$2; shift ;;
		--init) init=$2; shift ;;
		--trace) trace=1 ;;
		--persist) cow= ;;	# the boot's writes stay in the image
		--cmdline) extra=$2; shift ;;
		*) die "boot: unknown option $1" ;;
		esac
		shift
	done
	[ -f "$img" ] || die "boot: no image $img"
	[ -n "$out" ] || die "boot: --out DIR"
	[ -f "$BB/initramfs.cpio.gz" ] || do_initramfs
	mkdir -p "$out"
	rm -f "$out"/console.log "$out"/results.log "$out"/disk.log "$out"/nbdkit.log
	ev=$BLOCK_EVENTS
	local bufsz=8M
	[ "$trace" = 1 ] && ev=$TRACE_EVENTS && bufsz=64M
	if [ "$VARIANT" = desktop ] && [ "$trace" = 1 ]; then bufsz=${DESKTOP_TRACE_BUF:-160M}; fi
	local cmdline="console=ttyS0 root=/dev/vda ro quiet init=$init trace_event=$ev trace_buf_size=$bufsz $extra"
	if [ "$VARIANT" = desktop ]; then cmdline="$cmdline bench.session=$SESSION_MARK bench.timeout_s=${DESKTOP_TIMEOUT_S:-600}"; fi
	local filt=()
	if [ "$model" != none ]; then
		check_models "$model"
		local so=${FILTER:-$BUILD/bench/boot/nbdkit-bootpack-delay-filter.so}
		[ -f "$so" ] || die "boot: no delay filter $so (build it, or --model none)"
		filt=(--filter="$so")
	else
		filt=(--filter=log)
	fi
	local fargs=()
	if [ "$model" != none ]; then
		fargs=(model="$model" scale="$scale" log="$out/disk.log")
	else
		fargs=(logfile="$out/disk.log")
	fi
	cat > "$out/boot.env" <<-EOF
	image=$img
	model=$model
	scale=$scale
	init=$init
	initrd=$initrd
	trace=$trace
	variant=$VARIANT
	cmdline=$cmdline
	host_start=$(date -u +%FT%TZ)
	EOF
	log "boot $(basename "$img") model=$model scale=$scale init=$init -> $out"
	# writes go to a copy-on-write overlay (cow filter): the image stays as it
	# was, every boot of it starts from the same bytes
	local t0 t1
	t0=$(date +%s.%N)
	nice -n 5 nbdkit -U - "${filt[@]}" $cow file file="$img" "${fargs[@]}" \
		--run "timeout $QEMU_TIMEOUT qemu-system-x86_64 -accel tcg -smp 1 -m $MEM -nodefaults \
			-display none -no-reboot -kernel $BB/vmlinuz -initrd $initrd $QEMU_EXTRA \
			-append '$cmdline' \
			-drive file=nbd+unix:///?socket=\$unixsocket,if=virtio,format=raw \
			-serial file:$out/console.log -serial file:$out/results.log" \
		> "$out/nbdkit.log" 2>&1 || log "boot: nbdkit/qemu exited with $? (see $out/nbdkit.log)"
	t1=$(date +%s.%N)
	echo "host_wall_s=$(echo "$t1 - $t0" | bc)" >> "$out/boot.env"
	grep -q '=== BENCH-DONE' "$out/results.log" || { log "boot: no results (see $out/console.log)"; return 1; }
	/usr/bin/python3 "$HERE/report.py" boot "$out" > "$out/boot.json" || return 1
	/usr/bin/python3 "$HERE/report.py" show "$out/boot.json"
}

# ---------------------------------------------------------------- calibrate
# The TCG factor: the fixed loop (guest/cpuloop.h) timed in a guest that only
# runs it (kernel + initramfs, no disk), against the host's CPU time for the
# same loop (minimum of 5). Written to $BB/calib.env.
do_calibrate() {
	need_root
	[ -f "$BB/initramfs.cpio.gz" ] || do_initramfs
	local d=$BB/calib h g hb gb he ge
	mkdir -p "$d"
	rm -f "$d"/*.log
	nice -n 5 "$BB/bin/bench-calib" $CALIB_ITERS 5 > "$d/host.txt"
	timeout 900 nice -n 5 qemu-system-x86_64 -accel tcg -smp 1 -m "$MEM" -nodefaults -display none \
		-no-reboot -kernel "$BB/vmlinuz" -initrd "$BB/initramfs.cpio.gz" \
		-append "console=ttyS0 quiet bench.calib=$CALIB_ITERS" \
		-serial file:"$d/console.log" -serial file:"$d/results.log"
	h=$(sed -n 's/.* cpu_ns=\([0-9]*\) .*/\1/p' "$d/host.txt" | sort -n | head -n1)
	hb=$(sed -n 's/.*big_cpu_ns=\([0-9]*\) .*/\1/p' "$d/host.txt" | sort -n | head -n1)
	g=$(sed -n 's/.* wall_ns=\([0-9]*\) .*/\1/p' "$d/results.log" | head -n1)
	gb=$(sed -n 's/.*big_wall_ns=\([0-9]*\) .*/\1/p' "$d/results.log" | head -n1)
	he=$(sed -n 's/.*exec_cpu_ns=\([1-9][0-9]*\) .*/\1/p' "$d/host.txt" | sort -n | head -n1)
	ge=$(sed -n 's/.*exec_wall_ns=\([1-9][0-9]*\) .*/\1/p' "$d/results.log" | head -n1)
	[ -n "$h" ] && [ -n "$g" ] || die "calibration failed: $d"
	{
		echo "host_loop_ns=$h"
		echo "guest_loop_ns=$g"
		echo "host_big_ns=$hb"
		echo "guest_big_ns=$gb"
		echo "tcg_factor=$(echo "scale=2; $g / $h" | bc)"
		echo "tcg_factor_big=$(echo "scale=2; $gb / $hb" | bc)"
		if [ -n "$he" ] && [ -n "$ge" ]; then
			echo "host_exec_ns=$he"
			echo "guest_exec_ns=$ge"
			echo "tcg_factor_exec=$(echo "scale=2; $ge / $he" | bc)"
		fi
		echo "date=$(date -u +%FT%TZ)"
		echo "loadavg=$(cut -d' ' -f1-3 /proc/loadavg)"
	} > "$BB/calib.env"
	cat "$BB/calib.env"
}

tcg_factor() {	# [KEY: tcg_factor, tcg_factor_exec]
	local k=${1:-tcg_factor}
	grep -q "^$k=" "$BB/calib.env" 2>/dev/null || do_calibrate >&2
	sed -n "s/^$k=//p" "$BB/calib.env"
}

# ---------------------------------------------------------------- traced boot
# Boot the aged image with the page-cache and block events on, then turn the
# guest's text trace into a bootpack trace of the aged image.
#
# bootpack's trace comes from a boot with the disk's readahead off
# (TRACE_RA_KB, default 0; what bootpack=trace does): Linux 6.1 has no
# page-access events (mm_filemap_get_pages and the like came in 6.12), so a
# page read is all a trace sees, and with readahead on that includes every
# page readahead guessed and nobody used (16 of the stock boot's 47 MB).
# With it off, a page is read when, and only when, the boot touches it.
# The ureadahead- and sreadahead-style lists come from a boot with
# readahead on (128 KiB): those tools list what is in the page cache after
# a boot, readahead included.
TRACE_RA_KB=${TRACE_RA_KB:-0}
traced_dir() {	# KB
	if [ "$1" = "$TRACE_RA_KB" ]; then echo "$BB/traced"; else echo "$BB/traced.ra$1"; fi
}

do_traced() {	# [KB]
	need_root
	do_image
	local kb=${1:-$TRACE_RA_KB} d was
	d=$(traced_dir "$kb")
	# a cache from before TRACE_RA_KB (readahead on) or from another value
	was=$(cat "$BB/traced/ra_kb" 2>/dev/null || echo 128)
	if [ -f "$BB/traced/boot.trace" ] && [ "$was" != "$TRACE_RA_KB" ]; then
		log "traced boot: the cached one ran with read_ahead_kb=$was; kept as $BB/traced.ra$was"
		rm -rf "$BB/traced.ra$was"
		mv "$BB/traced" "$BB/traced.ra$was"
	fi
	if [ ! -f "$d/boot.trace" ]; then
		do_boot --image "$BB/aged.img" --out "$d" --model none --trace \
			--cmdline "bench.ra_kb=$kb" || die "traced boot failed"
		echo "$kb" > "$d/ra_kb"
		import_traced "$d" "read_ahead_kb=$kb"
	fi
	"$BUILD/bootpack" dump "$d/boot.trace" | tail -n 3
}

# import_traced DIR WHAT: the guest's text trace of the boot in DIR -> DIR/boot.trace
import_traced() {
	local d=$1 dev=${3:-$BB/aged.img}
	/usr/bin/python3 "$HERE/report.py" text-trace "$d/results.log" > "$d/trace.txt"
	"$BUILD/bootpack" trace --import "$d/trace.txt" --device "$dev" -o "$d/boot.trace.tmp" \
		> "$d/import.log" 2>&1 || { cat "$d/import.log"; die "bootpack trace --import failed"; }
	mv "$d/boot.trace.tmp" "$d/boot.trace"
	/usr/bin/python3 "$HERE/report.py" lists "$d/boot.trace" "$d/readahead.list"
	{ echo "# bootpack verify (the boot traced with $2 on the aged image)"
	  "$BUILD/bootpack" verify --trace "$d/boot.trace" "$dev" 2>&1; } >> "$BB/aged.frag.txt"
}

# The bootpack-initrd strategy's trace: the aged image booted with that
# strategy's initramfs and bootpack=trace on the kernel command line, as a
# user would trace: the package's init-bottom script runs bootpack-read,
# which turns the root disk's readahead off for the boot and reads nothing
# (bootpack-read(8)). The reader is in the initramfs, not on the disk: the
# trace holds the boot alone.
do_traced_initrd() {
	need_root
	do_image
	local d=$BB/traced.initrd
	do_initramfs_bp
	if [ ! -f "$d/boot.trace" ]; then
		do_boot --image "$BB/aged.img" --out "$d" --model none --trace \
			--initrd "$BB/initramfs-bp.cpio.gz" --cmdline "bootpack=trace" || die "traced boot failed"
		grep -q "after the bootpack hook: read_ahead_kb 0" "$d/console.log" ||
			die "bootpack=trace did not turn readahead off in the traced boot: $d/console.log"
		import_traced "$d" "bootpack=trace in the initramfs"
	fi
	"$BUILD/bootpack" dump "$d/boot.trace" | tail -n 3
}

# ---------------------------------------------------------------- strategies
# The image each strategy boots, and its init=. stock: the aged image itself
# (never written: the cow filter takes the writes).
strategy_init() {
	case $1 in
	stock) echo /sbin/init ;;
	sreadahead) echo /sbin/sreadahead-style ;;
	ureadahead) echo /sbin/ureadahead-style ;;
	bootpack) echo /sbin/bootpack-read ;;
	bootpack-initrd|bootpack-service) echo /sbin/init ;;
	*) die "unknown strategy $1 (stock sreadahead ureadahead bootpack bootpack-initrd bootpack-service)" ;;
	esac
}

# The initramfs a strategy boots with: bootpack-initrd's has the reader.
strategy_initrd() {
	case $1 in
	bootpack-initrd) echo "$BB/initramfs-bp.cpio.gz" ;;
	*) echo "$BB/initramfs.cpio.gz" ;;
	esac
}

# Kernel arguments of a strategy on a model. The guest's virtio disk says it
# rotates whatever the model (virtio-blk carries no rotation rate; the
# queue's default is rotational), so the reader is told what its "auto"
# takes on the modelled disk: a 256 KiB metadata gap on the hard disk, 0
# on flash; the head start is 500 ms on every disk (auto).
strategy_cmdline() {
	case $1:$2 in
	bootpack:hdd-*|bootpack-initrd:hdd-*|bootpack-service:hdd-*) echo "bootpack.meta_gap=256k bootpack.head_start_ms=500" ;;
	bootpack*:*) echo "bootpack.meta_gap=0 bootpack.head_start_ms=500" ;;
	esac
}

strategy_image() {
	case $1 in
	stock) echo "$BB/aged.img" ;;
	*) echo "$BB/img/$1.img" ;;
	esac
}

# install FILE into IMG at PATH (mode 0755 or 0644), by loop-mounting it
install_into() {
	local img=$1
	shift
	trap cleanup_mount EXIT
	LOOP=$(losetup --find --show "$img")
	MNT=$(mktemp -d "$BB/mnt-inst.XXXXXX")
	mount -t ext4 "$LOOP" "$MNT"
	while [ $# -ge 3 ]; do
		mkdir -p "$MNT$(dirname "$2")"
		install -o root -g root -m "$3" "$1" "$MNT$2"
		shift 3
	done
	cleanup_mount
	trap - EXIT
}

# enable_unit IMG UNIT TARGET.wants: as systemctl enable would (a symlink)
enable_unit() {
	local img=$1
	trap cleanup_mount EXIT
	LOOP=$(losetup --find --show "$img")
	MNT=$(mktemp -d "$BB/mnt-unit.XXXXXX")
	mount -t ext4 "$LOOP" "$MNT"
	mkdir -p "$MNT/etc/systemd/system/$3"
	ln -sf "/etc/systemd/system/$2" "$MNT/etc/systemd/system/$3/$2"
	cleanup_mount
	trap - EXIT
}

# relayout_pack IMG STRATEGY TRACE [--first PATH]...: relayout IMG for the
# boot of TRACE and install the pack it writes ($BB/img/STRATEGY.pack) at
# /var/lib/bootpack/pack; e2fsck before and after. Relayout writes the
# pack: it knows where the boot set was, so the traced metadata there is
# left out and the new places put in. Its budget: BUDGET_ARGS, the default's
# rule with the guest's inputs.
relayout_pack() {
	local img=$1 s=$2 tr=$3
	shift 3
	e2fsck -fy "$img" > "$BB/logs/fsck-install-$s.log" 2>&1 ||
		die "e2fsck after installing into the image: $BB/logs/fsck-install-$s.log"
	rm -f "$BB/img/$s.pack"
	"$BUILD/bootpack" relayout --no-undo --pack "$BB/img/$s.pack" "${BUDGET_ARGS[@]}" \
		--trace "$tr" "$@" \
		"$img" > "$BB/logs/relayout-$s.log" 2>&1 ||
		{ tail "$BB/logs/relayout-$s.log"; die "relayout failed"; }
	"$BUILD/bootpack" dump "$BB/img/$s.pack" > "$BB/logs/pack-$s.log" 2>&1 ||
		{ tail "$BB/logs/pack-$s.log"; die "no pack"; }
	install_into "$img" "$BB/img/$s.pack" /var/lib/bootpack/pack 0644
	e2fsck -fn "$img" > "$BB/logs/fsck-$s.log" 2>&1 || die "e2fsck -fn after relayout: $BB/logs/fsck-$s.log"
	"$BUILD/bootpack" verify --trace "$tr" "$img" > "$BB/logs/verify-$s.log" 2>&1 || true
}

do_prepare() {
	need_root
	local s=$1 img bin
	[ "$s" = stock ] && return 0
	do_traced >/dev/null
	img=$(strategy_image "$s")
	mkdir -p "$BB/img" "$BB/logs"
	log "prepare $s: $img"
	cp --sparse=always "$BB/aged.img" "$img.tmp"
	case $s in
	sreadahead|ureadahead)
		bin=${READERS_DIR:-$BUILD/bench/boot}/$s-style
		[ -x "$bin" ] || die "no reader $bin (diskfilter's bench/boot/$s-style.c)"
		local rl=${READERS_DIR:-$BUILD/bench/boot}/bp-readlist
		[ -x "$rl" ] || die "no $rl (diskfilter's list writer)"
		do_traced 128 >/dev/null
		"$rl" --trace "$(traced_dir 128)/boot.trace" --device /dev/vda "$img.tmp" > "$BB/img/$s.list" \
			2> "$BB/logs/readlist-$s.log" || { tail "$BB/logs/readlist-$s.log"; die "bp-readlist failed"; }
		install_into "$img.tmp" "$bin" "/sbin/$s-style" 0755 \
			"$BB/img/$s.list" "/var/lib/bench/$s.list" 0644
		;;
	bootpack)
		local rd=${BOOTPACK_READ:-$BUILD/bootpack-read}
		file "$rd" | grep -q 'statically linked' || die "$rd is not static: configure --enable-static-reader"
		# the reader's time cap (max_ms, 60 s as init=) is guest wall time, which
		# the scaled disk stretches: no cap in the bench (BP_MAX_MS to set one)
		printf '# bench-boot\nmax_ms = %s\n' "${BP_MAX_MS:-0}" > "$BB/img/$s.conf"
		# the reader is installed first, as a package would be (stripped, as
		# dh_strip does: 780 KiB instead of 1 MB, fewer page faults before
		# main()): relayout puts it and the pack's directory at the head of
		# the region (--first)
		strip -o "$BB/img/bootpack-read.stripped" "$rd" || die "strip $rd"
		install_into "$img.tmp" "$BB/img/bootpack-read.stripped" /usr/sbin/bootpack-read 0755 \
			"$BB/img/$s.conf" /etc/bootpack.conf 0644
		install_into "$img.tmp" /dev/null /var/lib/bootpack/.keep 0644
		relayout_pack "$img.tmp" "$s" "$BB/traced/boot.trace" \
			--first /usr/sbin/bootpack-read --first /etc/bootpack.conf --first /var/lib/bootpack
		;;
	bootpack-service)
		# what 'bootpack setup' installs by default: the reader started by
		# systemd (bootpack-read.service, before sysinit.target), the
		# package's unit with the reader's path here
		local rd=${BOOTPACK_READ:-$BUILD/bootpack-read}
		printf '# bench-boot\nmax_ms = %s\n' "${BP_MAX_MS:-0}" > "$BB/img/$s.conf"
		strip -o "$BB/img/bootpack-read.stripped" "$rd" || die "strip $rd"
		sed 's|^ExecStart=[^ ]*bootpack-read|ExecStart=/usr/sbin/bootpack-read|' \
			"$BUILD/boot/bootpack-read.service" > "$BB/img/$s.service"
		grep -q '^ExecStart=/usr/sbin/bootpack-read ' "$BB/img/$s.service" ||
			die "no ExecStart in $BUILD/boot/bootpack-read.service"
		install_into "$img.tmp" "$BB/img/bootpack-read.stripped" /usr/sbin/bootpack-read 0755 \
			"$BB/img/$s.conf" /etc/bootpack.conf 0644 \
			"$BB/img/$s.service" /etc/systemd/system/bootpack-read.service 0644
		install_into "$img.tmp" /dev/null /var/lib/bootpack/.keep 0644
		enable_unit "$img.tmp" bootpack-read.service sysinit.target.wants
		relayout_pack "$img.tmp" "$s" "$BB/traced/boot.trace" \
			--first /usr/sbin/bootpack-read --first /etc/bootpack.conf --first /var/lib/bootpack
		;;
	bootpack-initrd)
		# the reader is in the initramfs (do_initramfs_bp): on the disk only
		# the pack's directory, relaid at the head of the region
		do_traced_initrd >/dev/null
		install_into "$img.tmp" /dev/null /var/lib/bootpack/.keep 0644
		relayout_pack "$img.tmp" "$s" "$BB/traced.initrd/boot.trace" --first /var/lib/bootpack
		;;
	esac
	mv "$img.tmp" "$img"
}

# ---------------------------------------------------------------- drift
# The boots after the traced one. A strategy's image as prepared (traced
# boot 1 of the fresh aged image, relaid out and packed) is booted
# DRIFT_BOOTS times with the strategy's own start, keeping its writes:
# boot 1 does the first-boot work, then DRIFT_PKGS are reinstalled (dpkg -i
# of Debian's .deb in a chroot: new inodes and blocks for the files, as an
# upgrade gives), boot 2 runs on them, and the logs grow on both. The
# measured boots (SCENARIO=drift) are boots 3+ of that image, each on the
# same bytes (cow). With DRIFT_REFRESH=1 the bootpack strategies' packs are
# refreshed as the loop refreshes them: a boot of the drifted image traced,
# merged into the first trace, the pack rewritten (no new relayout).
drift_image() { echo "$BB/drift/$1.img"; }

drift_packages() {	# IMG
	local img=$1 p
	mkdir -p "$BB/drift/debs"
	( cd "$BB/drift/debs" && for p in $DRIFT_PKGS; do
		ls "$p"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null 2>&1 ||
			die "apt-get download $p"
	done )
	trap cleanup_mount EXIT
	LOOP=$(losetup --find --show "$img")
	MNT=$(mktemp -d "$BB/mnt-drift.XXXXXX")
	mount -t ext4 "$LOOP" "$MNT"
	mkdir -p "$MNT/tmp/drift"
	for p in $DRIFT_PKGS; do cp "$BB/drift/debs/$p"_*.deb "$MNT/tmp/drift/"; done
	printf '#!/bin/sh\nexit 101\n' > "$MNT/usr/sbin/policy-rc.d"
	chmod 755 "$MNT/usr/sbin/policy-rc.d"
	chroot "$MNT" sh -c 'dpkg -i /tmp/drift/*.deb' > "$BB/logs/drift-dpkg.log" 2>&1 ||
		{ cleanup_mount; die "dpkg -i in the drifted image: $BB/logs/drift-dpkg.log"; }
	rm -rf "$MNT/tmp/drift" "$MNT/usr/sbin/policy-rc.d"
	cleanup_mount
	trap - EXIT
}

do_drift() {	# STRATEGY
	need_root
	local s=$1 src img n d tr
	src=$(strategy_image "$s")
	img=$(drift_image "$s")
	[ -f "$src" ] || do_prepare "$s"
	if [ -f "$img" ] && [ "$img" -nt "$src" ] && [ "${PREPARE:-0}" != 1 ] &&
	   [ "$(cat "$img.refresh" 2>/dev/null)" = "$DRIFT_REFRESH" ]; then
		return 0
	fi
	mkdir -p "$BB/drift"
	rm -f "$img" "$img.kinds" "$img.pack.json" "$img.refresh"
	log "drift $s: $DRIFT_BOOTS boots kept, $DRIFT_PKGS reinstalled after the first"
	cp --sparse=always "$src" "$img.tmp"
	for n in $(seq 1 "$DRIFT_BOOTS"); do
		d=$BB/drift/$s.boot-$n
		rm -rf "$d"
		do_boot --image "$img.tmp" --persist --out "$d" --model none \
			--init "$(strategy_init "$s")" --initrd "$(strategy_initrd "$s")" \
			--cmdline "$(strategy_cmdline "$s" hdd-5k160)" || die "drift boot $n of $s failed"
		# the guest powers off after sync: the journal is replayed here
		e2fsck -fy "$img.tmp" > "$BB/logs/drift-fsck-$s-$n.log" 2>&1 ||
			[ $? -lt 4 ] || die "e2fsck after drift boot $n: $BB/logs/drift-fsck-$s-$n.log"
		if [ "$n" = 1 ]; then drift_packages "$img.tmp"; fi
	done
	case $s:$DRIFT_REFRESH in
	bootpack:[12]|bootpack-initrd:[12]|bootpack-service:[12])
		tr=$BB/traced/boot.trace
		[ "$s" = bootpack-initrd ] && tr=$BB/traced.initrd/boot.trace
		d=$BB/drift/$s.traced
		rm -rf "$d"
		do_boot --image "$img.tmp" --out "$d" --model none --trace \
			--cmdline "bench.ra_kb=$TRACE_RA_KB" || die "traced boot of the drifted $s image failed"
		import_traced "$d" "read_ahead_kb=$TRACE_RA_KB, drifted $s image" "$img.tmp"
		"$BUILD/bootpack" trace --merge "$tr" "$d/boot.trace" -o "$d/merged.trace" \
			> "$d/merge.log" 2>&1 || { cat "$d/merge.log"; die "trace --merge failed"; }
		if [ "$DRIFT_REFRESH" = 2 ]; then
			# the loop's relayout of the merged trace (its misses or the
			# pack's gained ranges over the rule): the region redone, with
			# the strategy's first paths as in do_prepare
			local first=(--first /var/lib/bootpack)
			[ "$s" = bootpack-initrd ] || first=(--first /usr/sbin/bootpack-read
				--first /etc/bootpack.conf --first /var/lib/bootpack)
			e2fsck -fy "$img.tmp" > "$d/fsck.log" 2>&1 || [ $? -lt 4 ] ||
				die "e2fsck before the drift relayout: $d/fsck.log"
			"$BUILD/bootpack" relayout --no-undo --pack "$d/pack" "${BUDGET_ARGS[@]}" \
				--trace "$d/merged.trace" "${first[@]}" "$img.tmp" \
				> "$d/relayout.log" 2>&1 ||
				{ tail "$d/relayout.log"; die "relayout of the merged trace failed"; }
		else
			"$BUILD/bootpack" pack --trace "$d/merged.trace" -o "$d/pack" \
				"${BUDGET_ARGS[@]}" "$img.tmp" > "$d/pack.log" 2>&1 ||
				{ cat "$d/pack.log"; die "pack of the merged trace failed"; }
		fi
		install_into "$img.tmp" "$d/pack" /var/lib/bootpack/pack 0644
		;;
	esac
	e2fsck -fn "$img.tmp" > "$BB/logs/drift-fsck-$s.log" 2>&1 ||
		die "e2fsck -fn of the drifted $s image: $BB/logs/drift-fsck-$s.log"
	echo "$DRIFT_REFRESH" > "$img.refresh"
	mv "$img.tmp" "$img"
}

# IMG.kinds (bp-blockkind) and IMG.pack.json (the pack inside IMG): what
# report.py classifies the boot's reads with.
image_facts() {	# IMG
	local img=$1 t
	[ -f "$img.kinds" ] && [ "$img.kinds" -nt "$img" ] && return 0
	"$BUILD/bench/boot/bp-blockkind" "$img" > "$img.kinds.tmp" || die "bp-blockkind $img"
	t=$(mktemp "${TMPDIR:-/tmp}/bench-pack.XXXXXX")
	rm -f "$img.pack.json"
	if debugfs -R "dump /var/lib/bootpack/pack $t" "$img" >/dev/null 2>&1 && [ -s "$t" ]; then
		"$BUILD/bootpack" dump --json "$t" > "$img.pack.json" || rm -f "$img.pack.json"
	fi
	rm -f "$t"
	mv "$img.kinds.tmp" "$img.kinds"
}

# ---------------------------------------------------------------- run
# Reuse a strategy image unless the aged image, the trace or the bootpack
# binaries are newer (PREPARE=1 forces a rebuild).
prepared() {
	local img f
	img=$(strategy_image "$1")
	[ "${PREPARE:-0}" = 1 ] && [ "$1" != stock ] && return 1
	[ -f "$img" ] || return 1
	[ "$1" = stock ] && return 0
	for f in "$BB/aged.img" "$BB/traced/boot.trace" "$(traced_dir 128)/boot.trace" "$BB/traced.initrd/boot.trace" "$BUILD/bootpack" "${BOOTPACK_READ:-$BUILD/bootpack-read}" \
		"$BUILD/bench/boot/sreadahead-style" "$BUILD/bench/boot/ureadahead-style"; do
		[ -e "$f" ] && [ "$f" -nt "$img" ] && return 1
	done
	return 0
}

# The image a run boots for a strategy: as prepared, or drifted.
run_image() {
	if [ "$SCENARIO" = drift ]; then drift_image "$1"; else strategy_image "$1"; fi
}

do_run() {
	need_root
	local t_start m s b scale img rundir stamp
	# shellcheck disable=SC2086 # MODELS is a list of words
	check_models $MODELS
	t_start=$(date +%s)
	do_image
	do_initramfs
	case $SCALE in
	raw) scale=1 ;;
	tcg) scale=$(tcg_factor) ;;
	tcg-exec) scale=$(tcg_factor tcg_factor_exec) ;;
	*) scale=$SCALE ;;
	esac
	do_traced
	case " $STRATEGIES " in *" bootpack-initrd "*) do_initramfs_bp ;; esac
	for s in $STRATEGIES; do
		strategy_init "$s" >/dev/null
		prepared "$s" || do_prepare "$s"
		if [ "$SCENARIO" = drift ]; then do_drift "$s"; fi
		image_facts "$(run_image "$s")"
	done
	stamp=$(date -u +%Y-%m-%dT%H%MZ)
	if [ "$SCENARIO" != first ]; then stamp=$stamp-$SCENARIO; fi
	if [ "$VARIANT" != server ]; then stamp=$stamp-$VARIANT; fi
	rundir=${RUNDIR:-$BB/runs/$stamp}
	mkdir -p "$rundir"
	{
		echo "date=$stamp"
		echo "models=$MODELS"
		echo "strategies=$STRATEGIES"
		echo "scenario=$SCENARIO"
		echo "variant=$VARIANT"
		if [ "$SCENARIO" = drift ]; then
			echo "drift=boots $DRIFT_BOOTS, reinstalled $DRIFT_PKGS, refresh $DRIFT_REFRESH"
		fi
		echo "boots=$BOOTS"
		echo "scale=$scale"
		[ -f "$BB/calib.env" ] && sed 's/^/calib_/' "$BB/calib.env"
		echo "kernel=$(kver)"
		echo "seed=$SEED"
		echo "host_loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	} > "$rundir/run.env"
	# boots outermost: a change of the host's load hits every strategy alike
	for b in $(seq 1 "$BOOTS"); do
		for m in $MODELS; do
			for s in $STRATEGIES; do
				img=$(run_image "$s")
				do_boot --image "$img" --model "$m" --scale "$scale" --init "$(strategy_init "$s")" \
					--initrd "$(strategy_initrd "$s")" \
					--cmdline "$(strategy_cmdline "$s" "$m")" \
					--out "$rundir/$m/$s/boot-$b" || log "boot $m/$s/$b failed"
				/usr/bin/python3 "$HERE/report.py" monitor "$rundir/$m/$s/boot-$b" 2>/dev/null || true
			done
		done
	done
	echo "host_loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$rundir/run.env"
	echo "wall_s=$(( $(date +%s) - t_start ))" >> "$rundir/run.env"
	/usr/bin/python3 "$HERE/report.py" table "$rundir"
	mkdir -p "$HERE/results"
	cp "$rundir/results.md" "$HERE/results/${stamp}.md"
	cp "$rundir/results.json" "$HERE/results/${stamp}.json"
	do_charts "$rundir" "$HERE/results/$stamp"
	log "results: $rundir/results.md, $HERE/results/${stamp}.md"
}

# charts RUNDIR PREFIX: one picture per model, PREFIX-MODEL.svg (bp-bootchart):
# the median valid boot of each strategy side by side (4 at most).
do_charts() {
	local rundir=$1 prefix=$2 m st dir last='' args=()
	[ -x "$BUILD/bench/boot/bp-bootchart" ] || { log "no bp-bootchart: no pictures"; return 0; }
	while read -r m st dir; do
		if [ -n "$last" ] && [ "$m" != "$last" ]; then
			"$BUILD/bench/boot/bp-bootchart" -o "$prefix-$last.svg" \
				-t "$last: the median boot of each strategy" "${args[@]}" || true
			args=()
		fi
		[ ${#args[@]} -lt 4 ] && args+=("$dir=$st")
		last=$m
	done < <(/usr/bin/python3 "$HERE/report.py" medians "$rundir")
	if [ -n "$last" ]; then
		"$BUILD/bench/boot/bp-bootchart" -o "$prefix-$last.svg" \
			-t "$last: the median boot of each strategy" "${args[@]}" || true
	fi
}

# ------------------------------------------------------------ model vs real
# bp-strategies (the boot bench's model of its four strategies, built in the
# tree, not installed) on the same trace and a copy of the relaid image with
# its pack, then model-vs-real.py: do the model and the real boots rank the
# four strategies alike? Exit 1 when they do not.
do_model() {
	local res=${1:-} d f rc=0
	# the newest run of the first boot on the server image (the one 'prepare'
	# relays out): the names begin with the run's UTC start, so the glob's
	# order is the runs' (a checkout's mtimes say nothing); probe, drift and
	# desktop runs are of other images
	if [ -z "$res" ]; then
		for f in "$HERE"/results/*.json; do
			case ${f##*/} in *-probe.json | *-drift.json | *-desktop.json) continue ;; esac
			[ -f "$f" ] && res=$f
		done
		[ -n "$res" ] || die "no first-boot run in $HERE/results: name a RESULTS.json"
	fi
	[ -f "$BB/img/bootpack.img" ] && [ -f "$BB/img/bootpack.pack" ] && [ -f "$BB/traced/boot.trace" ] ||
		die "no relaid image, pack or trace in $BB: run 'bench-boot.sh prepare bootpack' first"
	# stock and the readers replay what the kernel reads, readahead included:
	# the trace of the boot with readahead on, when there is one (the
	# readahead-off trace, page by page, makes the model's stock 4x the
	# real one); bootpack reads its pack
	local tr=$BB/traced/boot.trace
	[ -f "$(traced_dir 128)/boot.trace" ] && tr=$(traced_dir 128)/boot.trace
	d=$(mktemp -d "${TMPDIR:-/tmp}/bench-model.XXXXXX")
	trap 'rm -rf "$d"' EXIT
	cp --sparse=always "$BB/img/bootpack.img" "$d/bootpack.img"
	"$BUILD/bench/boot/bp-strategies" --json --trace "$tr" --pack "$BB/img/bootpack.pack" \
		"$d/bootpack.img" >"$d/model.json" || die "bp-strategies failed"
	/usr/bin/python3 "$HERE/model-vs-real.py" "$res" "$d/model.json" || rc=$?
	rm -rf "$d"
	trap - EXIT
	return $rc
}

# ------------------------------------------------------------ probe in the guest
# bootpack probe run where the reader runs: inside the guest, on /dev/vda,
# through nbdkit and the delay filter, before anything else reads the disk
# (guest/init's bench.probe=). Its initramfs is the bench's with, appended
# (a later archive's files replace an earlier one's), this tree's guest/init
# and the build's bootpack with the shared libraries ldd lists. The filter
# runs at PROBE_SCALE (default: the bench's own scale, SCALE: the disk the
# measured boots read), on the aged image behind the cow filter, and the
# probe is told it (--scale): times / scale, rates x scale. Through TCG the
# guest and nbdkit add their own fixed cost to every request (~0.45 ms, a
# ceiling near 35 MB/s on this host); at scale 1 that makes usb2-stick,
# eee-flash and pi4-sd one blur, stretched disks shrink it by the scale.
# PROBE_TIME (default 12 s) is the probe's budget. A fresh nbdkit per model:
# a cold cloud volume starts with no chunk fetched.
PROBE_TIME=${PROBE_TIME:-12}

do_initramfs_probe() {
	local d lib
	[ -f "$BB/initramfs.cpio.gz" ] || do_initramfs
	d=$(mktemp -d "$BB/initramfs-probe.XXXXXX")
	mkdir -p "$d/sbin"
	install -m 0755 "$HERE/guest/init" "$d/init"
	cp "$BUILD/bootpack" "$d/sbin/bootpack"
	file "$BUILD/bootpack" | grep -q ELF || die "$BUILD/bootpack is not an ELF binary"
	for lib in $(ldd "$BUILD/bootpack" | grep -o '/[^ ]*'); do
		mkdir -p "$d$(dirname "$lib")"
		cp -L "$lib" "$d$lib"
	done
	(cd "$d" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -9 > "$d.cpio.gz"
	cat "$BB/initramfs.cpio.gz" "$d.cpio.gz" > "$BB/initramfs-probe.cpio.gz"
	rm -rf "$d" "$d.cpio.gz"
}

do_probe() {	# [MODEL...]
	need_root
	local models=${*:-$(known_models)} m out so stamp dir
	# shellcheck disable=SC2086 # a list of words
	check_models $models
	so=${FILTER:-$BUILD/bench/boot/nbdkit-bootpack-delay-filter.so}
	[ -f "$so" ] || die "no delay filter $so"
	[ -f "$BB/aged.img" ] || die "no $BB/aged.img: bench-boot.sh image"
	local pscale=${PROBE_SCALE:-$SCALE}
	case $pscale in
	raw) pscale=1 ;;
	tcg) pscale=$(tcg_factor) ;;
	esac
	do_initramfs_probe
	stamp=$(date -u +%Y-%m-%dT%H%MZ)
	dir=${PROBE_DIR:-$BB/runs/$stamp-probe}
	mkdir -p "$dir"
	for m in $models; do
		out=$dir/$m
		mkdir -p "$out"
		rm -f "$out"/*.log
		log "probe in the guest: $m (scale $pscale, $PROBE_TIME s) -> $out"
		nice -n 5 nbdkit -U - --filter="$so" --filter=cow file file="$BB/aged.img" \
			model="$m" scale="$pscale" log="$out/disk.log" \
			--run "timeout 600 qemu-system-x86_64 -accel tcg -smp 1 -m $MEM -nodefaults \
				-display none -no-reboot -kernel $BB/vmlinuz -initrd $BB/initramfs-probe.cpio.gz \
				-append 'console=ttyS0 quiet bench.probe=$PROBE_TIME bench.probe_scale=$pscale' \
				-drive file=nbd+unix:///?socket=\$unixsocket,if=virtio,format=raw \
				-serial file:$out/console.log -serial file:$out/results.log" \
			> "$out/nbdkit.log" 2>&1 || log "probe: nbdkit/qemu exited with $? ($out/nbdkit.log)"
		sed -n '/^=== BENCH-BEGIN probe/,/^=== BENCH-END probe/p' "$out/results.log" |
			sed '1d;$d' | grep -v '^rc=' > "$out/probe.json" || true
	done
	# shellcheck disable=SC2086  # one argument per model
	/usr/bin/python3 "$HERE/report.py" probe "$dir" $models
	mkdir -p "$HERE/results"
	cp "$dir/probe.md" "$HERE/results/$stamp-probe.md"
	cp "$dir/probe.json" "$HERE/results/$stamp-probe.json"
	log "results: $HERE/results/$stamp-probe.md"
	# exit 1 unless every model was named as emulated
	/usr/bin/python3 -c 'import json,sys; sys.exit(not all(r["named"] == r["model"] for r in json.load(open(sys.argv[1]))))' \
		"$dir/probe.json"
}

# one compound command: bash has read all of it before running any, so the
# script can be edited while a long run goes on
{
case ${1:-} in
run) do_run ;;
report) shift; /usr/bin/python3 "$HERE/report.py" table "$1" ;;
charts) shift; do_charts "$1" "$2" ;;
model) shift; do_model "$@" ;;
calibrate) do_calibrate ;;
traced) shift; if [ "${1:-}" = initrd ]; then do_traced_initrd; else do_traced "$@"; fi ;;
initramfs-bp) do_initramfs_bp ;;
prepare) shift; for s in "$@"; do do_prepare "$s"; done ;;
drift) shift; for s in "$@"; do do_drift "$s"; image_facts "$(drift_image "$s")"; done ;;
kernel) do_kernel ;;
rootfs) do_rootfs ;;
initramfs) do_initramfs ;;
image) do_image ;;
boot) shift; do_boot "$@" ;;
probe) shift; do_probe "$@" ;;
*) sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
exit $?
}
