#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The loop settles (issue 39): make bench-loop's run cut to 12 boots on one
# model (hdd-5k160), the loop's real rule on a tree whose reads drift
# (packages installed on boots 3, 4, 7 and 8: 20 requests or more outside
# the pack on each, 3 and 4 right after the first relayout; libraries
# upgraded; a log growing). Checked on the boots' table: at most one
# relayout after the first, at least 4 read boots between two relayouts
# (boots 3 and 4's misses do not relay out again at once), the control
# boots' verdict reached by boot 12, and the boot after each relayout with
# fewer requests outside the pack than the boot before it, counted by the
# bench's model (loop/bench-loop-model: the boot's stream from bootpack
# bench against the pack's ranges from bootpack dump), not by the loop.
# The bench script holds the page cache (bp_cache_hold) from its first file.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd jq fsfreeze
[ -x "$top_builddir/loop/bench-loop-model" ] || bp_skip "needs loop/bench-loop-model (make)"

rc=0
bash "$top_srcdir/loop/bench-loop.sh" --boots 12 --model hdd-5k160 --tsv "$BP_TMPDIR/t.tsv" \
	>"$BP_TMPDIR/bench.log" 2>&1 || rc=$?
cat "$BP_TMPDIR/bench.log"
[ "$rc" != 77 ] || bp_skip "$(sed -n 's/^SKIP: //p' "$BP_TMPDIR/bench.log")"
[ "$rc" = 0 ] || bp_fail "bench-loop.sh exit $rc"
[ "$(wc -l <"$BP_TMPDIR/t.tsv")" = 12 ] || bp_fail "not 12 boots"
# columns: model boot phase did control misses requests ranges read_ms done_ms after verdict
awk -F'\t' '$4 == "relayout" { n++ } END { exit !(n >= 1 && n <= 2) }' "$BP_TMPDIR/t.tsv" ||
	bp_fail "relayouts at boots $(awk -F'\t' '$4 == "relayout" { printf "%s ", $2 }' "$BP_TMPDIR/t.tsv")"
gap=$(awk -F'\t' '$4 == "relayout" { if (seen && reads < 4) { print $2 ": " reads; exit }
	seen = 1; reads = 0 } $4 == "read" { reads++ }' "$BP_TMPDIR/t.tsv")
[ -z "$gap" ] || bp_fail "a relayout at boot ${gap} read boots after the last one"
awk -F'\t' '$12 ~ /^(pays|does not pay|off, it does not pay)/ { found = 1 } END { exit !found }' \
	"$BP_TMPDIR/t.tsv" || bp_fail "no verdict by boot 12"
# the model's requests: a relayout boot reads fewer than the boot before it
worse=$(awk -F'\t' '$4 == "relayout" && prev != "" && $7 >= prev { print $2 } { prev = $7 }' \
	"$BP_TMPDIR/t.tsv")
[ -z "$worse" ] || bp_fail "the relayout of boot $worse did not cut the boot's requests"
exit 0
