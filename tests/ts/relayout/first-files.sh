#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# relayout --first: what runs before the traced boot (the reader, the pack's
# directory) goes whole, in the order given, at the very head of the region.
# Checked with debugfs, not bootpack: a file and a directory the trace does
# not name, given with --first, lie at the head, the file contiguous and
# lowest, the directory right after it, both before every directory and
# every data block the trace moved; e2fsck -fn clean and every file's
# SHA-256 unchanged. With --first '' the same file stays where it was; a
# relative --first is refused (exit 2) and the image is not written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs e2fsck

X=/usr/sbin/arping
D=/var/lib/dpkg
A=/usr/lib/systemd/systemd
B=/usr/bin/bash

blocks() { debugfs -R "blocks \"$2\"" "$1" 2>/dev/null | tr ' ' '\n' | grep -v '^$'; }

img=$(bp_fixture --aged ext4)
cp --sparse=always "$img" "$BP_TMPDIR/none.img"
t=$BP_TMPDIR/t.trace
rl_mktrace "$img" "$t" "$A@0+262144/1000" "$B@0+131072/2000"
bp_hash_files "$img" >"$BP_TMPDIR/h0"

bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --no-pack --first $X --first $D --trace "$t" "$img"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"

blocks "$img" $X >"$BP_TMPDIR/x"
[ -s "$BP_TMPDIR/x" ] || bp_fail "debugfs: no blocks for $X"
awk 'NR > 1 && $1 != last + 1 { print "not contiguous at " $1; bad = 1 } { last = $1 } END { exit bad }' \
	"$BP_TMPDIR/x" || bp_fail "$X is not contiguous after relayout --first"
x0=$(head -n1 "$BP_TMPDIR/x") x1=$(tail -n1 "$BP_TMPDIR/x")
d0=$(blocks "$img" $D | head -n1)
[ "$d0" = $((x1 + 1)) ] || bp_fail "$D starts at $d0, not right after $X ($x0..$x1)"
# everything else the relayout moved (the directories on the traced paths,
# the traced heads of A and B) comes after both
for b in $(for p in / /usr /usr/lib /usr/lib/systemd /usr/bin; do blocks "$img" "$p"; done) \
	 $(debugfs -R "bmap $A 0" "$img" 2>/dev/null) $(debugfs -R "bmap $B 0" "$img" 2>/dev/null); do
	[ "$b" -gt "$x1" ] || bp_fail "block $b of the traced set lies before the --first file ($x0..$x1)"
done
bp_info "--first: $X at $x0..$x1, $D at $d0, the traced set after them"

# --first '': nothing but the trace moves; X stays.
blocks "$BP_TMPDIR/none.img" $X >"$BP_TMPDIR/x0"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --no-pack --first '' --trace "$t" "$BP_TMPDIR/none.img"
blocks "$BP_TMPDIR/none.img" $X | diff "$BP_TMPDIR/x0" - || bp_fail "--first '': $X moved"

# A relative path is refused before anything is opened.
sum=$(sha256sum <"$BP_TMPDIR/none.img")
bp_expect_exit 2 "$BOOTPACK" relayout --no-undo --no-pack --first usr/sbin/arping --trace "$t" "$BP_TMPDIR/none.img"
bp_grep "invalid --first 'usr/sbin/arping'" "$BP_TMPDIR/err"
[ "$(sha256sum <"$BP_TMPDIR/none.img")" = "$sum" ] || bp_fail "a refused --first wrote to the image"
exit 0
