#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --help lists every verb on stdout and exits 0; -V names the version;
# "help VERB" and "VERB --help" print that verb's usage.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

bp_expect_exit 0 "$BOOTPACK" --help
for v in trace relayout pack dump verify bench help; do
	bp_grep "^ $v " "$BP_TMPDIR/out"
done
[ ! -s "$BP_TMPDIR/err" ] || bp_fail "--help wrote to stderr"

bp_expect_exit 0 "$BOOTPACK" -V
bp_grep '^bootpack [0-9]+\.[0-9]+' "$BP_TMPDIR/out"

for v in trace relayout pack dump verify bench; do
	bp_expect_exit 0 "$BOOTPACK" help "$v"
	bp_grep "^ bootpack $v" "$BP_TMPDIR/out"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/help1"
	bp_expect_exit 0 "$BOOTPACK" "$v" --help
	cmp -s "$BP_TMPDIR/out" "$BP_TMPDIR/help1" || bp_fail "'help $v' and '$v --help' differ"
done
exit 0
