#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-image.sh --- 'bootpack image' on an image a real image builder made (issue 25)
#
#   check-image.sh build       Debian 12 disk image built with mkosi (Debian's mkosi 14)
#   check-image.sh trace       image-boot's traced boot of it, imported (bootpack trace --import)
#   check-image.sh optimize    a copy of it optimized with 'bootpack image'; host oracles
#   check-image.sh boots       both booted on bench/boot's disk models, BOOTS each, interleaved
#   check-image.sh boot IMG NAME MODEL N RUNDIR   one measured boot (RUNDIR/MODEL/NAME-N)
#   check-image.sh run         all three, then the verdict
#
# Not part of make check or CI: root, Debian's mirror (first run), mkosi,
# systemd-container, qemu-system-x86, nbdkit; minutes of TCG per boot.
# Everything lives in IMAGEBENCH_DIR (default $BP_CACHE_ROOT/imagebench, as the
# other harnesses' caches: bench/boot/env.sh): the mkosi
# project and its package cache, the images, one directory per run.
#
# Environment: MODELS (default "hdd-5k160 pi4-sd"), BOOTS (3), SCALE (the
# disk models' time multiplier; default the real-boot bench's TCG factor from
# $BOOTBENCH_DIR/calib.env, else 1), TIMEOUT (per boot, 1500 s), REBUILD=1
# (build the image again), BUILD (the bootpack build tree, default the source tree),
# IMAGE_BUILD (the tree whose bootpack runs 'bootpack image', default BUILD),
# IMAGE_TRACE (a trace for 'bootpack image --trace' instead of its own boot).
# PARALLEL=1: each round boots every model's stock and optimized image at once.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$SRC}
# shellcheck source=bench/boot/env.sh
. "$SRC/bench/boot/env.sh"
IB=${IMAGEBENCH_DIR:-$BP_CACHE_ROOT/imagebench}
BB=$BOOTBENCH_DIR
MIRROR=${MIRROR:-http://deb.debian.org/debian}
MODELS=${MODELS:-"hdd-5k160 pi4-sd"}
BOOTS=${BOOTS:-3}
TIMEOUT=${TIMEOUT:-1500}
BOOT=$SRC/image/image-boot.sh
FILTER=${FILTER:-$BUILD/bench/boot/nbdkit-bootpack-delay-filter.so}
STOCK=$IB/debian12.raw
OPT=$IB/debian12-bootpack.raw

log() { echo "check-image: $*" >&2; }
die() { echo "check-image: error: $*" >&2; exit 1; }

need() {
	[ "$(id -u)" = 0 ] || die "run as root (mkosi, loop devices)"
	local t missing=()
	for t in mkosi:mkosi systemd-nspawn:systemd-container qemu-system-x86_64:qemu-system-x86 \
		 nbdkit:nbdkit debugfs:e2fsprogs sfdisk:fdisk cpio:cpio debootstrap:debootstrap; do
		command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t#*:}")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing ${missing[*]}"
		apt-get update -qq >/dev/null 2>&1 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
	fi
	export MONITOR=${BOOTPACK_IMAGE_MONITOR:-$BUILD/image/image-monitor}
	[ -x "$MONITOR" ] || die "no $MONITOR: make in $BUILD"
	export BOOTPACK_IMAGE_MONITOR=$MONITOR
}

# ---------------------------------------------------------------- build
# The mkosi project of the README's example: Debian 12, a GPT disk with an
# ext4 root, the Debian kernel and Debian's initramfs-tools, a small server,
# bootpack installed with its reader in the initramfs (doc/image-builders.md).
mkosi_project() {
	local p=$1
	mkdir -p "$p/bin"
	stage_bootpack "$p/mkosi.extra"
	cat > "$p/mkosi.conf" <<-EOF
	[Distribution]
	Distribution=debian
	Release=bookworm
	Mirror=$MIRROR

	[Output]
	Format=gpt_ext4
	Output=debian12.raw
	Hostname=bpimage
	Bootable=no

	[Partitions]
	RootSize=2G

	[Packages]
	Packages=linux-image-amd64,initramfs-tools,systemd,systemd-sysv,udev,dbus,kmod,procps,iproute2,rsyslog,cron,less,e2fsprogs
	WithDocs=no
	EOF
	# Bootable=no: mkosi 14 leaves the kernel in /boot but makes no
	# initramfs; Debian's own, made in the image (mkosi runs it there)
	# mkosi copies mkosi.extra (bootpack and BOOTPACK=y) into the tree
	# before it runs mkosi.postinst, so the initramfs gets the reader
	cat > "$p/mkosi.postinst" <<-'EOF'
	#!/bin/sh
	set -e
	for k in $(ls /lib/modules); do
		update-initramfs -c -k "$k"
		lsinitramfs "/boot/initrd.img-$k" | grep -q 'bin/bootpack-read$' ||
			{ echo "mkosi.postinst: no bootpack-read in /boot/initrd.img-$k" >&2; exit 1; }
	done
	EOF
	chmod 755 "$p/mkosi.postinst"
	# mkosi 14 runs apt in systemd-nspawn, which registers a scope with
	# the host's systemd: on a host whose PID 1 is not systemd (a
	# container) it may only run in the caller's own unit
	cat > "$p/bin/systemd-nspawn" <<-'EOF'
	#!/bin/sh
	exec /usr/bin/systemd-nspawn --keep-unit "$@"
	EOF
	chmod 755 "$p/bin/systemd-nspawn"
}

do_build() {
	need
	[ -f "$STOCK" ] && [ "${REBUILD:-0}" = 0 ] && return 0
	local p=$IB/mkosi
	mkdir -p "$IB/mkosi-cache" "$p"
	mkosi_project "$p"
	log "mkosi build (Debian 12, gpt_ext4): log $p/build.log"
	local path=$PATH
	[ "$(ps -p 1 -o comm= 2>/dev/null)" = systemd ] || path=$p/bin:$PATH
	(cd "$p" && PATH=$path nice -n 5 mkosi --cache "$IB/mkosi-cache" --force build) > "$p/build.log" 2>&1 ||
		{ tail -n 20 "$p/build.log" >&2; die "mkosi build failed: $p/build.log"; }
	mv "$p/debian12.raw" "$STOCK"
	log "built $STOCK ($(du -h --apparent-size "$STOCK" | cut -f1), $(du -h "$STOCK" | cut -f1) used)"
}

# stage_bootpack DIR: what mkosi copies into the tree before its postinst
# builds the initramfs (mkosi.extra): bootpack as a package would put it
# (make install DESTDIR of GUEST_BUILD, default BUILD: the binaries, the
# units and the initramfs-tools hook and scripts, nothing enabled) and the
# opt-in of its initramfs reader, so that 'bootpack image' leaves
# bootpack-read.service off (bootpack-image(8), WHERE THE READER RUNS)
stage_bootpack() {
	local d=$1 gb=${GUEST_BUILD:-$BUILD}
	rm -rf "$d"
	mkdir -p "$d/etc/initramfs-tools/conf.d"
	make -s -C "$gb" install DESTDIR="$d" > "$IB/install.log" 2>&1 ||
		die "make install DESTDIR=$d: $IB/install.log"
	[ -f "$d/usr/share/initramfs-tools/hooks/bootpack" ] &&
		[ -f "$d/usr/share/initramfs-tools/scripts/init-bottom/bootpack" ] ||
		die "make install put no initramfs-tools hook or init-bottom script in $d/usr/share/initramfs-tools"
	printf 'BOOTPACK=y\n' > "$d/etc/initramfs-tools/conf.d/bootpack"
}

# install_bootpack IMG: bootpack (not in Debian's archive) installed into the
# image's root as a package would put it, from the build GUEST_BUILD (default
# BUILD; make install DESTDIR), nothing enabled: 'bootpack image' needs the
# reader and its unit in the image, and the unoptimized image has them too
install_bootpack() {
	local img=$1 off loop mnt gb=${GUEST_BUILD:-$BUILD}
	off=$(root_offset "$img") || die "no ext4 root in $img"
	loop=$(losetup --find --show --offset "$off" "$img")
	mnt=$(mktemp -d "$IB/mnt-b.XXXXXX")
	mount "$loop" "$mnt" || { losetup -d "$loop"; die "mount $img"; }
	make -s -C "$gb" install DESTDIR="$mnt" > "$IB/install.log" 2>&1 || log "make install: $IB/install.log"
	umount "$mnt"; rmdir "$mnt"; losetup -d "$loop"
	# checked after the mount, as a builder leaves a finished image
	e2fsck -fy "$img?offset=$off" > "$IB/install-fsck.log" 2>&1 || die "e2fsck after make install: $IB/install-fsck.log"
}

# root_offset IMG: the byte offset of the first ext4 partition
root_offset() {
	local start
	while read -r _ start; do
		if dumpe2fs -h "$1?offset=$((start * 512))" >/dev/null 2>&1; then
			echo $((start * 512))
			return 0
		fi
	done < <(partx -g -o NR,START "$1" 2>/dev/null)
	dumpe2fs -h "$1" >/dev/null 2>&1 && { echo 0; return 0; }
	return 1
}

# hashes IMG OUT: "sha256 path" of every regular file of the root, from a
# read-only mount (noload: no journal replay) of a loop device at its offset
hashes() {
	local img=$1 out=$2 off loop mnt
	off=$(root_offset "$img") || die "no ext4 root in $img"
	loop=$(losetup --find --show --read-only --offset "$off" "$img")
	mnt=$(mktemp -d "$IB/mnt-b.XXXXXX")
	mount -o ro,noload "$loop" "$mnt" || { losetup -d "$loop"; rmdir "$mnt"; die "mount $img"; }
	(cd "$mnt" && find . -xdev -type f -print0 | LC_ALL=C sort -z |
		nice -n 5 xargs -0 -n 500 sha256sum) > "$out" || true
	umount "$mnt"; rmdir "$mnt"; losetup -d "$loop"
}

# ---------------------------------------------------------------- trace
# The driver's traced boot of the unoptimized image, imported against a copy
# of its root (bootpack trace --import): $IB/trace/boot.trace, which
# IMAGE_TRACE= can hand to 'bootpack image --trace' (one boot fewer)
do_trace() {
	need
	local d=$IB/trace off dev
	rm -rf "$d"; mkdir -p "$d"
	off=$(root_offset "$STOCK") || die "no ext4 root in $STOCK"
	nice -n 5 bash "$BOOT" --image "$STOCK" --offset "$off" --out "$d/trace.txt" --timeout "$TIMEOUT" ||
		die "image-boot failed (exit $?): $d"
	dev=$(sed -n 's/^dev=//p' "$d/trace.txt.env")
	local sectors
	sectors=$(partx -g -o START,SECTORS "$STOCK" | awk -v s=$((off / 512)) '$1 == s { print $2 }')
	dd if="$STOCK" of="$d/root.img" bs=512 skip=$((off / 512)) count="$sectors" \
		conv=sparse status=none
	"$BUILD/bootpack" trace --import "$d/trace.txt" -o "$d/boot.trace" --device "$d/root.img" --dev "$dev" \
		> "$d/import.log" 2>&1 || { cat "$d/import.log" >&2; die "bootpack trace --import failed"; }
	rm -f "$d/root.img"
	"$BUILD/bootpack" dump "$d/boot.trace" | tail -n 3 >&2
	cat "$d/trace.txt.env" >&2
}

# ---------------------------------------------------------------- optimize
# The step under test: one call of 'bootpack image' on a copy of the image.
do_optimize() {
	need
	local r=$IB/optimize off
	rm -rf "$r"; mkdir -p "$r"
	cp --sparse=always "$STOCK" "$OPT"
	off=$(root_offset "$STOCK") || die "no ext4 root in $STOCK"
	hashes "$STOCK" "$r/hashes-before"
	log "bootpack image $OPT: log $r/image.log"
	local t0=$SECONDS
	BOOTPACK_IMAGE_BOOT=$BOOT nice -n 5 "${IMAGE_BUILD:-$BUILD}/bootpack" image --timeout "$TIMEOUT" \
		--reader initramfs ${IMAGE_TRACE:+--trace "$IMAGE_TRACE"} "$OPT" > "$r/image.log" 2>&1 ||
		{ tail -n 20 "$r/image.log" >&2; die "bootpack image failed: $r/image.log"; }
	echo "bootpack_image_s=$((SECONDS - t0))" > "$r/result.env"
	# oracles the engine does not share: e2fsck, SHA-256 of every file, the
	# guest's units read with debugfs
	local rc=0 fail=0
	e2fsck -fn "$OPT?offset=$off" > "$r/fsck.log" 2>&1 || rc=$?
	echo "fsck_exit=$rc" >> "$r/result.env"
	[ $rc = 0 ] || { log "FAIL: e2fsck -fn of the optimized root: $r/fsck.log"; fail=1; }
	hashes "$OPT" "$r/hashes-after"
	awk 'NR == FNR { h[substr($0, 67)] = $1; next }
	     { p = substr($0, 67); if (p in h) { n++; if (h[p] != $1) { bad++; print "CHANGED " p } } else added++ }
	     END { printf("files_compared=%d content_changed=%d files_added=%d\n", n, bad, added) }' \
		"$r/hashes-before" "$r/hashes-after" > "$r/compare.txt"
	tail -n 1 "$r/compare.txt" >> "$r/result.env"
	if grep '^CHANGED' "$r/compare.txt" >/dev/null; then
		log "FAIL: a file's content changed: $r/compare.txt"
		fail=1
	fi
	# no traced boot nor relayout on the booted machine: bootpack's loop not
	# enabled; the initramfs reads the pack, so not the unit too
	local w
	w=$(for t in sysinit multi-user; do
		debugfs -c -R "ls -p /etc/systemd/system/$t.target.wants" "$OPT?offset=$off" 2>/dev/null
	done | awk -F/ '$6 ~ /^bootpack/ { printf "%s ", $6 }')
	echo "units_enabled=$w" >> "$r/result.env"
	case " $w" in
	*" bootpack-loop.service "*) log "FAIL: bootpack-loop.service is enabled in the optimized image"; fail=1 ;;
	*" bootpack-read.service "*) log "FAIL: bootpack-read.service is enabled in the optimized image (the initramfs reads the pack)"; fail=1 ;;
	esac
	grep -q "^reader: in the image's initramfs " "$r/image.log" ||
		{ log "FAIL: bootpack image did not say the initramfs reads the pack: $r/image.log"; fail=1; }
	# and no loop state: no traced boot scheduled
	if debugfs -c -R "stat /var/lib/bootpack/loop" "$OPT?offset=$off" 2>/dev/null | grep '^Inode:' >/dev/null; then
		log "FAIL: the optimized image has a loop state (/var/lib/bootpack/loop)"
		fail=1
	fi
	cat "$r/result.env" >&2
	return $fail
}

