#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-kernel.sh --- apply the kernel/ series to Debian's linux-source-6.1,
# build a small kernel, boot it in QEMU (TCG) from a busybox initramfs with an
# ext4 image as /dev/vda, read known files, and check that
# `bootpack trace --from-kernel` gives exactly those files and ranges, and the
# same files and ranges as the upstream tracepoints of the same boot.
#
#   kernel/check-kernel.sh [--work DIR] [--bench] [--no-install]
#
# --work DIR    sources, build and images (default /var/tmp/bootpack-kernel);
#               the build is kept, so a second run only rebuilds what changed
# --bench       also build the same config without the series and compare a
#               page-cache pread microbenchmark, recorder off vs unpatched
# --no-install  do not apt-get install missing packages; fail instead
#
# Not part of `make check` or CI: it builds a kernel (make -j2, nice 10).
# Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or setup.
# Figures (build, boot, memory, comparison) go to WORK/summary.txt.
set -euo pipefail

kdir=$(cd "$(dirname "$0")" && pwd)
srcdir=$(dirname "$kdir")
BOOTPACK=${BOOTPACK:-${BUILDDIR:-$srcdir}/bootpack}
work=/var/tmp/bootpack-kernel
bench=0
install=1
while [ $# -gt 0 ]; do
	case $1 in
	--work) work=$2; shift 2 ;;
	--bench) bench=1; shift ;;
	--no-install) install=0; shift ;;
	-h|--help) sed -n '3,19p' "$0"; exit 0 ;;
	*) echo "check-kernel: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

say() { echo "check-kernel: $*"; }
die() { echo "check-kernel: $*" >&2; exit 2; }
failures=0
check() {	# check DESCRIPTION COMMAND...: run, count a failure
	local what=$1
	shift
	if "$@"; then
		say "ok: $what"
	else
		say "FAIL: $what"
		failures=$((failures + 1))
	fi
}

[ -x "$BOOTPACK" ] || die "$BOOTPACK: not built (run make first, or set BOOTPACK=)"
mkdir -p "$work"
work=$(cd "$work" && pwd)
summary=$work/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

# --- packages ------------------------------------------------------------------
# setup.sh's list for this target (deps-kernel), installed when missing.
if [ $install = 1 ]; then
	"$srcdir/setup.sh" deps-kernel >"$work/apt.log" 2>&1 ||
		{ cat "$work/apt.log" >&2; die "packages missing (see $work/apt.log)"; }
else
	BP_NO_INSTALL=1 "$srcdir/setup.sh" deps-kernel || die "packages missing"
fi
kver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || die "$tarball: missing"
note "linux-source-6.1 $kver"

# --- sources: extract and apply the series (again only when it changed) ------------
src=$work/src
build=$work/build
stamp=$( (echo "$kver"; while read -r p; do cat "$kdir/$p"; done <"$kdir/series") |
	sha256sum | cut -d' ' -f1)
if [ "$(cat "$src/.bootpack-series" 2>/dev/null)" != "$stamp" ]; then
	say "extracting $tarball and applying $(wc -l <"$kdir/series") patches"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1 || die "tar failed"
	while read -r p; do
		patch -d "$src" -p1 --batch --forward -s <"$kdir/$p" || die "$p does not apply"
	done <"$kdir/series"
	echo "$stamp" >"$src/.bootpack-series"
fi

# --- config: tinyconfig + kernel/config.fragment ------------------------------------
configure() {	# configure BUILD FRAGMENT
	mkdir -p "$1"
	make -s -C "$src" O="$1" tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$1" "$1/.config" "$2" >/dev/null
	make -s -C "$src" O="$1" olddefconfig >/dev/null
	local want
	while read -r want; do
		grep -qx "$want" "$1/.config" || die "$want did not stick in $1/.config"
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$2")
}
kbuild() {	# kbuild BUILD LOG: make bzImage, print the seconds it took
	local t0=$SECONDS
	nice -n 10 make -C "$src" O="$1" -j2 bzImage >"$2" 2>&1 ||
		{ tail -20 "$2" >&2; die "kernel build failed (see $2)"; }
	echo $((SECONDS - t0))
}
configure "$build" "$kdir/config.fragment"
say "building (make -j2, nice 10; log $work/build.log)"
secs=$(kbuild "$build" "$work/build.log")
note "build: $secs s (make -j2 bzImage, incremental if $build existed)"
bzimage=$work/bzImage
cp "$build/arch/x86/boot/bzImage" "$bzimage"
note "bzImage: $(stat -c %s "$bzimage") bytes"

