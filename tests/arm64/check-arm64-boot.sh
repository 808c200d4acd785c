#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-arm64-boot.sh --- make check-arm64-boot: the bootpack loop on a
# Debian 12 arm64 guest under qemu-system-aarch64 (TCG). Not part of CI;
# needs root and the Debian archive. doc/arm64.md tells what it shows.
#
#   tests/arm64/check-arm64-boot.sh [--page-size 16k|4k] [--rebuild-image]
#                                   [--reuse-trace] [--time]
#
# --page-size 16k (the default): Debian's linux-image-*-arm64-16k (Linux 6.12
# from bookworm-security), installed in the root; 4k: the root's own
# linux-image-arm64 (6.1, 4 KiB pages). --reuse-trace: the traced image and
# packs of the last run, not a new trace boot (the guest's programs as they
# were then).
# 1. the aarch64 build (tests/check-arm64.sh --build-only: bootpack dynamic,
#    bootpack-read static) and bp-mincore, static, for the guest
# 2. a Debian 12 arm64 root (debootstrap --foreign, the second stage under
#    qemu-aarch64-static through a binfmt_misc entry of its own, removed
#    after) cached in $G/root; an ext4 image of it (mkfs.ext4 -d)
#    and an initramfs of our own (initrd-init.c and the modules the root
#    needs: virtio-blk, ext4 and theirs), not mkinitramfs under qemu-user
# 3. boots, each of a fresh copy of the image:
#    trace     init=bootpack-read bootpack=trace trace_event=...; in the guest
#              bootpack trace --from-boot, bootpack pack (the guest's pages)
#              and a pack for the other size (--page-size 4K on a 16 KiB
#              guest, 16K on a 4 KiB one)
#    noreader  the pack's ranges checked early (bp-mincore, before
#              sysinit.target): what the boot itself had read by then
#    reader    the same with init=bootpack-read: every page resident
#    reader4k  (reader16k on a 4 KiB guest) the same with the pack built for
#              the other page size: the reader adapts
#    time*     (--time) without the early check: systemd-analyze without
#              and with the reader
# Results in $G/results-16k/ or results-4k/ (summary.txt).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# the caches' place of every harness (bench/boot/env.sh): /var/cache/bootpack
# as root, else $XDG_CACHE_HOME/bootpack
# shellcheck source=bench/boot/env.sh
. "$top/bench/boot/env.sh"
cache=${BP_ARM64_CACHE:-$BP_CACHE_ROOT/arm64}
G=${BP_ARM64_GUEST:-$cache/guest}
b=$top/build-arm64/src
multi=aarch64-linux-gnu
mirror=${BP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mem=${BP_ARM64_MEM:-1024}
timeout_s=${BP_ARM64_TIMEOUT:-1500}

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
proc_mounted=0
cleanup() {
	[ $proc_mounted = 0 ] || umount "$G/root/proc"
	[ ! -e /proc/sys/fs/binfmt_misc/$binfmt_name ] || echo -1 >/proc/sys/fs/binfmt_misc/$binfmt_name
	[ $binfmt_mounted = 0 ] || umount /proc/sys/fs/binfmt_misc
	rm -f "$G/img/boot-"*.img.tmp
}
trap cleanup EXIT

with_time=0
reuse=0
page=16k
while [ $# -gt 0 ]; do
	case $1 in
	--rebuild-image) rm -rf "$G/root" ;;
	--time) with_time=1 ;;
	--reuse-trace) reuse=1 ;;
	--page-size)
		[ $# -ge 2 ] || die "--page-size needs 16k or 4k"
		page=${2,,}
		shift
		;;
	*) die "unknown option $1" ;;
	esac
	shift
