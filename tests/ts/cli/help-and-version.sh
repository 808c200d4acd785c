#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --help lists every verb on stdout and exits 0; -V names the version;
# "help VERB" and "VERB --help" print that verb's usage; "help --help" is
# bootpack's own help. Every verb takes -V/--version and lists -q, -v, -V;
# its messages, getopt's included, say "bootpack VERB:".
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
	for o in "-q, --quiet" "-v, --verbose" "-V, --version"; do
		bp_grep "^ $o " "$BP_TMPDIR/out"
	done
	for o in -V --version; do
		bp_expect_exit 0 "$BOOTPACK" "$v" "$o"
		bp_grep '^bootpack [0-9]+\.[0-9]+' "$BP_TMPDIR/out"
	done
	bp_expect_exit 2 "$BOOTPACK" "$v" --no-such-option
	bp_grep "^bootpack $v: unrecognized option '--no-such-option'$" "$BP_TMPDIR/err"
	bp_grep "^Try 'bootpack $v --help' for more information.$" "$BP_TMPDIR/err"
	bp_expect_exit 2 "$BOOTPACK" "$v" -Z
	bp_grep "^bootpack $v: invalid option -- 'Z'$" "$BP_TMPDIR/err"
done
# -V alone after any verb listed by --help (also those that do not list it).
"$BOOTPACK" --help | sed -n 's/^ \([a-z]*\)  .*/\1/p' | grep -v '^help$' >"$BP_TMPDIR/verbs"
[ "$(wc -l <"$BP_TMPDIR/verbs")" -ge 6 ] || bp_fail "--help lists fewer than 6 verbs"
while read -r v; do
	bp_expect_exit 0 "$BOOTPACK" "$v" -V
	bp_grep '^bootpack [0-9]+\.[0-9]+' "$BP_TMPDIR/out"
done <"$BP_TMPDIR/verbs"

# Our own messages: "bootpack VERB: ...", never "bootpack: VERB: ...".
bp_expect_exit 2 "$BOOTPACK" relayout /dev/null
bp_grep "^bootpack relayout: --trace is required$" "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" verify x
bp_grep "^bootpack verify: give --trace, --pack, or both$" "$BP_TMPDIR/err"

for h in --help -h; do
	bp_expect_exit 0 "$BOOTPACK" help "$h"
	bp_grep "^ bootpack \[options\] <command>" "$BP_TMPDIR/out"
done
exit 0