# --- the unpatched kernel of the same config, for --bench ---------------------------
if [ $bench = 1 ]; then
	say "building the same config without the series (reverse-applied, incremental)"
	tac "$kdir/series" | while read -r p; do
		patch -d "$src" -p1 -R --batch -s <"$kdir/$p" || die "$p does not reverse"
	done
	rm -f "$src/.bootpack-series"
	grep -v '^CONFIG_BOOTPACK_RECORD=' "$kdir/config.fragment" >"$work/config-vanilla.fragment"
	configure "$build" "$work/config-vanilla.fragment"
	vsecs=$(kbuild "$build" "$work/build-vanilla.log")
	cp "$build/arch/x86/boot/bzImage" "$work/bzImage-vanilla"
	while read -r p; do
		patch -d "$src" -p1 --batch --forward -s <"$kdir/$p" || die "$p does not apply"
	done <"$kdir/series"
	echo "$stamp" >"$src/.bootpack-series"
	configure "$build" "$kdir/config.fragment"
	psecs=$(kbuild "$build" "$work/build.log")
	cmp -s "$build/arch/x86/boot/bzImage" "$bzimage" || cp "$build/arch/x86/boot/bzImage" "$bzimage"
	note "build: unpatched $vsecs s, patched again $psecs s (incremental)"
fi

# --- the test image: known files ----------------------------------------------------
tree=$work/tree
rm -rf "$tree"
mkdir -p "$tree/data/dir" "$tree/data/many" "$tree/bin"
head -c 5000 /dev/urandom >"$tree/data/small.txt"
head -c 1048576 /dev/urandom >"$tree/data/big.bin"
head -c 10000 /dev/urandom >"$tree/data/dir/nested.txt"
head -c 65536 /dev/urandom >"$tree/data/untouched.bin"
head -c 262144 /dev/urandom >"$tree/data/bench.dat"
for i in $(seq -w 1 400); do head -c 1024 /dev/urandom >"$tree/data/many/f$i"; done
gcc -O2 -Wall -static -o "$tree/bin/pread-bench" "$kdir/guest/pread-bench.c" ||
	die "cannot build the guest benchmark (gcc -static)"
img=$work/test.img
rm -f "$img"
mke2fs -q -F -t ext4 -b 4096 -L bpcheck -d "$tree" "$img" 64M || die "mke2fs -d failed"
img_sum=$(sha256sum <"$img")

# --- the initramfs: busybox and guest/init.sh -----------------------------------------
cat >"$work/initramfs.list" <<-END
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /bin 0755 0 0
dir /proc 0755 0 0
dir /sys 0755 0 0
file /bin/busybox $(command -v busybox) 0755 0 0
file /init $kdir/guest/init.sh 0755 0 0
END
"$build/usr/gen_init_cpio" "$work/initramfs.list" >"$work/initramfs.cpio" ||
	die "gen_init_cpio failed"