done
case $page in
16k) flavour=arm64-16k other=4K ;;
4k) flavour=arm64 other=16K ;;
*) die "--page-size: 16k or 4k, not $page" ;;
esac
R=$G/results-$page
# binfmt_misc: qemu-aarch64-static runs the root's arm64 programs (the F
# flag: the interpreter is opened now, so the chroot needs no copy of it)
binfmt_on() {
	[ ! -e /proc/sys/fs/binfmt_misc/$binfmt_name ] || return 0
	if [ ! -x "$G/qus/usr/bin/qemu-aarch64-static" ]; then
		mkdir -p "$G/qus"
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
}
if [ ! -f "$G/root/.bp-stage2" ]; then
	log "debootstrap (arm64, minbase + systemd-sysv, linux-image-arm64, e2fsprogs)"
	rm -rf "$G/root"
	mkdir -p "$G/qus"
	debootstrap --arch=arm64 --foreign --variant=minbase \
		--include=systemd-sysv,linux-image-arm64,e2fsprogs,udev,kmod,initramfs-tools,util-linux \
		bookworm "$G/root" "$mirror" >"$G/stage1.log" 2>&1 || { tail "$G/stage1.log"; die "debootstrap"; }
	binfmt_on
	# INITRD=No: the kernel's postinst makes no initramfs (mkinitramfs
	# under qemu-user takes most of an hour; the check makes its own below)
	log "debootstrap --second-stage under qemu-aarch64-static (slow)"
	INITRD=No nice -n 19 chroot "$G/root" /debootstrap/debootstrap --second-stage \
		>"$G/stage2.log" 2>&1 || { tail "$G/stage2.log"; die "debootstrap --second-stage"; }
	touch "$G/root/.bp-stage2"
fi

r=$G/root
# the 16 KiB kernel: Linux 6.12 of bookworm-security (Debian 12's own 6.1 has
# no 16k flavour), fetched by the host's apt (arm64 among its architectures,
# tests/check-arm64.sh sees to it) and installed by dpkg -i in the root
if [ "$page" = 16k ] && ! compgen -G "$r/boot/vmlinuz-*-$flavour" >/dev/null; then
	log "the 16 KiB kernel: linux-image-6.12-arm64-16k from bookworm-security"
	k=$(apt-cache depends linux-image-6.12-arm64-16k:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^:]*-arm64-16k\).*/\1/p' | head -n 1)
	[ -n "$k" ] || die "no linux-image-6.12-arm64-16k in apt's lists (is bookworm-security there?)"
	rm -f "$r/tmp/$k"_*.deb
	(cd "$r/tmp" && apt-get download -q "$k:arm64" >/dev/null 2>&1) || die "apt-get download $k:arm64"
	binfmt_on
	mount -t proc proc "$r/proc"
	proc_mounted=1
	INITRD=No nice -n 19 chroot "$r" sh -c 'dpkg -i /tmp/linux-image-*-arm64-16k_*.deb' \
		>"$G/kernel16k.log" 2>&1 || { tail "$G/kernel16k.log"; die "dpkg -i $k"; }
	umount "$r/proc"
	proc_mounted=0
	rm -f "$r/tmp/$k"_*.deb
fi
vmlinuz=$(printf "%s\n" "$r"/boot/vmlinuz-*-"$flavour" | sort -V | tail -n 1)
[ -f "$vmlinuz" ] || die "no vmlinuz-*-$flavour in $r/boot"
kver=${vmlinuz##*/vmlinuz-}
grep -q "^CONFIG_ARM64_${page^^}_PAGES=y" "$r/boot/config-$kver" || die "$kver: not ${page^^} pages"
log "kernel $kver ($(grep -o 'ARM64_[0-9]*K_PAGES=y' "$r/boot/config-$kver"))"

# The initramfs: initrd-init (static) and, uncompressed and in load order,
# the modules root= needs that the kernel does not have built in (modules.dep
# lists a module's dependencies, the deepest last).
initrd=$G/img/initrd-$kver.img
mkdir -p "$G/img"
ir=$G/img/initrd-$kver.d
rm -rf "$ir"
mkdir -p "$ir/modules"
$multi-gcc -static -O2 -Wall -Wextra -o "$ir/init" "$top/tests/arm64/initrd-init.c"
md=$r/lib/modules/$kver
[ -s "$md/modules.dep" ] || die "no $md/modules.dep (depmod did not run)"
declare -A have=()
modadd() {	# modadd PATH-IN-modules.dep: its dependencies first, then itself
	local m=$1 deps d n i
	[ -z "${have[$m]:-}" ] || return 0
	have[$m]=1
	read -r -a deps <<<"$(sed -n "s|^$m: *||p" "$md/modules.dep")"
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
		modadd "${deps[i]}"
	done
	d=$(basename "$m")
	n=${d%.xz}
	n=${n%.zst}
	case $d in
	*.xz) xz -dc "$md/$m" >"$ir/modules/$n" ;;
	*.zst) zstd -qdc "$md/$m" >"$ir/modules/$n" ;;
	*) cp "$md/$m" "$ir/modules/$n" ;;
	esac
	echo "$n" >>"$ir/modules/order"
}
for want in virtio_pci virtio_blk crc32c_generic ext4; do
	m=$(grep -E "(^|/)$want\.ko(\.[a-z]+)?:" "$md/modules.dep" | cut -d: -f1 || :)
	[ -z "$m" ] || modadd "$m"
