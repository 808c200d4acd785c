#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pack parser's fuzz harness over the seed corpus (readahead-pack/parse/fuzz-corpus):
# every input parsed, no broken promise, no sanitizer report (--enable-sanitizers).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

corpus=$top_srcdir/readahead-pack/parse/fuzz-corpus
n=$(find "$corpus" -type f | wc -l)
[ "$n" -ge 10 ] || bp_fail "seed corpus $corpus has $n inputs, expected at least 10"
"$top_builddir/readahead-pack/parse/fuzz-pack" "$corpus" >"$BP_TMPDIR/out"
cat "$BP_TMPDIR/out"
bp_grep "^fuzz-pack: $n inputs replayed, 0 unreadable$" "$BP_TMPDIR/out"
