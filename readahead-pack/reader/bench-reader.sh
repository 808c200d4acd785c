#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-reader.sh --- make bench-reader: bootpack-read's CPU, peak RSS, read methods, binary size
#
# On a 256 MiB ext4 image, loop-mounted: a 10,000-entry pack (1,000 files of
# 40 KiB, 4 KiB entries) written by the pack writer over real files.
#  1. warm cache: CPU (user + sys) and peak RSS of bootpack-read --no-exec,
#     i.e. parsing the pack and issuing every read, per method; and of
#     parsing alone (--budget=1 admits nothing); median of 7 runs
#  2. cold cache: per method, the reader's wall time, then a replay (cat of
#     every file): its wall time and the sectors it still reads; median of 3
#  3. the binary: size, static or not
# Needs root (loop device, drop_caches). Figures: readahead-pack/BENCH.md.
set -eu
: "${top_builddir:=.}"
R=$top_builddir/bootpack-read
H=$top_builddir/readahead-pack/reader/bench-reader
[ "$(id -u)" = 0 ] || { echo "bench-reader: needs root (loop device, drop_caches)"; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/bp-bench-reader.XXXXXX")
loop=
cleanup() {
	mountpoint -q "$tmp/mnt" && umount "$tmp/mnt"
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
truncate -s 256M "$tmp/img"
mke2fs -q -F -t ext4 "$tmp/img"
loop=$(losetup --find --show "$tmp/img")
mkdir "$tmp/mnt"
mount "$loop" "$tmp/mnt"
"$H" mkpack "$tmp/mnt" 10000 10 "$tmp/pack"
chmod 0644 "$tmp/pack"
sync
dev=/sys/block/$(basename "$loop")
echo "read_ahead_kb of $loop: $(cat "$dev/queue/read_ahead_kb")"

cold() { sync; blockdev --flushbufs "$loop"; echo 3 >/proc/sys/vm/drop_caches; }
sectors() { awk '{print $3}' "$dev/stat"; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
rd() { "$R" --no-exec --config=none --log=stderr --root "$tmp/mnt" --pack "$tmp/pack" "$@"; }
replay() { cat "$tmp"/mnt/bench/* >/dev/null; }

echo
echo "1. warm cache, 10,000 entries: CPU (user+sys, ms) and peak RSS (KiB), median of 7"
replay
for m in parse pread readahead fadvise; do
	: >"$tmp/cpu"; : >"$tmp/rss"
	for _ in 1 2 3 4 5 6 7; do
		if [ $m = parse ]; then
			set -- --budget=1
		else
			set -- --method=$m
		fi
		"$H" run "$R" --no-exec --config=none --log=stderr --root "$tmp/mnt" \
			--pack "$tmp/pack" "$@" 2>"$tmp/log" >"$tmp/ru"
		read -r u s _ _ <"$tmp/ru"
		echo "$u $s" | awk '{printf "%.3f\n", $1 + $2}' >>"$tmp/cpu"
		echo "$rss" >>"$tmp/rss"
	done
	printf '  %-10s cpu %s ms  (min %s)  rss %s KiB   %s\n' "$m" "$(median <"$tmp/cpu")" \
		"$(sort -n "$tmp/cpu" | head -n 1)" "$(median <"$tmp/rss")" "$(sed 's/^bootpack-read: //' "$tmp/log")"
done

echo
echo "2. cold cache: reader wall, then replay wall and sectors read (median of 3)"
: >"$tmp/w"; : >"$tmp/s"
for _ in 1 2 3; do
	cold; s0=$(sectors); t0=$(date +%s%N); replay; t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 )) >>"$tmp/w"; echo $(( $(sectors) - s0 )) >>"$tmp/s"
done
printf '  %-10s replay %s ms, %s sectors\n' "none" "$(median <"$tmp/w")" "$(median <"$tmp/s")"
for m in pread readahead fadvise; do
	: >"$tmp/rw"; : >"$tmp/w"; : >"$tmp/s"; : >"$tmp/t"
	for _ in 1 2 3; do
		cold
		t0=$(date +%s%N); rd --method=$m 2>/dev/null; t1=$(date +%s%N)
		s0=$(sectors); replay; t2=$(date +%s%N)
		echo $(( (t1 - t0) / 1000000 )) >>"$tmp/rw"
		echo $(( (t2 - t1) / 1000000 )) >>"$tmp/w"
		echo $(( (t2 - t0) / 1000000 )) >>"$tmp/t"
		echo $(( $(sectors) - s0 )) >>"$tmp/s"
	done
	printf '  %-10s reader %s ms, replay %s ms, %s sectors; total %s ms\n' "$m" \
		"$(median <"$tmp/rw")" "$(median <"$tmp/w")" "$(median <"$tmp/s")" "$(median <"$tmp/t")"
done

echo
echo "3. binary"
printf '  %s: %s bytes, ' "$R" "$(stat -c %s "$R")"
if ldd "$R" >/dev/null 2>&1; then echo "dynamic ($(ldd "$R" | awk '{print $1}' | tr '\n' ' '))"; else echo static; fi
size "$R" 2>/dev/null | sed 's/^/  /' || true