done
grep -q ext4 "$ir/modules/order" || grep -q '^CONFIG_EXT4_FS=y' "$r/boot/config-$kver" ||
	die "$kver: no ext4 module"
log "initramfs: $(tr '\n' ' ' <"$ir/modules/order")"
(cd "$ir" && find . | cpio -o -H newc --quiet | gzip -1 >"$initrd")
# the guest's pieces
install -m 0755 "$b/bootpack" "$r/usr/local/sbin/bootpack"
install -m 0755 "$b/bootpack-read" "$r/usr/sbin/bootpack-read"
install -m 0755 "$top/build-arm64/bp-mincore" "$r/usr/local/sbin/bp-mincore"
install -m 0755 "$top/tests/arm64/guest/bp-arm64" "$r/usr/local/sbin/bp-arm64"
install -m 0644 "$top/tests/arm64/guest/bp-arm64-early.service" \
	"$top/tests/arm64/guest/bp-arm64-finish.service" "$r/etc/systemd/system/"
u=$r/etc/systemd/system
mkdir -p "$u/sysinit.target.wants" "$u/multi-user.target.wants" "$r/etc/bp-arm64" "$r/var/lib/bootpack"
ln -sfn ../bp-arm64-early.service "$u/sysinit.target.wants/bp-arm64-early.service"
ln -sfn ../bp-arm64-finish.service "$u/multi-user.target.wants/bp-arm64-finish.service"
ln -sfn /lib/systemd/system/multi-user.target "$r/etc/systemd/system/default.target"
echo bparm64 >"$r/etc/hostname"
echo '/dev/vda / ext4 defaults 0 1' >"$r/etc/fstab"
: >"$r/etc/bp-arm64/ranges"
rm -rf "$r/var/lib/bp-arm64" "$r/var/lib/bootpack/"*
mkdir -p "$G/img" "$R"
traced=$G/img/traced-$page.img
if [ $reuse = 0 ] || [ ! -f "$traced" ] || [ ! -s "$R/ranges" ]; then
	reuse=0
	log "image (mkfs.ext4 -d)"
	rm -f "$G/img/base.img"
	mkfs.ext4 -q -F -L bparm64 -d "$r" "$G/img/base.img" 2G
fi

