#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-plan.sh --- planning time against the number of traced ranges of one file
#
#   relayout/bench-plan.sh [N...]     (default: 10000 100000 1000000; make bench-plan)
#
# One file of a 64 MiB ext4 image (4 KiB blocks) is 8 GiB long, sparse but
# for its first 1 MiB; the trace reads 4 KiB every 8 KiB of it, N ranges,
# last first. `bootpack relayout -n` plans it (the ranges over holes go
# through the whole stream build and piece cutting, then move nothing);
# printed: N, wall time and the engine's planning time. Figures in
# relayout/BENCH.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bootpack=${BOOTPACK:-$top/bootpack}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-plan.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
img=$tmp/img
truncate -s 64M "$img"
mkfs.ext4 -q -F -b 4096 "$img"
head -c $((1 << 20)) /dev/urandom >"$tmp/f"
truncate -s 8G "$tmp/f"
debugfs -w -R "write $tmp/f /f" "$img" >/dev/null 2>&1
"$top/tests/mktrace.sh" "$img" "$tmp/t1" "/f:0:4096" >/dev/null
printf '%10s %10s %10s\n' ranges wall_s plan_s
[ $# -gt 0 ] || set -- 10000 100000 1000000
for n in "$@"; do
	awk -v n="$n" '
		/^events / { print "events " n + 1 " " n + 1 " 0"; next }
		/^end / { print "end " n + 1; next }
		/^R / { for (i = 0; i < n; i++) printf "R %.0f 4096 %.0f 0\n", i * 8192, (n - i) * 1000; next }
		{ print }' "$tmp/t1" >"$tmp/t"
	t0=$(date +%s%N)
	"$bootpack" relayout -n --json --trace "$tmp/t" "$img" >"$tmp/out" 2>&1 || true
	wall=$(( ($(date +%s%N) - t0) / 1000000 ))
	plan=$(awk -F'[:,] *' '/"plan_seconds"/ {print $2}' "$tmp/out")
	printf '%10s %10s %10s\n' "$n" "$(awk -v w="$wall" 'BEGIN {printf "%.2f", w / 1000}')" "${plan:-?}"
done
