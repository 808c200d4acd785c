#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two traced files that are now one inode (python3 and python3.11 are hard
# links in the fixture; a trace holds each inode once, so the second name
# was another file when traced, e.g. replaced by a link since): their ranges
# go into the pack once, under the first name traced, and bytes read
# through both names count once against the budget.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs dumpe2fs jq
img=$(bp_fixture ext4)
a=$(debugfs -R "stat /usr/bin/python3" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
b=$(debugfs -R "stat /usr/bin/python3.11" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\) .*/\1/p')
[ -n "$a" ] && [ "$a" = "$b" ] || bp_skip "fixture without the python3 hard link"

# python3: [0, 64K) and [256K, 320K); python3.11: [32K, 96K), [300K, 400K), [1M, 1M+4K)
pk_mktrace "$img" "$BP_TMPDIR/trace" \
	/usr/bin/python3:0:65536:1000,262144:65536:3000 \
	/usr/bin/python3.11:32768:65536:2000,307200:102400:4000,1048576:4096:5000
sed -i 's|^F [0-9]* \(.*\) /usr/bin/python3.11$|F 99999 \1 /usr/bin/python3.11|' "$BP_TMPDIR/trace"
grep -q '^F 99999 .* /usr/bin/python3.11$' "$BP_TMPDIR/trace" || bp_fail "cannot edit the trace"
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 0 --json "$img" \
	>"$BP_TMPDIR/s.json"
"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
jq -e '.pack.files == 1 and .pack.files_skipped["hard-link"] == 1' "$BP_TMPDIR/s.json" >/dev/null ||
	bp_fail "the second name was packed as a file of its own"
pk_pack_ranges "$BP_TMPDIR/dump.json" >"$BP_TMPDIR/got"
printf '%s\n' "R /usr/bin/python3 0 98304" "R /usr/bin/python3 262144 409600" \
	"R /usr/bin/python3 1048576 1052672" >"$BP_TMPDIR/want"
diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "wrong ranges"
jq -e '.pack.total_bytes == 98304 + 147456 + 4096' "$BP_TMPDIR/dump.json" >/dev/null ||
	bp_fail "bytes counted twice"
pk_check_phys "$img" "$BP_TMPDIR/dump.json"

# Budget: python3.11's second range adds only its 80K not yet packed, so
# 64K + 32K + 64K + 80K = 240K fits a 240K budget and the 4K range after it does not.
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 245760 "$img" >/dev/null
"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/dump.json"
jq -e '.pack.total_bytes == 245760 and .pack.cut_bytes == 4096' "$BP_TMPDIR/dump.json" >/dev/null ||
	{ jq .pack "$BP_TMPDIR/dump.json"; bp_fail "budget with hard links"; }
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack" "$img"
