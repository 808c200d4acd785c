#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --merge of two traces of one filesystem orders files by earliest first
# access and unions their ranges; dump prints rows and a summary, --json one
# object with files[], metadata[] and summary, --sort=time|disk|size.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_cmd debugfs jq
data=$top_srcdir/tests/ts/trace/data
img=$(bp_fixture ext4)
tr_render "$data/old-layout.txt.in" "$img" "$BP_TMPDIR/old.txt"
tr_render "$data/new-layout.txt.in" "$img" "$BP_TMPDIR/new.txt"
"$BOOTPACK" trace --import "$BP_TMPDIR/old.txt" -o "$BP_TMPDIR/a" --device "$img" 2>/dev/null
"$BOOTPACK" trace --import "$BP_TMPDIR/new.txt" -o "$BP_TMPDIR/b" --device "$img" 2>/dev/null

"$BOOTPACK" trace --merge "$BP_TMPDIR/a" "$BP_TMPDIR/b" -o "$BP_TMPDIR/m"
printf '%s\n' /usr/lib/systemd/systemd /etc/passwd /etc/ld.so.cache /usr/bin/bash \
	/etc/hostname >"$BP_TMPDIR/want"
tr_files "$BP_TMPDIR/m" | diff -u "$BP_TMPDIR/want" - || bp_fail "merge: files or order"
bp_grep '^source merge$' "$BP_TMPDIR/m"
bp_grep '^events 14 5 3$' "$BP_TMPDIR/m"
[ "$(grep -c '^O ' "$BP_TMPDIR/m")" = 2 ] || bp_fail "merge: metadata of both"
bp_grep '^O itable 0 0 [0-9]+ 2 0 at=1048576$' "$BP_TMPDIR/m"
bp_grep '^O gdt 0 0 1 2 0 at=8192$' "$BP_TMPDIR/m"
bp_grep '^R 0 1480 99500000 ' "$BP_TMPDIR/m"	# passwd: the earlier first access
# Merging is idempotent: with itself, the same records.
"$BOOTPACK" trace --merge "$BP_TMPDIR/m" "$BP_TMPDIR/m" -o "$BP_TMPDIR/mm"
diff <(grep -E '^[OMFR] ' "$BP_TMPDIR/m") <(grep -E '^[OMFR] ' "$BP_TMPDIR/mm") ||
	bp_fail "merging a trace with itself changed it"

# dump, text
"$BOOTPACK" dump "$BP_TMPDIR/m" >"$BP_TMPDIR/text"
cat "$BP_TMPDIR/text"
bp_grep '^ +[0-9.]+ +44.0 KiB +[0-9]+  /usr/lib/systemd/systemd$' "$BP_TMPDIR/text"
bp_grep '^5 files, .* of data, 16.0 KiB of metadata in 2 ranges, [0-9]+ discontiguities' \
	"$BP_TMPDIR/text"
"$BOOTPACK" dump --bytes "$BP_TMPDIR/m" >"$BP_TMPDIR/text"
bp_grep '^5 files, 67025 of data, 16384 of metadata' "$BP_TMPDIR/text"

# dump --json
"$BOOTPACK" dump --json "$BP_TMPDIR/m" >"$BP_TMPDIR/json"
jq -e '.files | length == 5' "$BP_TMPDIR/json" >/dev/null || bp_fail "json: files"
jq -e '.files[0] | .path == "/usr/lib/systemd/systemd" and .first_access == 200000' \
	"$BP_TMPDIR/json" >/dev/null || bp_fail "json: first file"
[ "$(jq -c '[.files[0].ranges[] | [.offset, .length]]' "$BP_TMPDIR/json" |
	tr -d ' ')" != "" ] || bp_fail "json: ranges"
jq -e '.files[] | select(.path == "/etc/passwd") | .ranges == [{"offset": 0,
	"length": 1480, "first_access": 99500000, "phys": .ranges[0].phys}] and .ino > 0' \
	"$BP_TMPDIR/json" >/dev/null || bp_fail "json: passwd ranges"
jq -e '.metadata == [] and [.owners[] | [.kind, .id, .blocks]] ==
	[["itable", 0, 2], ["gdt", 0, 2]]' "$BP_TMPDIR/json" \
	>/dev/null || bp_fail "json: metadata"
jq -e '.summary | .files == 5 and .bytes == 67025 and .metadata_bytes == 16384 and
	.spread > 0 and .discontiguities > 0' "$BP_TMPDIR/json" >/dev/null ||
	bp_fail "json: summary"
jq -e '.trace.uuid == "b0075ac0-0000-4000-8000-000000000001" and .trace.block_size == 4096' \
	"$BP_TMPDIR/json" >/dev/null || bp_fail "json: header"

# --sort
"$BOOTPACK" dump --json --sort=size "$BP_TMPDIR/m" | jq -r '.files[].path' >"$BP_TMPDIR/s"
printf '%s\n' /usr/lib/systemd/systemd /usr/bin/bash /etc/ld.so.cache /etc/passwd \
	/etc/hostname | diff -u - "$BP_TMPDIR/s" || bp_fail "--sort=size"
"$BOOTPACK" dump --json --sort=disk "$BP_TMPDIR/m" |
	jq -r '.files[] | "\([.ranges[].phys] | min) \(.path)"' >"$BP_TMPDIR/d"
sort -n -c "$BP_TMPDIR/d" || bp_fail "--sort=disk is not in physical order"
"$BOOTPACK" dump --json --sort=time "$BP_TMPDIR/m" | jq -r '.files[].path' |
	diff -u "$BP_TMPDIR/want" - || bp_fail "--sort=time"
bp_expect_exit 2 "$BOOTPACK" dump --sort=name "$BP_TMPDIR/m"
