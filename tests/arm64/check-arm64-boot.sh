#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-arm64-boot.sh --- make check-arm64-boot: the bootpack loop on a
# Debian 12 arm64 guest under qemu-system-aarch64 (TCG). Not part of CI;
# needs root and the Debian archive. doc/arm64.md tells what it shows.
#
#   tests/arm64/check-arm64-boot.sh [--rebuild-image] [--time]
#
# 1. the aarch64 build (tests/check-arm64.sh --build-only: bootpack dynamic,
#    bootpack-read static) and bp-mincore, static, for the guest
# 2. a Debian 12 arm64 root (debootstrap --foreign, the second stage under
#    qemu-aarch64-static through a binfmt_misc entry of its own, removed
#    after) cached in $G/root; an ext4 image of it (mkfs.ext4 -d)
# 3. boots, each of a fresh copy of the image:
#    trace     init=bootpack-read bootpack=trace trace_event=...; in the guest
#              bootpack trace --from-boot, bootpack pack (4 KiB pages, the
#              guest's) and --page-size 16K
#    noreader  the pack's ranges checked early (bp-mincore, before
#              sysinit.target): what the boot itself had read by then
#    reader    the same with init=bootpack-read: every page resident
#    reader16k the same with the 16 KiB pack: the reader adapts
#    time*     (--time) without the early check: systemd-analyze without
#              and with the reader
# Results in $G/results/ (summary.txt).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${BP_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bootpack-arm64}
G=${BP_ARM64_GUEST:-$cache/guest}
b=$top/build-arm64/src
multi=aarch64-linux-gnu
mirror=${BP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mem=${BP_ARM64_MEM:-1024}
timeout_s=${BP_ARM64_TIMEOUT:-1500}
R=$G/results

die() { echo "check-arm64-boot: $*" >&2; exit 1; }
log() { echo "# $(date -u +%T) $*"; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, binfmt_misc)"

pkgs=()
command -v debootstrap >/dev/null || pkgs+=(debootstrap)
command -v qemu-system-aarch64 >/dev/null || pkgs+=(qemu-system-arm)
command -v mkfs.ext4 >/dev/null || pkgs+=(e2fsprogs)
[ ${#pkgs[@]} = 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${pkgs[@]}" >/dev/null

# --- 1. the aarch64 build ----------------------------------------------------
log "aarch64 build"
"$top/tests/check-arm64.sh" --build-only
file "$b/bootpack-read" | grep -q 'statically linked' || die "$b/bootpack-read is not static"
$multi-gcc -static -O2 -o "$top/build-arm64/bp-mincore" "$top/tests/ts/reader/bp-mincore.c"

# --- 2. the root and its image -----------------------------------------------
binfmt_name=bootpack-arm64-$$
binfmt_mounted=0
cleanup() {
	[ ! -e /proc/sys/fs/binfmt_misc/$binfmt_name ] || echo -1 >/proc/sys/fs/binfmt_misc/$binfmt_name
	[ $binfmt_mounted = 0 ] || umount /proc/sys/fs/binfmt_misc
	rm -f "$G/img/boot-"*.img.tmp
}
trap cleanup EXIT

with_time=0
for a in "$@"; do
	case $a in
	--rebuild-image) rm -rf "$G/root" ;;
	--time) with_time=1 ;;
	*) die "unknown option $a" ;;
	esac
done
if [ ! -f "$G/root/.bp-stage2" ]; then
	log "debootstrap (arm64, minbase + systemd-sysv, linux-image-arm64, e2fsprogs)"
	rm -rf "$G/root"
	mkdir -p "$G/qus"
	debootstrap --arch=arm64 --foreign --variant=minbase \
		--include=systemd-sysv,linux-image-arm64,e2fsprogs,udev,kmod,initramfs-tools,util-linux \
		bookworm "$G/root" "$mirror" >"$G/stage1.log" 2>&1 || { tail "$G/stage1.log"; die "debootstrap"; }
	# qemu-aarch64-static runs the second stage's arm64 programs: a
	# binfmt_misc entry with F (the interpreter opened now, so the chroot
	# needs no copy of it), removed at exit
	if [ ! -x "$G/qus/usr/bin/qemu-aarch64-static" ]; then
		(cd "$G/qus" && apt-get download -q qemu-user-static 2>/dev/null && dpkg -x qemu-user-static_*.deb .)
	fi
	if [ ! -f /proc/sys/fs/binfmt_misc/register ]; then
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
		binfmt_mounted=1
	fi
	printf ':%s:M::%s:%s:%s:OCF\n' "$binfmt_name" \
		'\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00' \
		'\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff' \
		"$G/qus/usr/bin/qemu-aarch64-static" >/proc/sys/fs/binfmt_misc/register
	log "debootstrap --second-stage under qemu-aarch64-static (slow)"
	nice -n 5 chroot "$G/root" /debootstrap/debootstrap --second-stage >"$G/stage2.log" 2>&1 ||
		{ tail "$G/stage2.log"; die "debootstrap --second-stage"; }
	touch "$G/root/.bp-stage2"