# --- booting ------------------------------------------------------------------------------
boot() {	# boot NAME KERNEL APPEND: run the guest, unpack its /out into WORK/NAME
	local name=$1 kernel=$2 append=$3 out=$work/$1 t0
	rm -rf "$out" "$out.img"
	mkdir -p "$out"
	truncate -s 16M "$out.img"
	t0=$(date +%s.%N)
	timeout 900 qemu-system-x86_64 -accel tcg -m 256 -display none -no-reboot \
		-serial "file:$out.console" -kernel "$kernel" -initrd "$work/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 loglevel=4 $append" \
		-drive "file=$img,format=raw,if=virtio,readonly=on" \
		-drive "file=$out.img,format=raw,if=virtio" || die "qemu failed ($out.console)"
	echo "$(date +%s.%N) - $t0" | bc >"$out.wall"
	tar -xf "$out.img" -C "$out" 2>/dev/null ||
		{ tail -20 "$out.console" >&2; die "$name: the guest wrote no results ($out.console)"; }
	[ ! -s "$out/errors" ] || die "$name: $(cat "$out/errors")"
}

# expected: "path offset length" of the known reads (pages of 4 KiB, clipped
# to the file size, as the trace holds them)
cat >"$work/expected" <<-END
/data/small.txt 0 5000
/data/big.bin 65536 32768
/data/big.bin 819200 8192
/data/dir/nested.txt 0 4096
/data/bench.dat 0 262144
END

ranges() { awk '/^F /{p=$6} /^R /{print p, $2, $3}' "$1"; }
merged() {	# ranges with touching ones joined (R lines are split at extents)
	awk '/^F /{ if (n) print p, s, e - s; p = $6; n = 0 }
	     /^R /{ if (n && $2 == e) { e = $2 + $3 } else { if (n) print p, s, e - s; s = $2; e = $2 + $3; n = 1 } }
	     END { if (n) print p, s, e - s }' "$1"
}
files() { awk '/^F /{print $6}' "$1" | sort; }
timeless() {	# M and F/R lines without the times: what both sources must agree on
	awk '/^M /{print "M", $2, $3} /^F /{print "F", $6} /^R /{print "R", $2, $3, $5}' "$1"
}

# 1. The check boot: recorder and tracepoints on together.
say "booting (check): recorder and filemap tracepoints"
boot check "$bzimage" "bootpack.record=1 bp.mode=check trace_event=filemap:mm_filemap_add_to_page_cache trace_buf_size=4M"
out=$work/check
note "boot: $(cat "$out.wall") s in QEMU (TCG) from start to the guest reboot; init started at $(cat "$out/uptime-init") s, done at $(cat "$out/uptime-done") s guest uptime"
"$BOOTPACK" trace --from-kernel="$out/record" -o "$out/kernel.trace" --device "$img" \
	2>"$out/kernel.err" || { cat "$out/kernel.err"; die "bootpack trace --from-kernel failed"; }
"$BOOTPACK" trace --import "$out/trace.txt" -o "$out/import.trace" --device "$img" \
	2>"$out/import.err" || { cat "$out/import.err"; die "bootpack trace --import failed"; }
cp "$work/expected" "$out/want-files"
echo /bin/pread-bench >>"$out/want-files"
check "the traced files are exactly the files read" \
	diff -u <(cut -d' ' -f1 "$out/want-files" | sort -u) <(files "$out/kernel.trace")
check "the data files' ranges are exactly the ranges read" \
	diff -u <(sort "$work/expected") <(merged "$out/kernel.trace" | grep '^/data/' | sort)
check "the record and the tracepoints give the same files, ranges and metadata" \
	diff -u <(timeless "$out/import.trace") <(timeless "$out/kernel.trace")
check "the program run from the image is in the trace" \
	grep -q '^/bin/pread-bench ' <(ranges "$out/kernel.trace")
check "the trace is of the guest's /dev/vda ($(cat "$out/vda-dev"))" \
	grep -qx "dev $(cat "$out/vda-dev")" "$out/kernel.trace"
check "the trace is of the test image (UUID)" \
	grep -qx "uuid $(blkid -p -s UUID -o value "$img")" "$out/kernel.trace"
dirblk=$(debugfs -R "blocks /data" "$img" 2>/dev/null | awk '{print $1 * 4096}')
check "the /data directory block ($dirblk) is in the metadata read" \
	awk -v o="$dirblk" '/^M /{ if (o >= $2 && o < $2 + $3) f = 1 } END { exit !f }' \
	"$out/kernel.trace"
