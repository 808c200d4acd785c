#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# trace -> pack -> dump --json: the pack holds exactly the traced ranges
# (metadata and file, clamped to the file size), each entry's bytes are at
# its physical offset on the image, entries are in disk order, budget
# positions follow first access; deflated and raw packs say the same.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs dumpe2fs jq
img=$(bp_fixture ext4)
bs=4096
dirblk=$(debugfs -R "blocks /usr/bin" "$img" 2>/dev/null | awk '{print $1}')
itab=$(dumpe2fs "$img" 2>/dev/null | sed -n 's/^ *Inode table at \([0-9]*\)-.*/\1/p' | head -n1)
[ -n "$dirblk" ] && [ -n "$itab" ] || bp_fail "cannot find metadata blocks"

# Interleaved first accesses; one range runs past the end of its file.
pk_mktrace "$img" "$BP_TMPDIR/trace" \
	-m $((itab * bs)):$((2 * bs)):0 -m $((dirblk * bs)):$bs:3500000 \
	/usr/bin/bash:0:65536:1000000,262144:131072:4000000 \
	/etc/passwd:0:all:2000000 \
	/usr/lib/x86_64-linux-gnu/libbp1.so.1:4096:8192:3000000,524288:200000:6000000 \
	/usr/lib/x86_64-linux-gnu/libbp6.so.1:0:all:5000000 \
	/etc/os-release:0:4096:7000000

"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 0 "$img" \
	>"$BP_TMPDIR/summary"
cat "$BP_TMPDIR/summary"
[ "$(stat -c %a "$BP_TMPDIR/pack")" = 644 ] || bp_fail "pack mode is not 0644"
"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"

pk_expect "$BP_TMPDIR/trace" 0 >"$BP_TMPDIR/want"
pk_pack_ranges "$BP_TMPDIR/dump.json" >"$BP_TMPDIR/got"
cat "$BP_TMPDIR/want"
diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "pack ranges differ from the trace's"
grep -q "^R /etc/passwd 0 1480$" "$BP_TMPDIR/got" || bp_fail "passwd not clamped to its size"
grep -q "^R /etc/os-release 0 382$" "$BP_TMPDIR/got" || bp_fail "os-release not clamped"

pk_check_phys "$img" "$BP_TMPDIR/dump.json"

# Stored order: metadata by offset, entries by physical position.
jq -e '[.meta[].offset] == ([.meta[].offset] | sort)' "$BP_TMPDIR/dump.json" >/dev/null ||
	bp_fail "metadata not sorted by offset"
jq -e '[.entries[].phys] == ([.entries[].phys] | sort)' "$BP_TMPDIR/dump.json" >/dev/null ||
	bp_fail "entries not sorted by physical position"
# Header totals match the records; budget positions are distinct and end at the total.
jq -e '.pack.total_bytes == ([.meta[].length, .entries[].length] | add)
	and ([.meta[].budget_pos, .entries[].budget_pos] | max) == .pack.total_bytes
	and ([.meta[].budget_pos, .entries[].budget_pos] | unique | length)
	    == (.pack.meta_ranges + .pack.entries)
	and .pack.cut_bytes == 0 and .pack.files == 5' "$BP_TMPDIR/dump.json" >/dev/null ||
	bp_fail "header totals or budget positions wrong"
# Sorting by time gives first-access order: bash's first range, then passwd, ...
"$BOOTPACK" dump --json --sort=time "$BP_TMPDIR/pack" >"$BP_TMPDIR/time.json"
jq -r '.entries[].path' "$BP_TMPDIR/time.json" | uniq >"$BP_TMPDIR/order"
printf '%s\n' /usr/bin/bash /etc/passwd /usr/lib/x86_64-linux-gnu/libbp1.so.1 /usr/bin/bash \
	/usr/lib/x86_64-linux-gnu/libbp6.so.1 /usr/lib/x86_64-linux-gnu/libbp1.so.1 \
	/etc/os-release >"$BP_TMPDIR/want-order"
diff -u "$BP_TMPDIR/want-order" "$BP_TMPDIR/order" || bp_fail "--sort=time is not first-access order"
# The inode data is the filesystem's.
ino=$(debugfs -R "stat /etc/passwd" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
jq -e --argjson ino "$ino" '.entries[] | select(.path == "/etc/passwd")
	| .ino == $ino and .size == 1480 and .mtime == 1700000000 and (.changed | not)' \
	"$BP_TMPDIR/dump.json" >/dev/null || bp_fail "passwd's inode data is wrong"

# Raw and deflated packs hold the same records; auto picked deflate here.
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/raw" --budget 0 --compress=never "$img" >/dev/null
"$BOOTPACK" dump --json "$BP_TMPDIR/raw" >"$BP_TMPDIR/raw.json"
jq -e '.pack.incompat == "deflate"' "$BP_TMPDIR/dump.json" >/dev/null || bp_fail "auto did not deflate"
jq -e '.pack.incompat == "-" and .pack.body_size == .pack.body_raw_size' "$BP_TMPDIR/raw.json" \
	>/dev/null || bp_fail "--compress=never deflated"
diff <(jq -S '{meta, entries}' "$BP_TMPDIR/dump.json") <(jq -S '{meta, entries}' "$BP_TMPDIR/raw.json") ||
	bp_fail "raw and deflated packs differ"
[ "$(stat -c %s "$BP_TMPDIR/pack")" -lt "$(stat -c %s "$BP_TMPDIR/raw")" ] ||
	bp_fail "deflate did not make the pack smaller"

# The text dump names every file and ends with the summary.
"$BOOTPACK" dump "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.txt"
bp_grep "^Pack: +$BP_TMPDIR/pack$" "$BP_TMPDIR/dump.txt"
bp_grep "/usr/lib/x86_64-linux-gnu/libbp6.so.1$" "$BP_TMPDIR/dump.txt"
bp_grep "^[0-9]+ ranges, 5 files, .* bytes per entry; [0-9]+ discontiguities in first-access order" "$BP_TMPDIR/dump.txt"
bp_fsck_clean "$img"
