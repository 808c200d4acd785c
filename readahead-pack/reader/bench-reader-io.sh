#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-reader-io.sh --- make bench-reader-io: request sizes at the device per read method
#
# A 512 MiB ext4 image, loop-mounted; FILES files (boot-like sizes, 4 KiB to
# 4 MiB, fixed seed). A traced cold `cat` of all of them
# (bootpack trace) is laid out with bootpack relayout, which writes the
# pack. Then, per method and
# I/O priority, RUNS times from a cold cache: bootpack-read --no-exec with
# block:block_rq_issue of the loop device recorded in a tracefs instance of
# our own (removed at the end); printed: requests, bytes, mean request, the
# share of the bytes in requests of >= 1 MiB, wall time, CPU (user + sys),
# and the sectors a replay (cat of every file) still reads afterwards.
# Needs root. Figures: readahead-pack/BENCH.md.
set -eu
: "${top_builddir:=.}"
R=$top_builddir/bootpack-read
B=$top_builddir/bootpack
H=$top_builddir/readahead-pack/reader/bench-reader
FILES=${FILES:-1500}
RUNS=${RUNS:-3}
METHODS=${METHODS:-"pread readahead fadvise uring"}
IOPRIOS=${IOPRIOS:-"be"}
[ "$(id -u)" = 0 ] || { echo "bench-reader-io: needs root (loop device, tracefs)"; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/bp-bench-io.XXXXXX")
loop='' inst=''
cleanup() {
	[ -n "$inst" ] && [ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
	mountpoint -q "$tmp/mnt" && umount "$tmp/mnt"
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
truncate -s 512M "$tmp/img"
mke2fs -q -F -t ext4 -b 4096 "$tmp/img"
loop=$(losetup --find --show "$tmp/img")
mkdir "$tmp/mnt"
mount "$loop" "$tmp/mnt"
q=/sys/block/$(basename "$loop")/queue
echo 2560 >"$q/read_ahead_kb"

# Boot-like sizes: 60 % 4-32 KiB, 30 % 32-256 KiB, 10 % 256 KiB-4 MiB.
awk -v n="$FILES" 'BEGIN { srand(20081013); for (i = 0; i < n; i++) { r = rand();
	if (r < 0.6) s = 4096 + int(rand() * 28672); else if (r < 0.9) s = 32768 + int(rand() * 229376);
	else s = 262144 + int(rand() * 3932160); printf "d%02d/f%05d %d\n", int(i / 100), i, s } }' \
	>"$tmp/list"
while read -r f s; do
	mkdir -p "$tmp/mnt/$(dirname "$f")"
	head -c "$s" /dev/urandom >"$tmp/mnt/$f"
done <"$tmp/list"
sync
total=$(awk '{t += $2} END {print t}' "$tmp/list")
echo "$FILES files, $total bytes; $loop: max_sectors_kb $(cat "$q/max_sectors_kb")," \
	"max_segments $(cat "$q/max_segments"), read_ahead_kb $(cat "$q/read_ahead_kb")," \
	"scheduler $(sed 's/.*\[\(.*\)\].*/\1/' "$q/scheduler"), nr_requests $(cat "$q/nr_requests")"

cold() { sync; blockdev --flushbufs "$loop"; echo 3 >/proc/sys/vm/drop_caches; }
replay() { (cd "$tmp/mnt" && awk '{print $1}' "$tmp/list" | xargs cat >/dev/null); }
sectors() { awk '{print $3}' "/sys/block/$(basename "$loop")/stat"; }

cold
"$B" trace -o "$tmp/trace" --device "$loop" -- bash -c "$(declare -f replay); tmp=$tmp; replay" \
	>/dev/null 2>"$tmp/trace.err" || { cat "$tmp/trace.err"; exit 1; }
# Relayout: the traced blocks become one region in first-access order.
umount "$tmp/mnt"
e2fsck -fp "$loop" >/dev/null
"$B" relayout --trace "$tmp/trace" --no-undo --pack "$tmp/pack" "$loop" >"$tmp/relayout.out" 2>&1 ||
	{ cat "$tmp/relayout.out"; exit 1; }
tail -n 2 "$tmp/relayout.out"
mount "$loop" "$tmp/mnt"
chmod 0644 "$tmp/pack"
# Contiguity of the pack on disk: runs of entries that follow each other.
"$B" dump --json --sort=disk "$tmp/pack" | python3 -c '
import json, sys
d = json.load(sys.stdin)
e = d["entries"]
runs, end, n = 0, None, 0
for x in e:
    if end is None or x["phys"] != end:
        runs += 1
    end = x["phys"] + (x["offset"] + x["length"] + 4095) // 4096 * 4096 - x["offset"]; n += x["length"]
print("pack: %d entries, %d bytes, %d physical runs (%.0f KiB per run)" % (len(e), n, runs, n / 1024 / max(runs, 1)))
' 2>/dev/null || echo "pack: (no physical offsets in dump --json)"

tfs=/sys/kernel/tracing
inst=$tfs/instances/bp-bench-io-$$
mkdir "$inst"
devt=$(( $(stat -c %t "$loop" | sed 's/^/0x/') << 20 | $(stat -c %T "$loop" | sed 's/^/0x/') ))
echo "dev == $devt" >"$inst/events/block/block_rq_issue/filter"
echo 16384 >"$inst/buffer_size_kb"

printf '\n| method | ioprio | requests | MiB | mean KiB | bytes in >= 1 MiB requests | wall ms | CPU ms | replay sectors |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for m in $METHODS; do
	for p in $IOPRIOS; do
		for ((i = 0; i < RUNS; i++)); do
			cold
			echo >"$inst/trace"
			echo 1 >"$inst/events/block/block_rq_issue/enable"
			"$H" run "$R" --no-exec --config=none --log=stderr --root "$tmp/mnt" \
				--pack "$tmp/pack" --method="$m" --ioprio="$p" 2>"$tmp/log" >"$tmp/ru" ||
				{ echo "bootpack-read --method=$m failed:"; cat "$tmp/log"; }
			echo 0 >"$inst/events/block/block_rq_issue/enable"
			read -r u s _ _ <"$tmp/ru"
			s0=$(sectors)
			replay
			s1=$(sectors)
			awk -v m="$m" -v p="$p" -v u="$u" -v s="$s" -v w="$wall" -v rs=$((s1 - s0)) '
				/block_rq_issue/ { for (i = 1; i <= NF; i++) if ($i == "+") { n = $(i + 1) * 512;
					if ($(i - 4 + 0) ~ /R/ || 1) { c++; b += n; if (n >= 1048576) big += n } } }
				END { printf "| %s | %s | %d | %.1f | %.0f | %.0f %% | %.0f | %.1f | %d |\n",
					m, p, c, b / 1048576, c ? b / c / 1024 : 0, b ? 100 * big / b : 0,
					w, u + s, rs }' "$inst/trace"
			grep -q ' 0 errors' "$tmp/log" || cat "$tmp/log"
			[ -z "${KEEP:-}" ] || cp "$inst/trace" "$KEEP.$m.$p.$i"
			[ -z "${HIST:-}" ] || awk '/block_rq_issue/ { for (i = 1; i <= NF; i++) if ($i == "+")
				print $(i + 1) / 2 " KiB " $NF }' "$inst/trace" | sort | uniq -c | sort -rn | head -n 6
		done
	done
done