check "nothing dropped, nothing lost" grep -qx 'dropped 0' "$out/record"
check "'free' freed the record" grep -qx 'state freed' "$out/record-after-free"
check "the image was not modified" test "$(sha256sum <"$img")" = "$img_sum"
entries=$(awk '/^entries /{print $2}' "$out/record")
cap=$(awk '/^capacity /{print $2}' "$out/record")
vb=$(awk '/^VmallocUsed:/{print $2}' "$out/mem-before-free")
va=$(awk '/^VmallocUsed:/{print $2}' "$out/mem-after-free")
note "record: $entries entries of $cap (40 bytes each: $((entries * 40)) of $((cap * 40)) bytes used); VmallocUsed fell by $((vb - va)) KiB on 'free'"
note "tracepoints: $(grep -c 'mm_filemap_add_to_page_cache' "$out/trace.txt") add_to_page_cache events in the boot, $(grep -c '^[FB] ' "$out/record") record entries"
note "files and ranges: $(files "$out/kernel.trace" | wc -l) files, $(grep -c '^R ' "$out/kernel.trace") ranges, $(grep -c '^M ' "$out/kernel.trace") metadata ranges; the same from both sources: $(diff -q <(timeless "$out/import.trace") <(timeless "$out/kernel.trace") >/dev/null && echo yes || echo NO)"

# 2. A trace buffer too small for the boot: the tracepoints lose events, the record does not.
say "booting (flood): 400 more files read, trace_buf_size=8K"
boot flood "$bzimage" "bootpack.record=1 bp.mode=flood trace_event=filemap:mm_filemap_add_to_page_cache trace_buf_size=8K"
out=$work/flood
"$BOOTPACK" trace --from-kernel="$out/record" -o "$out/kernel.trace" --device "$img" \
	2>"$out/kernel.err" || { cat "$out/kernel.err"; die "--from-kernel failed (flood)"; }
"$BOOTPACK" trace --import "$out/trace.txt" -o "$out/import.trace" --device "$img" \
	2>"$out/import.err" || { cat "$out/import.err"; die "--import failed (flood)"; }
nk=$(files "$out/kernel.trace" | wc -l)
ni=$(files "$out/import.trace" | wc -l)
lost=$(awk '/^events /{print $4}' "$out/import.trace")
check "the record holds every file read (4 data files, the program, 400 more)" test "$nk" = 405
check "the record holds the known ranges" \
	diff -u <(sort "$work/expected") <(merged "$out/kernel.trace" | grep -v '^/data/many/' | grep '^/data/' | sort)
check "the small trace buffer lost events" test "${lost:-0}" -gt 0
check "the record lost nothing" grep -qx 'dropped 0' "$out/record"
note "small trace buffer (trace_buf_size=8K): tracepoints $ni files, $lost events lost; record $nk files, $(awk '/^dropped /{print $2}' "$out/record") pages dropped"

# 3. --bench: the cached pread loop, recorder compiled in but off, vs unpatched.
if [ $bench = 1 ]; then
	for round in 1 2 3; do
		for k in patched vanilla; do
			kimg=$bzimage
			[ $k = vanilla ] && kimg=$work/bzImage-vanilla
			say "booting (bench $k, round $round)"
			boot "bench-$k-$round" "$kimg" "bp.mode=bench"
			awk '/ns\/pread/{print $(NF-1)}' "$work/bench-$k-$round/bench" >>"$work/bench-$k.ns"
		done
	done
	med() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
	note "pread 4 KiB from the page cache, 15 runs of 25600 preads per kernel, interleaved boots: patched, recorder off: median $(med "$work/bench-patched.ns") ns (min $(sort -n "$work/bench-patched.ns" | head -1)); unpatched: median $(med "$work/bench-vanilla.ns") ns (min $(sort -n "$work/bench-vanilla.ns" | head -1))"
fi

if [ $failures -gt 0 ]; then
	say "$failures check(s) failed; figures in $summary"
	exit 1
fi
say "all checks passed; figures in $summary"