# ---------------------------------------------------------------- boots
scale() {
	if [ -n "${SCALE:-}" ]; then echo "$SCALE"; return; fi
	sed -n 's/^tcg_factor=//p' "$BB/calib.env" 2>/dev/null | grep . || echo 1
}

# one measured boot: IMG NAME MODEL N RUNDIR
boot_one() {
	local img=$1 name=$2 model=$3 n=$4 d=$5/$3/$2-$4 off rc=0
	mkdir -p "$d"
	off=$(root_offset "$img")
	echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)" > "$d/host.env"
	# the guest's virtio disk says it rotates on every model: the reader is
	# told what its "auto" takes on the modelled disk, as bench-boot does
	# (strategy_cmdline): a 256 KiB metadata gap on a hard disk, 0 on flash
	local gap=0
	case $model in hdd-*) gap=256k ;; esac
	BOOTPACK_IMAGE_CMDLINE="bootpack.meta_gap=$gap${BOOTPACK_IMAGE_CMDLINE:+ $BOOTPACK_IMAGE_CMDLINE}" \
		nice -n 5 bash "$BOOT" --image "$img" --offset "$off" --out "$d/block.txt" --timeout "$TIMEOUT" \
		--measure --model "$model" --filter "$FILTER" --scale "$(scale)" 2> "$d/boot.err" || rc=$?
	echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$d/host.env"
	echo "exit=$rc" >> "$d/host.env"
	local done_s
	done_s=$(sed -n 's/^done_s=//p' "$d/block.txt.env" 2>/dev/null)
	log "$model $name boot $n: ${done_s:-no done} (exit $rc)"
	echo "$model $name $n ${done_s:-NA} $(grep -c ' block_rq_issue: .* R' "$d/block.txt" 2>/dev/null || echo 0)" >> "$5/times.txt"
}

