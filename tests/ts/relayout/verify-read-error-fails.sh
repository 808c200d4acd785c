#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A read error (here: the image ends before the inode table, so the root
# directory cannot be read) makes verify fail (exit 1) naming the block,
# instead of reporting "0 files (11 skipped)" or "0 -> 0" as a measurement;
# relayout refuses the short image before it reads (exit 4); nothing is
# written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
itable=$(dumpe2fs "$img" 2>/dev/null | awk '/Inode table at/ {split($4, a, "-"); print a[1]; exit}')
[ -n "$itable" ] && [ "$itable" -gt 2 ] || bp_fail "no inode table found"
bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block size/ {print $2}')
truncate -s $((itable * bs)) "$img"
s0=$(rl_sum "$img")
bp_expect_exit 1 "$BOOTPACK" verify --trace "$t" "$img"
bp_grep "reading block $itable failed \(Attempt to read block from filesystem resulted in short read\), so the boot set could not be read in full" \
	"$BP_TMPDIR/err"
[ ! -s "$BP_TMPDIR/out" ] || bp_fail "verify printed a result it could not measure"
bp_expect_exit 1 "$BOOTPACK" verify --json --trace "$t" "$img"
# relayout, which writes, refuses the image cut short before reading it
# (exit 4, issue 37: relayout/refuses-fs-past-file); before, its planning
# failed on the same read (exit 1).
for dry in -n ""; do
	bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$t" "$img"
	bp_grep "the filesystem is [0-9]+ bytes .* but the file holds only $((itable * bs)): grow the file" \
		"$BP_TMPDIR/err"
	! grep -q "discontiguities" "$BP_TMPDIR/out" || bp_fail "relayout $dry reported a measurement"
done
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "the image was written"
exit 0
