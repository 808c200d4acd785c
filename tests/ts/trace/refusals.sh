#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Refusals, each with its message and exit code, nothing written: not root,
# no tracefs, a trace of another filesystem, a corrupt trace, bad usage.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_root
bp_require_cmd setpriv unshare mke2fs debugfs
data=$top_srcdir/tests/ts/trace/data
img=$(bp_fixture ext4)
chmod 0755 "$BP_TMPDIR"

# Not root: refused (4) before touching tracefs.
bp_expect_exit 4 setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$BOOTPACK" trace -o "$BP_TMPDIR/t" -- true
bp_grep 'needs root' "$BP_TMPDIR/err"
bp_expect_exit 4 setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$BOOTPACK" trace --from-boot -o "$BP_TMPDIR/t" --device "$img"
bp_grep 'needs root' "$BP_TMPDIR/err"
[ ! -e "$BP_TMPDIR/t" ] || bp_fail "a refused trace wrote its output"

# No tracefs (hidden in a private mount namespace): say how to mount it.
# /sys is made private by hand, not by unshare: where / is not a mount
# point (a chroot), unshare cannot change /'s propagation.
bp_expect_exit 1 unshare -m --propagation unchanged bash -c \
	'mount --make-rprivate /sys && mount -t tmpfs none /sys/kernel &&
	exec "$0" trace -o "$1" -- true' "$BOOTPACK" "$BP_TMPDIR/t"
bp_grep 'tracefs is not available: mount it with .mount -t tracefs' "$BP_TMPDIR/err"

# A trace of this filesystem, then another filesystem: merging onto it is refused.
tr_render "$data/new-layout.txt.in" "$img" "$BP_TMPDIR/new.txt"
"$BOOTPACK" trace --import "$BP_TMPDIR/new.txt" -o "$BP_TMPDIR/a" --device "$img" 2>/dev/null
mke2fs -q -F -t ext4 -U 0badbad0-0000-4000-8000-000000000099 "$BP_TMPDIR/other.img" 8M \
	>/dev/null 2>&1
bp_expect_exit 4 "$BOOTPACK" trace --merge "$BP_TMPDIR/a" -o "$BP_TMPDIR/m" \
	--device "$BP_TMPDIR/other.img"
bp_grep 'UUID b0075ac0-0000-4000-8000-000000000001 .block size 4096., this one is UUID 0badbad0-0000-4000-8000-000000000099' \
	"$BP_TMPDIR/err"
"$BOOTPACK" trace --import "$BP_TMPDIR/new.txt" -o "$BP_TMPDIR/b" --device "$img" 2>/dev/null
sed -i 's/^uuid .*/uuid 0badbad0-0000-4000-8000-000000000099/' "$BP_TMPDIR/b"
bp_expect_exit 4 "$BOOTPACK" trace --merge "$BP_TMPDIR/a" "$BP_TMPDIR/b" -o "$BP_TMPDIR/m"
bp_grep 'different filesystems' "$BP_TMPDIR/err"
[ ! -e "$BP_TMPDIR/m" ] || bp_fail "a refused merge wrote its output"
bp_expect_exit 0 "$BOOTPACK" trace --merge "$BP_TMPDIR/a" -o "$BP_TMPDIR/m" --device "$img"

# A corrupt trace file: line number and reason, exit 3.
bp_expect_exit 3 "$BOOTPACK" dump "$data/corrupt.trace"
bp_grep 'corrupt.trace:6: R line needs 4 fields' "$BP_TMPDIR/err"
head -n 8 "$BP_TMPDIR/a" >"$BP_TMPDIR/truncated"
bp_expect_exit 3 "$BOOTPACK" trace --merge "$BP_TMPDIR/truncated" -o "$BP_TMPDIR/m2"
bp_grep "truncated:[0-9]+: (no 'end' line|last line)" "$BP_TMPDIR/err"

# Bad usage: exit 2 with a hint.
bp_expect_exit 2 "$BOOTPACK" trace -- true
bp_grep 'no output file' "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" trace -o "$BP_TMPDIR/t"
bp_grep 'no command to trace' "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" trace --from-boot --import x -o "$BP_TMPDIR/t"
bp_grep 'exclude each other' "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" trace --import x -o "$BP_TMPDIR/t"
bp_grep 'device is required' "$BP_TMPDIR/err"
bp_expect_exit 2 "$BOOTPACK" trace -o "$BP_TMPDIR/t" --device "$img" -- true
bp_grep 'not a block device' "$BP_TMPDIR/err"
bp_grep "Try 'bootpack trace --help'" "$BP_TMPDIR/err"
tr_no_instance
