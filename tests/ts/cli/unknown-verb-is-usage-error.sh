#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad usage exits 2 with the "Try 'bootpack --help'" hint on stderr.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

bp_expect_exit 2 "$BOOTPACK" nosuchverb
bp_grep "unknown command 'nosuchverb'" "$BP_TMPDIR/err"
bp_grep "^Try 'bootpack --help' for more information\.$" "$BP_TMPDIR/err"
[ ! -s "$BP_TMPDIR/out" ] || bp_fail "usage error wrote to stdout"

bp_expect_exit 2 "$BOOTPACK"
bp_grep "no command given" "$BP_TMPDIR/err"

bp_expect_exit 2 "$BOOTPACK" --no-such-option
bp_grep "^Try 'bootpack --help'" "$BP_TMPDIR/err"

bp_expect_exit 2 "$BOOTPACK" help nosuchverb
bp_grep "unknown command 'nosuchverb'" "$BP_TMPDIR/err"

bp_expect_exit 2 "$BOOTPACK" relayout --no-such-option /dev/null
bp_grep "^Try 'bootpack relayout --help'" "$BP_TMPDIR/err"
exit 0