# --- 3. boots -------------------------------------------------------------------
# gboot TAG IMG CMDLINE...: boot IMG; console in $R/TAG.console
gboot() {
	local tag=$1 img=$2 t0 t1
	shift 2
	log "boot $tag: $*"
	rm -f "$R/$tag".*
	t0=$(date +%s.%N)
	timeout "$timeout_s" nice -n 19 qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg \
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
# Linux 6.12 (the 16k kernel) has the page-access events too: the trace then
# leaves out readahead nobody used
[ "$page" = 4k ] ||
	ev=$ev,filemap:mm_filemap_get_pages,filemap:mm_filemap_map_pages,filemap:mm_filemap_fault
if [ $reuse = 1 ]; then
	log "reusing $traced and the packs of the last trace boot"
	pg=$(tail -n 1 "$R/uname.txt")
else
	cp --sparse=always "$G/img/base.img" "$traced.tmp"
	gboot trace "$traced.tmp" init=/usr/sbin/bootpack-read bootpack=trace trace_event=$ev \
		trace_buf_size=64M bp.mode=trace bp.other=$other
	gcat "$traced.tmp" /var/lib/bp-arm64/trace.log | tee "$R/trace.log"
	grep -qx rc=0 "$R/trace.log" || die "trace or pack failed in the guest"
	gcat "$traced.tmp" /var/lib/bp-arm64/uname.txt >"$R/uname.txt"
	for f in pack pack-other boot.trace; do
		debugfs -R "dump /var/lib/bootpack/$f $R/$f" "$traced.tmp" >/dev/null 2>&1
	done
	# the guest's page size (getconf PAGESIZE there) and the pack's ranges
	# aligned to it, for bp-mincore -l
	pg=$(tail -n 1 "$R/uname.txt")
	[ "$pg" = $((${page%k} * 1024)) ] || die "the guest's page size is $pg, not $page"
	"$top/bootpack" dump -J "$R/pack" | python3 -c '
import json, sys
pg = int(sys.argv[1])
d = json.load(sys.stdin)
assert d["pack"]["page_size"] == pg, "pack for %d-byte pages" % d["pack"]["page_size"]
for r in d["entries"]:
    a = r["offset"] // pg * pg
    e = -(-(r["offset"] + r["length"]) // pg) * pg
    e = min(e, -(-r["size"] // pg) * pg)
    if e > a:
        print("%s\t%d\t%d" % (r["path"], a, e - a))' "$pg" >"$R/ranges"
	[ -s "$R/ranges" ] || die "no ranges in the pack"
	debugfs -w -R "rm /etc/bp-arm64/ranges" "$traced.tmp" >/dev/null 2>&1
	debugfs -w -R "write $R/ranges /etc/bp-arm64/ranges" "$traced.tmp" >/dev/null 2>&1
	mv "$traced.tmp" "$traced"
fi

rd=init=/usr/sbin/bootpack-read
ro=reader${other,,}
runs=("noreader bp.mode=check" "reader $rd bp.mode=check"
	"$ro $rd bp.mode=check -- --pack=/var/lib/bootpack/pack-other")
[ $with_time = 0 ] || runs+=("timenoreader bp.mode=time" "timereader $rd bp.mode=time")
for run in "${runs[@]}"; do
	tag=${run%% *}
	rest=${run#* }
	cp --sparse=always "$traced" "$G/img/boot-$tag.img.tmp"
	# shellcheck disable=SC2086
	gboot "$tag" "$G/img/boot-$tag.img.tmp" bp.tag="$tag" $rest
	rm -f "$G/img/boot-$tag.img.tmp"
done

# --- results --------------------------------------------------------------------
log "results"
python3 - "$R" "$pg" "$ro" <<'EOF' | tee "$R/summary.txt"
import sys, os, re
R, pg, ro = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = [l.rstrip("\n").split("\t") for l in open(R + "/ranges")]
pages = [int(n) // pg for _, _, n in rng]
files = sorted(set(p for p, _, _ in rng))
print("guest:", open(R + "/uname.txt").read().replace("\n", " "))
print("pack: %d files, %d ranges, %d pages of %d bytes (the guest's, getconf PAGESIZE)"
      % (len(files), len(rng), sum(pages), pg))
miss = {}
for t in ("noreader", "reader", ro):
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
for t in ("reader", ro):
    res = sum(1 for p in cold if all(m == 0 for (q, _, _), m in zip(rng, miss[t]) if q == p))
    print("%-10s of the %d packed files with no page resident at that point without the reader, "
          "%d wholly resident" % (t, len(cold), res))
for t in ("timenoreader", "timereader", "noreader", "reader", ro, "trace"):
    if not os.path.exists("%s/%s.host" % (R, t)):
        continue
    a = open("%s/%s.analyze" % (R, t)).read() if os.path.exists("%s/%s.analyze" % (R, t)) else ""
    m = re.search(r"Startup finished in (.*)", a)
    h = open("%s/%s.host" % (R, t)).read().strip()
    print("%-12s %s; %s" % (t, m.group(1) if m else "?", h))
for t in ("reader", ro):
    d = open("%s/%s.dmesg" % (R, t)).read()
    for l in d.splitlines():
        if re.search(r"bytes \(|page|pack", l):
            print("%-10s dmesg: %s" % (t, l.split("] ", 1)[-1]))
EOF
# the oracle: the reader made every page of the pack's ranges resident
for t in reader $ro; do
	m=$(awk '{s += $1} END {print s + 0}' "$R/$t.missing")
	[ "$m" = 0 ] || die "$t: $m pages of the pack's ranges not resident after the reader"
done
grep -q "pack built for $((${other%K} * 1024))-byte pages" "$R/$ro.dmesg" ||
	die "$ro: the reader did not say it adapts to the pack built for $other pages"
# and read it without an error (a range rounded out past the end of a file
# once ended in short io_uring reads, counted errors: 106 of them)
for t in reader $ro; do
	grep -q ' 0 cut, 0 errors,' "$R/$t.dmesg" || die "$t: the reader counted errors (see $R/$t.dmesg)"
done
log "ok"
