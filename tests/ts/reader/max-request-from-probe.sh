#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The request size the probe of 'bootpack setup' measured caps the reader's
# requests: with a probe file saying max_request=128 KiB (--probe-file), the
# requests over 80 files that lie back to back are 128 KiB, not the 512 KiB
# or more the loop device's queue limits allow; --max-request 64K on the
# command line wins over the file. The oracle is the loop device's own
# request trace (tracefs block_rq_issue), as in requests-whole.
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
img=$BP_TMPDIR/maxreq-b.img
mke2fs -q -F -t ext4 -b 4096 -d "$d" "$img" 128M || bp_fail "mke2fs -d"
rm -rf "$d"
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" "${files[@]}"
first=$(debugfs -R "bmap /f01 0" "$img" 2>/dev/null)
last_size=$(debugfs -R "stat /f80" "$img" 2>/dev/null | awk '/Size: /{print $NF; exit}')
last=$(debugfs -R "bmap /f80 $(((last_size - 1) / 4096))" "$img" 2>/dev/null)
[ -n "$first" ] && [ -n "$last" ] || bp_fail "debugfs bmap"

bp_loop_attach "$img" loop
mnt=$BP_TMPDIR/mnt
bp_mount "$loop" "$mnt" ro
max_kb=$(cat "/sys/block/${loop#/dev/}/queue/max_sectors_kb")
[ "$max_kb" -ge 512 ] || bp_skip "$loop takes $max_kb KiB at most: a 128 KiB cap would not show"

cat >"$BP_TMPDIR/probe" <<'P'
# Written by 'bootpack setup' (a test's copy)
model=eee-flash
far_ms=0.664
rate_mbs=24.1
max_request=131072
in_flight=4194304
P

# sizes OUT: the read requests inside the files' run, in KiB
sizes() {
	awk -v a=$((first * 8)) -v b=$(((last + 1) * 8)) '
		/block_rq_issue:/ {
			for (i = 1; i <= NF; i++) if ($i == "+") { s = $(i - 1); n = $(i + 1) }
			if (s >= a && s < b) printf "%d\n", n / 2
		}' "$1"
}
# expect CAP_KB ARGS...: the reader's requests over the files are CAP_KB, none larger
expect() {
	local cap=$1 n common big
	shift
	rd_issued "$loop" "$BP_TMPDIR/issue.txt" "$READER" --no-exec --config=none --log=stderr \
		--method=uring --root "$mnt" --pack "$pack" --meta-gap 0 "$@"
	sizes "$BP_TMPDIR/issue.txt" >"$BP_TMPDIR/sizes"
	n=$(wc -l <"$BP_TMPDIR/sizes")
	common=$(sort -n "$BP_TMPDIR/sizes" | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
	big=$(awk -v c="$cap" '$1 > c' "$BP_TMPDIR/sizes" | wc -l)
	bp_info "$*: $n requests, mostly $common KiB, $big above $cap KiB"
	[ "$n" -ge 8 ] || bp_fail "$*: only $n requests over the files: the test cannot tell"
	[ "$common" = "$cap" ] || bp_fail "$*: the requests are mostly $common KiB, not $cap KiB"
	[ "$big" -eq 0 ] || bp_fail "$*: $big requests above $cap KiB"
}
expect 128 --probe-file "$BP_TMPDIR/probe"
expect 64 --probe-file "$BP_TMPDIR/probe" --max-request 64K
# without the file, the queue's limit (the oracle sees that it differs)
rd_issued "$loop" "$BP_TMPDIR/issue.txt" "$READER" --no-exec --config=none --log=stderr \
	--method=uring --root "$mnt" --pack "$pack" --meta-gap 0 --probe-file none
common=$(sizes "$BP_TMPDIR/issue.txt" | sort -n | uniq -c | sort -rn | awk 'NR == 1 {print $2}')
bp_info "no probe file: mostly $common KiB"
[ "$common" -gt 128 ] || bp_fail "without the probe file the requests are $common KiB: the test cannot tell"
exit 0
