#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# relayout --pack writes the pack for the new layout: fresh against the
# relaid filesystem, while the pack made before relayout is now stale
# (its blocks moved). --no-pack and a dry run write no pack.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs e2fsck dumpe2fs blkid

img=$(bp_fixture --aged ext4)
t=$BP_TMPDIR/boot.trace
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
bp_expect_exit 0 "$BOOTPACK" pack --meta=files --trace "$t" -o "$BP_TMPDIR/old.pack" "$img"
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/old.pack" "$img"

bp_expect_exit 0 "$BOOTPACK" relayout -n --pack "$BP_TMPDIR/dry.pack" --trace "$t" "$img"
[ ! -e "$BP_TMPDIR/dry.pack" ] || bp_fail "a dry run wrote a pack"

# Two metadata ranges the traced boot read through the device: the first
# block of /usr/lib (a directory on the boot paths: relayout moves it) and
# the last block of the filesystem (free, read by a partition-table probe:
# nobody moves it). The pack relayout writes must drop the first, keep the
# second, and have /usr/lib's new place.
bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block size/ {print $2}')
nb=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block count/ {print $2}')
dold=$(debugfs -R "blocks /usr/lib" "$img" 2>/dev/null | awk '{print $1}')
[ -n "$dold" ] || bp_fail "no block for /usr/lib"
debugfs -R "testb $((nb - 1))" "$img" 2>&1 | grep -q "not in use" || bp_fail "last block in use"
# and a directory on no boot path, listed by the boot (only an M range
# says so): relayout moves it into the region too, and the pack follows
for ldir in /var /usr/share /sbin /root /home /srv /opt; do
	debugfs -R "stat $ldir" "$img" 2>/dev/null | grep -q "Type: directory" && break
done
lold=$(debugfs -R "blocks $ldir" "$img" 2>/dev/null | awk '{print $1}')
[ -n "$lold" ] || bp_fail "no listed directory in the fixture"
{
	printf 'M %s %s 1\n' $((dold * bs)) "$bs"
	printf 'M %s %s 3\n' $((lold * bs)) "$bs"
	printf 'M %s %s 2\n' $(((nb - 1) * bs)) "$bs"
} | sort -k2,2n >"$BP_TMPDIR/m.lines"
awk -v f="$BP_TMPDIR/m.lines" '
	/^end / { while ((getline l < f) > 0) { print l; n++ } print "end " ($2 + n); next } { print }' \
	"$t" >"$t.m"
mv "$t.m" "$t"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/new.pack" --trace "$t" "$img"
bp_grep "new.pack: pack rewritten for the new layout: [1-9][0-9]* entries" "$BP_TMPDIR/out"
bp_fsck_clean "$img"
dnew=$(debugfs -R "blocks /usr/lib" "$img" 2>/dev/null | awk '{print $1}')
[ "$dnew" != "$dold" ] || bp_fail "/usr/lib did not move"
"$BOOTPACK" dump --json "$BP_TMPDIR/new.pack" >"$BP_TMPDIR/m.json"
inmeta() {	# inmeta BLOCK: 0 if a metadata range of the new pack covers it
	jq -e --argjson o $(($1 * bs)) 'any(.meta[]; .offset <= $o and $o < .offset + .length)' \
		"$BP_TMPDIR/m.json" >/dev/null
}
! inmeta "$dold" || bp_fail "the pack still reads /usr/lib's old place $dold"
inmeta "$dnew" || bp_fail "the pack does not read /usr/lib's new place $dnew"
inmeta $((nb - 1)) || bp_fail "the pack lost the traced probe of the last block"
lnew=$(debugfs -R "blocks $ldir" "$img" 2>/dev/null | awk '{print $1}')
[ "$lnew" != "$lold" ] || bp_fail "$ldir, listed by the boot, did not move"
! inmeta "$lold" || bp_fail "the pack still reads $ldir's old place $lold"
inmeta "$lnew" || bp_fail "the pack does not read $ldir's new place $lnew"

# The new pack matches the filesystem as it is now; the old one does not.
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/new.pack" "$img"
bp_expect_exit 3 "$BOOTPACK" verify --pack "$BP_TMPDIR/old.pack" "$img"
bp_grep "moved" "$BP_TMPDIR/out"

# The new pack says it was written by relayout, under the default budget.
bp_expect_exit 0 "$BOOTPACK" dump --json "$BP_TMPDIR/new.pack"
bp_grep '"compat": "[^"]*relayout' "$BP_TMPDIR/out"
jq -e '.pack.budget == 78643200 and .pack.budget_bound == "given"' "$BP_TMPDIR/out" >/dev/null ||
	bp_fail "relayout's pack is not under the default 75 MiB"

# --budget auto (what the boot loop's relayout passes): the pack records the
# term; no probe is 25 MB/s x the trace's last first access (ranges 1 ms
# apart: about 300 KB, far under the 11 MiB traced), computed here.
# A probe file without a rate is refused before anything is written.
printf 'model=x\n' >"$BP_TMPDIR/bad.probe"
bp_expect_exit 1 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/auto.pack" --budget auto \
	--probe "$BP_TMPDIR/bad.probe" --trace "$t" "$img"
[ ! -e "$BP_TMPDIR/auto.pack" ] || bp_fail "a refused probe still wrote a pack"
bp_expect_exit 2 "$BOOTPACK" relayout --no-undo --probe none --trace "$t" "$img"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/auto.pack" --budget auto \
	--probe none --trace "$t" "$img"
bp_grep "auto.pack: pack rewritten for the new layout: .*\(budget auto, bound by " "$BP_TMPDIR/out"
last=$(awk '/^[MR] /{ if ($4 > m) m = $4 } END { print m }' "$t")
want=$((25000000 * last / 1000000000))
"$BOOTPACK" dump --json "$BP_TMPDIR/auto.pack" >"$BP_TMPDIR/auto.json"
jq -e --argjson b "$want" '.pack.budget == $b and .pack.total_bytes <= $b and
	.pack.total_bytes > 0 and .pack.budget_bound == "disk"' "$BP_TMPDIR/auto.json" >/dev/null ||
	bp_fail "relayout --budget auto: want $want, $(jq -c .pack "$BP_TMPDIR/auto.json")"

# --mem-total: the memory of the machine that boots (the real-boot bench
# gives its guest's), not this one's: 800 KiB, a quarter is 204800 bytes,
# under the disk term above.
[ "$want" -gt 204800 ] || bp_fail "the disk term $want does not leave the memory room to bind"
bp_expect_exit 2 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/mem.pack" --mem-total 800K \
	--trace "$t" "$img"
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/mem.pack" --budget auto \
	--mem-total 800K --probe none --trace "$t" "$img"
"$BOOTPACK" dump --json "$BP_TMPDIR/mem.pack" >"$BP_TMPDIR/mem.json"
jq -e '.pack.budget == 204800 and .pack.total_bytes <= 204800 and
	.pack.budget_bound == "memory"' "$BP_TMPDIR/mem.json" >/dev/null ||
	bp_fail "relayout --mem-total 800K: $(jq -c .pack "$BP_TMPDIR/mem.json")"

# A second run with --no-pack leaves no pack behind.
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --no-pack --trace "$t" "$img"
! grep -q "pack rewritten" "$BP_TMPDIR/out" || bp_fail "--no-pack rewrote a pack"
exit 0
