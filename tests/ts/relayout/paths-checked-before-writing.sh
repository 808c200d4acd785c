#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every file relayout writes (-z undo file, --pack) is checked before anything
# is opened for writing: naming the device or the trace (directly, by a hard
# link or a symlink) or the other output is bad usage (exit 2); a missing
# directory or a device node is refused (exit 1) -- no crash inside libext2fs's
# undo manager, the image byte-identical, the named files untouched.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid mknod
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
s0=$(rl_sum "$img")
ts0=$(rl_sum "$t")
ln "$img" "$BP_TMPDIR/hardlink.img"
ln -s "$img" "$BP_TMPDIR/symlink.img"

unchanged() {
	[ -f "$img" ] && [ "$(rl_sum "$img")" = "$s0" ] || bp_fail "$1: the image changed"
	[ "$(rl_sum "$t")" = "$ts0" ] || bp_fail "$1: the trace changed"
}

for z in "$img" "$BP_TMPDIR/hardlink.img" "$BP_TMPDIR/symlink.img"; do
	bp_expect_exit 2 "$BOOTPACK" relayout -z "$z" --trace "$t" "$img"
	bp_grep "is the same file as the device $img; writing the undo file there would destroy it" \
		"$BP_TMPDIR/err"
	bp_grep "Try 'bootpack relayout --help'" "$BP_TMPDIR/err"
	unchanged "-z $z"
done
bp_expect_exit 2 "$BOOTPACK" relayout -z "$t" --trace "$t" "$img"
bp_grep "is the same file as the trace" "$BP_TMPDIR/err"
unchanged "-z TRACE"
for p in "$img" "$BP_TMPDIR/symlink.img" "$t"; do
	bp_expect_exit 2 "$BOOTPACK" relayout --no-undo --pack "$p" --trace "$t" "$img"
	bp_grep "writing the pack there would destroy it" "$BP_TMPDIR/err"
	unchanged "--pack $p"
done
bp_expect_exit 2 "$BOOTPACK" relayout -z "$BP_TMPDIR/x" --pack "$BP_TMPDIR/x" --trace "$t" "$img"
bp_grep "named both as the undo file and as the pack" "$BP_TMPDIR/err"
unchanged "-z X --pack X"

# A directory that does not exist: a clean refusal, not libext2fs's SIGSEGV.
bp_expect_exit 1 "$BOOTPACK" relayout -z /nonexistent/dir/u --trace "$t" "$img"
bp_grep "/nonexistent/dir/u: the directory /nonexistent/dir does not exist" "$BP_TMPDIR/err"
unchanged "-z /nonexistent/dir/u"
bp_expect_exit 1 "$BOOTPACK" relayout --no-undo --pack /nonexistent/dir/p --trace "$t" "$img"
bp_grep "the directory /nonexistent/dir does not exist" "$BP_TMPDIR/err"
unchanged "--pack /nonexistent/dir/p"

# A device node (our own copy of /dev/null) is never replaced or written.
mknod "$BP_TMPDIR/null" c 1 3
bp_expect_exit 1 "$BOOTPACK" relayout -z "$BP_TMPDIR/null" --trace "$t" "$img"
bp_grep "is a character device node; bootpack writes the undo file only to a regular file" \
	"$BP_TMPDIR/err"
[ -c "$BP_TMPDIR/null" ] || bp_fail "the device node was replaced"
unchanged "-z NODE"
exit 0
