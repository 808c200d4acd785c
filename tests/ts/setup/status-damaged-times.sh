#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack status on a damaged state file (issue 23): a time in the future,
# a negative one or one that is not a number prints as unknown, never as a
# negative age or an age counted from garbage; a sound time still prints
# its age. Only a directory of its own is read (--root).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
statedir=$(sed -n 's/^#define BP_STATEDIR "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$statedir" ] || bp_fail "no BP_STATEDIR in config.h"
root=$BP_TMPDIR/root
mkdir -p "$root$statedir"
now=$(date +%s)

# state SETUP RELAYOUT: write the loop's state file with these two times.
state() {
	printf '%s\n' phase=read device=/dev/vda1 cmdline= reason= "setup_time=$1" \
		"phase_time=$now" "relayout_time=$2" attempts=0 low_hits=0 grub=0 \
		>"$root$statedir/loop"
}
for bad in $((now + 3 * 86400)) -5 12abc x 99999999999999999999999; do
	state "$bad" "$bad"
	bp_expect_exit 0 "$BOOTPACK" status --root "$root"
	grep -E '^(Set up|Relayout):' "$BP_TMPDIR/out" >"$BP_TMPDIR/ages"
	cat "$BP_TMPDIR/ages"
	[ "$(grep -c ' unknown (' "$BP_TMPDIR/ages")" = 2 ] ||
		bp_fail "time '$bad' is not shown as unknown"
	! grep -q -- '-[0-9]' "$BP_TMPDIR/ages" || bp_fail "time '$bad' gives a negative age"
done
state $((now - 3 * 3600)) 0
bp_expect_exit 0 "$BOOTPACK" status --root "$root"
bp_grep '^Set up: +3 h ago$' "$BP_TMPDIR/out"
bp_grep '^Relayout: +never$' "$BP_TMPDIR/out"
exit 0
