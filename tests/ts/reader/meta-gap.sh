#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --meta-gap: metadata ranges a gap of at most SIZE apart are read as one
# request, the gap included (a rotating disk reads through a short gap
# faster than it seeks over it). On a loop-mounted fixture with caches
# dropped, bootpack-read --meta-gap 1M leaves every page of the gaps
# between the pack's metadata ranges (those of at most 1 MiB, computed here
# from 'bootpack dump --json') resident in the block device's cache
# (mincore from outside), and reports exactly their bytes; with
# --meta-gap 0 most of them are not resident and it reports 0 bytes.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs blockdev python3

img=$(bp_fixture ext4)
pack=$BP_TMPDIR/pack
mapfile -t files < <(awk '$2 ~ /^\/(etc|usr\/bin|usr\/lib|var)\// {print $2}' "$img.files" | head -n 60)
[ ${#files[@]} -ge 20 ] || bp_fail "fixture has too few files"
rd_trace_text "$img" 7:0 "$BP_TMPDIR/rd.txt" "${files[@]}"
"$BOOTPACK" trace --import "$BP_TMPDIR/rd.txt" -o "$BP_TMPDIR/rd.trace" --device "$img" >/dev/null 2>&1
"$BOOTPACK" pack --trace "$BP_TMPDIR/rd.trace" -o "$pack" --meta=files "$img" >/dev/null
chmod 0644 "$pack"
# the gaps of at most 1 MiB between consecutive metadata ranges: "off len"
"$BOOTPACK" dump "$pack" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d.get("pack", {})
m = sorted((x["offset"], x["length"]) for x in d.get("meta", p.get("meta", [])))
for (a, l), (b, _) in zip(m, m[1:]):
    if 0 < b - (a + l) <= 1 << 20:
        print(a + l, b - (a + l))
' >"$BP_TMPDIR/gaps"
ngaps=$(wc -l <"$BP_TMPDIR/gaps")
[ "$ngaps" -ge 2 ] || bp_fail "the pack's metadata ranges have $ngaps gaps of at most 1 MiB; the test needs some"
want=$(awk '{s += $2} END {print s}' "$BP_TMPDIR/gaps")

bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro

gaps_missing() {
	local off len n=0
	while read -r off len; do
		n=$((n + $("$RD_HELPERS/bp-mincore" -m "$loop" "$off" "$len")))
	done <"$BP_TMPDIR/gaps"
	echo "$n"
}
gap_pages=$(awk '{s += int(($1 % 4096 + $2 + 4095) / 4096)} END {print s}' "$BP_TMPDIR/gaps")

# run GAP: one cold read with --meta-gap GAP; sets $missing.
run() {
	for _ in 1 2 3; do
		rd_cold "$loop"
		rd_canary_set
		bp_expect_exit 0 "$READER" --no-exec --config=none --log=stderr --root "$BP_TMPDIR/mnt" \
			--pack "$pack" --meta-gap "$1"
		missing=$(gaps_missing)
		rd_canary_lost || break
	done
	cat "$BP_TMPDIR/err"
}

run 0
bp_grep '^bootpack-read: metadata gaps up to 0 KiB read through \(set\): 0 bytes$' "$BP_TMPDIR/err"
bp_info "--meta-gap 0: $missing of $gap_pages gap pages not resident"
[ "$missing" -ge $((gap_pages / 2)) ] ||
	bp_fail "only $missing of $gap_pages gap pages missing without --meta-gap: the check would prove nothing"

run 1M
bp_grep "^bootpack-read: metadata gaps up to 1024 KiB read through \\(set\\): $want bytes\$" "$BP_TMPDIR/err"
bp_info "--meta-gap 1M: $missing of $gap_pages pages in $ngaps gaps ($want bytes) not resident"
[ "$missing" = 0 ] || bp_fail "$missing of $gap_pages gap pages not resident after --meta-gap 1M"

# A bad size is a usage error; auto is taken.
bp_expect_exit 2 "$READER" --no-exec --config=none --pack "$pack" --meta-gap 17M
bp_expect_exit 0 "$READER" --no-exec --config=none --log=stderr --root "$BP_TMPDIR/mnt" --pack "$pack" --meta-gap auto
bp_grep '^bootpack-read: metadata gaps up to [0-9]+ KiB read through \(auto, (rotating disk|not rotating)\)' "$BP_TMPDIR/err"
exit 0
