#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack pack --page-size 16384 (a pack for an arm64 machine with 16 KiB
# pages): the pack records 16384 and its file ranges are whole 16 KiB pages
# (a traced 4 KiB range at 20K becomes [16K, 32K)); without the option the
# pack records this system's page size; a bad size is refused (exit 2).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs jq
img=$(bp_fixture ext4)
pk_mktrace "$img" "$BP_TMPDIR/trace" /usr/bin/python3:20480:4096:1000
"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/p16" --budget 0 \
	--page-size 16K "$img" >/dev/null || bp_fail "pack --page-size 16K"
"$BOOTPACK" dump --json "$BP_TMPDIR/p16" >"$BP_TMPDIR/d16.json"
jq -e '.pack.page_size == 16384' "$BP_TMPDIR/d16.json" >/dev/null || bp_fail "16384 not recorded"
# the header itself, read with od (not the parser): hdr_size 136, page_size at 128
[ "$(od -An -tu4 -j12 -N4 "$BP_TMPDIR/p16" | tr -d ' ')" = 136 ] || bp_fail "header not 136 bytes"
[ "$(od -An -tu4 -j128 -N4 "$BP_TMPDIR/p16" | tr -d ' ')" = 16384 ] || bp_fail "page_size field"
pk_pack_ranges "$BP_TMPDIR/d16.json" >"$BP_TMPDIR/got"
echo "R /usr/bin/python3 16384 32768" >"$BP_TMPDIR/want"
diff -u "$BP_TMPDIR/want" "$BP_TMPDIR/got" || bp_fail "ranges not in whole 16 KiB pages"
pk_check_phys "$img" "$BP_TMPDIR/d16.json"

"$BOOTPACK" pack --meta=trace --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/p" --budget 0 "$img" \
	>/dev/null || bp_fail "pack"
"$BOOTPACK" dump --json "$BP_TMPDIR/p" >"$BP_TMPDIR/d.json"
jq -e --argjson pg "$(getconf PAGESIZE)" '.pack.page_size == $pg' "$BP_TMPDIR/d.json" >/dev/null ||
	bp_fail "the system's page size not recorded"

bp_expect_exit 2 "$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/x" --page-size 3000 "$img"
[ ! -e "$BP_TMPDIR/x" ] || bp_fail "a pack written for a bad page size"
exit 0