fi

r=$G/root
vmlinuz=$(printf "%s\n" "$r"/boot/vmlinuz-* | sort -V | tail -n 1)
initrd=$r/boot/initrd.img-${vmlinuz##*/vmlinuz-}
[ -f "$vmlinuz" ] && [ -f "$initrd" ] || die "no kernel or initrd in $r/boot"
log "kernel $(basename "$vmlinuz")"
# the guest's pieces
install -m 0755 "$b/bootpack" "$r/usr/local/sbin/bootpack"
install -m 0755 "$b/bootpack-read" "$r/usr/sbin/bootpack-read"
install -m 0755 "$top/build-arm64/bp-mincore" "$r/usr/local/sbin/bp-mincore"
install -m 0755 "$top/tests/arm64/guest/bp-arm64" "$r/usr/local/sbin/bp-arm64"
install -m 0644 "$top/tests/arm64/guest/bp-arm64-early.service" \
	"$top/tests/arm64/guest/bp-arm64-finish.service" "$r/etc/systemd/system/"
mkdir -p "$r/etc/systemd/system/sysinit.target.wants" "$r/etc/systemd/system/multi-user.target.wants" \
	"$r/etc/bp-arm64" "$r/var/lib/bootpack"
ln -sfn ../bp-arm64-early.service "$r/etc/systemd/system/sysinit.target.wants/bp-arm64-early.service"
ln -sfn ../bp-arm64-finish.service "$r/etc/systemd/system/multi-user.target.wants/bp-arm64-finish.service"
ln -sfn /lib/systemd/system/multi-user.target "$r/etc/systemd/system/default.target"
echo bparm64 >"$r/etc/hostname"
echo '/dev/vda / ext4 defaults 0 1' >"$r/etc/fstab"
: >"$r/etc/bp-arm64/ranges"
rm -rf "$r/var/lib/bp-arm64" "$r/var/lib/bootpack/"*
mkdir -p "$G/img" "$R"
log "image (mkfs.ext4 -d)"
rm -f "$G/img/base.img"
mkfs.ext4 -q -F -L bparm64 -d "$r" "$G/img/base.img" 2G

# --- 3. boots -------------------------------------------------------------------
# gboot TAG IMG CMDLINE...: boot IMG; console in $R/TAG.console
gboot() {
	local tag=$1 img=$2 t0 t1
	shift 2
	log "boot $tag: $*"
	t0=$(date +%s.%N)
	timeout "$timeout_s" nice -n 5 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg \
		-smp 1 -m "$mem" -nodefaults -display none -no-reboot \
		-kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=ttyAMA0 root=/dev/vda rw $*" \
		-drive file="$img",if=virtio,format=raw \
		-device virtio-rng-pci -serial file:"$R/$tag.console" || log "boot $tag: qemu exited $?"
	t1=$(date +%s.%N)
	echo "host_wall_s=$(echo "$t1 - $t0" | bc)" >"$R/$tag.host"
	grep -q "BP-ARM64-DONE" "$R/$tag.console" || die "boot $tag did not finish (see $R/$tag.console)"
	for f in analyze dmesg early missing; do
		debugfs -R "dump /var/lib/bp-arm64/$f-$tag.txt $R/$tag.$f" "$img" >/dev/null 2>&1 || :
	done
}
gcat() { debugfs -R "cat $2" "$1" 2>/dev/null; }

ev=filemap:mm_filemap_add_to_page_cache,block:block_rq_issue,block:block_rq_complete
traced=$G/img/traced.img
cp --sparse=always "$G/img/base.img" "$traced.tmp"
gboot trace "$traced.tmp" init=/usr/sbin/bootpack-read bootpack=trace trace_event=$ev \
	trace_buf_size=64M bp.mode=trace
gcat "$traced.tmp" /var/lib/bp-arm64/trace.log | tee "$R/trace.log"
grep -qx rc=0 "$R/trace.log" || die "trace or pack failed in the guest"
gcat "$traced.tmp" /var/lib/bp-arm64/uname.txt >"$R/uname.txt"
for f in pack pack16k boot.trace; do
	debugfs -R "dump /var/lib/bootpack/$f $R/$f" "$traced.tmp" >/dev/null 2>&1
done
# the pack's ranges, page-aligned (4 KiB: the guest's pages), for bp-mincore -l
"$top/bootpack" dump -J "$R/pack" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["files"]:
    for r in f["ranges"]:
        a = r["offset"] // 4096 * 4096
        e = -(-(r["offset"] + r["length"]) // 4096) * 4096
        e = min(e, -(-f["size"] // 4096) * 4096)
        if e > a:
            print("%s\t%d\t%d" % (f["path"], a, e - a))' >"$R/ranges"
[ -s "$R/ranges" ] || die "no ranges in the pack"
debugfs -w -R "rm /etc/bp-arm64/ranges" "$traced.tmp" >/dev/null 2>&1
debugfs -w -R "write $R/ranges /etc/bp-arm64/ranges" "$traced.tmp" >/dev/null 2>&1
mv "$traced.tmp" "$traced"

rd=init=/usr/sbin/bootpack-read
runs=("noreader bp.mode=check" "reader $rd bp.mode=check"
	"reader16k $rd bp.mode=check bp.tag=reader16k -- --pack=/var/lib/bootpack/pack16k")
[ $with_time = 0 ] || runs+=("timenoreader bp.mode=time bp.tag=timenoreader"
	"timereader $rd bp.mode=time bp.tag=timereader")
for run in "${runs[@]}"; do
	tag=${run%% *}
	rest=${run#* }
	cp --sparse=always "$traced" "$G/img/boot-$tag.img.tmp"
	# shellcheck disable=SC2086
	gboot "$tag" "$G/img/boot-$tag.img.tmp" $rest
	rm -f "$G/img/boot-$tag.img.tmp"
done

# --- results --------------------------------------------------------------------
log "results"
python3 - "$R" <<'EOF' | tee "$R/summary.txt"
import sys, os, re
R = sys.argv[1]
rng = [l.rstrip("\n").split("\t") for l in open(R + "/ranges")]
pages = [int(n) // 4096 for _, _, n in rng]
files = sorted(set(p for p, _, _ in rng))
print("guest:", open(R + "/uname.txt").read().replace("\n", " "))
print("pack: %d files, %d ranges, %d pages of 4 KiB" % (len(files), len(rng), sum(pages)))
miss = {}
for t in ("noreader", "reader", "reader16k"):
    m = [int(x) for x in open("%s/%s.missing" % (R, t)).read().split()]
    assert len(m) == len(rng), t
    miss[t] = m
    early = open("%s/%s.early" % (R, t)).read().strip()
    print("%-10s not resident early: %6d of %d pages (%s)" % (t, sum(m), sum(pages), early))
# files the boot had not touched by then: no page resident without the reader
untouched = {}
for (p, _, _), n, m in zip(rng, pages, miss["noreader"]):
    untouched.setdefault(p, [0, 0])
    untouched[p][0] += n
    untouched[p][1] += m
cold = [p for p, (n, m) in untouched.items() if n == m]
for t in ("reader", "reader16k"):
    res = sum(1 for p in cold if all(m == 0 for (q, _, _), m in zip(rng, miss[t]) if q == p))
    print("%-10s of the %d packed files with no page resident at that point without the reader, "
          "%d wholly resident" % (t, len(cold), res))
for t in ("timenoreader", "timereader", "noreader", "reader", "reader16k", "trace"):
    if not os.path.exists("%s/%s.host" % (R, t)):
        continue
    a = open("%s/%s.analyze" % (R, t)).read() if os.path.exists("%s/%s.analyze" % (R, t)) else ""
    m = re.search(r"Startup finished in (.*)", a)
    h = open("%s/%s.host" % (R, t)).read().strip()
    print("%-12s %s; %s" % (t, m.group(1) if m else "?", h))
for t in ("reader", "reader16k"):
    d = open("%s/%s.dmesg" % (R, t)).read()
    for l in d.splitlines():
        if re.search(r"bytes \(|page|pack", l):
            print("%-10s dmesg: %s" % (t, l.split("] ", 1)[-1]))
EOF
# the oracle: the reader made every page of the pack's ranges resident
for t in reader reader16k; do
	m=$(awk '{s += $1} END {print s + 0}' "$R/$t.missing")
	[ "$m" = 0 ] || die "$t: $m pages of the pack's ranges not resident after the reader"
done
grep -q 'pack built for 16384-byte pages' "$R/reader16k.dmesg" ||
	die "reader16k: the reader did not say it adapts to the 16 KiB pack"
log "ok"