do_boots() {
	need
	[ -f "$OPT" ] || die "no $OPT: run check-image.sh optimize"
	local run m n
	run=$IB/runs/$(date -u +%Y-%m-%dT%H%MZ)
	mkdir -p "$run"
	ln -sfn "$run" "$IB/runs/latest"
	echo "# model image boot done_s read_requests" > "$run/times.txt"
	if [ "${PARALLEL:-0}" = 1 ]; then
		# a round of every model's stock and optimized boot at once: each
		# pair runs under the same host load (a loaded host's TCG is slow)
		for n in $(seq 1 "$BOOTS"); do
			for m in $MODELS; do
				boot_one "$STOCK" stock "$m" "$n" "$run" &
				boot_one "$OPT" bootpack "$m" "$n" "$run" &
			done
			wait
		done
	else
		for m in $MODELS; do
			for n in $(seq 1 "$BOOTS"); do
				boot_one "$STOCK" stock "$m" "$n" "$run"
				boot_one "$OPT" bootpack "$m" "$n" "$run"
			done
		done
	fi
	report "$run"
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2); else print "NA" }'; }

# report RUN: medians per model, and the checks of the optimized boots
report() {
	local run=$1 m s b fail=0
	{
		echo "| model | stock done (s), median | bootpack done (s), median | boots | all stock | all bootpack |"
		echo "|---|---|---|---|---|---|"
		for m in $MODELS; do
			s=$(awk -v m="$m" '$1 == m && $2 == "stock" && $4 != "NA" { print $4 }' "$run/times.txt" | median)
			b=$(awk -v m="$m" '$1 == m && $2 == "bootpack" && $4 != "NA" { print $4 }' "$run/times.txt" | median)
			echo "| $m | $s | $b | $BOOTS | $(awk -v m="$m" '$1 == m && $2 == "stock" { printf "%s ", $4 }' "$run/times.txt")| $(awk -v m="$m" '$1 == m && $2 == "bootpack" { printf "%s ", $4 }' "$run/times.txt")|"
			if [ "$s" = NA ] || [ "$b" = NA ] || ! awk -v s="$s" -v b="$b" 'BEGIN { exit !(b < s) }'; then
				echo "FAIL: $m: the optimized image is not faster (median $b s against $s s)"
				fail=1
			fi
		done
	} > "$run/report.md"
	# the optimized image's boots: no traced boot, no relayout, the reader ran
	local c
	for c in "$run"/*/bootpack-*/block.txt.console.log; do
		[ -f "$c" ] || continue
		# what the loop prints when it traces or relays out (relayout-root.sh's
		# messages, the loop's unit started, a trace command line), not
		# systemd's line about a unit it skipped
		if grep -av 'skipped because of an unmet condition' "$c" |
			grep -aqi 'bootpack: \(relayout of\|relaying out\|checking .* before the relayout\)\|Started bootpack-loop\|bootpack=trace\|trace saved'; then
			echo "FAIL: a trace or relayout on the booted machine: $c" >> "$run/report.md"
			fail=1
		fi
		# the image's initramfs reads the pack: the unit must not read it again
		# (its lines come through the journal as "bootpack-read[PID]:")
		if grep -aq 'bootpack-read\[[0-9]*\]: [0-9]* bytes' "$c"; then
			echo "FAIL: the pack was read twice (bootpack-read.service too): $c" >> "$run/report.md"
			fail=1
		fi
	done
	echo "reader requests in the optimized boots: $(cat "$run"/*/bootpack-*/block.txt 2>/dev/null |
		grep -c 'bootpack-read.*block_rq_issue\|block_rq_issue.*\[bootpack-read' || true)" >> "$run/report.md"
	cat "$run/report.md"
	return $fail
}

do_run() {
	local fail=0
	do_build
	do_optimize || fail=1
	do_boots || fail=1
	[ $fail = 0 ] && log PASS || log FAIL
	return $fail
}

case ${1:-} in
build) do_build ;;
trace) do_trace ;;
boot) need; mkdir -p "$6"; boot_one "$2" "$3" "$4" "$5" "$6" ;;
install) need; install_bootpack "$2" ;;
optimize) do_optimize ;;
boots) do_boots ;;
report) report "${2:-$IB/runs/latest}" ;;
run) do_run ;;
*) sed -n '3,8p' "$0"; exit 2 ;;
esac
