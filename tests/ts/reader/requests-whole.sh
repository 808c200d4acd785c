#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The reader's requests for data that lies back to back on the disk are as
# large as the disk takes whole, and all of one size: one submit a request
# (a block plug per submit; where the device's segments cut a request of a
# plug short, the plug's last request is a remnant). 80 files of 10-310 KiB
# written one after the other, their pack in that order; the loop device's
# own request trace (tracefs block_rq_issue) over their blocks: half the
# requests or more have one size, a power of two of at least 256 KiB within
# max_sectors_kb, and none crosses a multiple of it from the run's start.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs mke2fs
bp_tracefs >/dev/null

d=$BP_TMPDIR/tree
mkdir -p "$d"
files=()
for i in $(seq -w 1 80); do
	head -c $(((RANDOM % 300 + 10) * 1024 + RANDOM % 4096)) /dev/urandom >"$d/f$i"
	files+=("/f$i")
done
img=$BP_TMPDIR/whole.img
mke2fs -q -F -t ext4 -b 4096 -d "$d" "$img" 128M || bp_fail "mke2fs -d"
rm -rf "$d"
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" "${files[@]}"

# the files' blocks, one run: [first, last] in 4 KiB blocks
first=$(debugfs -R "bmap /f01 0" "$img" 2>/dev/null)
last_size=$(debugfs -R "stat /f80" "$img" 2>/dev/null | awk '/Size: /{print $NF; exit}')
last=$(debugfs -R "bmap /f80 $(((last_size - 1) / 4096))" "$img" 2>/dev/null)
[ -n "$first" ] && [ -n "$last" ] || bp_fail "debugfs bmap"
total=0
for f in "${files[@]}"; do
	s=$(debugfs -R "stat $f" "$img" 2>/dev/null | awk '/Size: /{print $NF; exit}')
	total=$((total + (s + 4095) / 4096))
done
[ $((last - first + 1)) -eq "$total" ] || bp_fail "the files are not back to back ($first-$last, $total blocks): the test cannot tell"

bp_loop_attach "$img" loop
mnt=$BP_TMPDIR/mnt
bp_mount "$loop" "$mnt" ro
q=/sys/block/${loop#/dev/}/queue
bp_info "$loop: max_sectors_kb $(cat "$q/max_sectors_kb"), max_segments $(cat "$q/max_segments")"
rd_issued "$loop" "$BP_TMPDIR/issue.txt" "$READER" --no-exec --config=none --log=stderr \
	--method=uring --root "$mnt" --pack "$pack" --meta-gap 0

# the read requests inside the files' run, in KiB, in the order issued
awk -v a=$((first * 8)) -v b=$(((last + 1) * 8)) '
	/block_rq_issue:/ {
		for (i = 1; i <= NF; i++) if ($i == "+") { s = $(i - 1); n = $(i + 1) }
		if (s >= a && s < b) printf "%d ", n / 2
	}
	END { print "" }' "$BP_TMPDIR/issue.txt" >"$BP_TMPDIR/sizes"
read -ra sizes <"$BP_TMPDIR/sizes"
bp_info "requests over the files' $((total * 4)) KiB: ${sizes[*]}"
n=${#sizes[@]}
[ "$n" -ge 8 ] || bp_fail "only $n requests over the files: the test cannot tell"
common=$(printf '%s\n' "${sizes[@]}" | sort -n | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
# no request crosses a multiple of that size from the run's start (a
# request seldom ends early where the submitting task slept and its plug was
# flushed: the rest of it follows as a request of its own)
at=0
cross=0
whole=0
for ((i = 0; i < n; i++)); do
	[ $((at / common)) -eq $(((at + sizes[i] - 1) / common)) ] || cross=$((cross + 1))
	[ "${sizes[i]}" -ne "$common" ] || whole=$((whole + 1))
	at=$((at + sizes[i]))
done
[ $((common & (common - 1))) -eq 0 ] && [ "$common" -ge 256 ] &&
	[ "$common" -le "$(cat "$q/max_sectors_kb")" ] ||
	bp_fail "the requests' common size is $common KiB: not a power of two of 256 KiB or more within max_sectors_kb"
[ "$cross" -eq 0 ] || bp_fail "$cross of the $n requests cross a multiple of $common KiB from the run's start"
[ $((whole * 2)) -ge "$n" ] || bp_fail "only $whole of the $n requests are $common KiB"
