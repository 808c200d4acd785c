#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A pack that the read boots scattered is not relaid out for it (issue 39):
# a boot reads 24 small files the traced boot did not, far apart on the
# disk (misses, on the first read boot after the relayout: what a relayout
# leaves, its penalty); merged, they are no longer misses on the next boot,
# but the pack now reads them from where they lie, 24 ranges more than the
# relayout left it with. Those ranges are no misses: counted as misses, a
# pack that grows by merging scheduled relayout after relayout (issue 39's
# four in eight boots); status shows them. The journal's pages are no
# misses either: boots that "read" 24 of them (the recorder sees the pages
# jbd2 writes its log through) count them as journal misses, but no pack
# gains them and no relayout is scheduled.
# The pack's ranges are counted here from 'bootpack dump --json' (in 4 KiB
# pages, merged where they touch), not from status; the journal's blocks
# come from debugfs.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
# The hit rate status samples is what is resident (mincore): held against
# the other cases' drop_caches from the first file written (bp_cache_hold).
bp_cache_hold
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd jq fsfreeze

mk_tree
mkdir -p "$ROOT/usr/lib/x" "$ROOT/srv/s"
for f in a b c; do
	head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/$f"
done
# 24 files, each followed by 256 KiB nobody reads, and each read 8 KiB: 24
# ranges (128 KiB each: ext4 packs files under 64 KiB together)
for i in $(seq -w 1 24); do
	head -c 131072 /dev/urandom >"$ROOT/srv/s/f$i"
	head -c 262144 /dev/urandom >"$ROOT/srv/s/gap$i"
	sync
done
. "$top_srcdir/tests/ts/setup/readboot.sh"
# ranges PACK: the pack's ranges on the disk in pages, touching ones merged
ranges() {
	"$BOOTPACK" dump --json "$1" |
		jq '[(.meta[] | [.offset, .offset + .length]), (.entries[] | [.phys, .phys + .length])]
		    | map([(.[0] / 4096 | floor) * 4096, (.[1] / 4096 | ceil) * 4096])
		    | sort | reduce .[] as $r ([]; if length > 0 and $r[0] <= .[-1][1]
		      then .[-1][1] = ([.[-1][1], $r[1]] | max) else . + [$r] end) | length'
}

# booted: what the boot's reader leaves, the pack's files in the page cache,
# before a sample of the boot's end (status --sample): its hit rate is then
# the pack's, not what the machine's reclaim or another suite's drop_caches
# left of the files written at the start (a chroot's run sampled 0 % and
# scheduled a trace instead of counting the journal boot's misses). The
# tests' cache lock is held from then on (tests/functions.sh).
booted() {
	local f
	bp_cache_hold
	"$BOOTPACK" dump --json "$sd/pack" | jq -r '.entries[].path' | sort -u >"$BP_TMPDIR/packed"
	while read -r f; do cat "$ROOT$f"; done <"$BP_TMPDIR/packed" >/dev/null
}

bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
# boot 1 traced a, b, c; boot 2 relaid out
relaid /usr/lib/x/a /usr/lib/x/b /usr/lib/x/c
r0=$(ranges "$sd/pack")

files=() jblocks=()
for i in $(seq -w 1 24); do files+=("/srv/s/f$i:0:8192"); done
mktrace "$BP_TMPDIR/next" /usr/lib/x/a /usr/lib/x/b /usr/lib/x/c "${files[@]}"
rm -f "$sd/control-boot"
# boot 3: the 24 files are misses; merged into the pack
booted
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
bp_grep '^misses (2[4-9]|[3-9][0-9]) requests' "$BP_TMPDIR/out"
bp_grep '^high_misses=0$' "$state"
bp_grep '^penalty=(2[4-9]|[3-9][0-9])$' "$state"
bp_grep "^pack_runs0=$r0\$" "$state"
r1=$(ranges "$sd/pack")
[ "$r1" -ge $((r0 + 24)) ] || bp_fail "the merged pack has $r1 ranges, the relayout's $r0"
bp_info "pack ranges: $r0 after the relayout, $r1 after the merge"

# boot 4, the same reads: no miss, the pack's 24 ranges more are no misses
rm -f "$sd/control-boot"
booted
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
bp_grep '^misses 0 requests' "$BP_TMPDIR/out"
bp_grep "^pack ranges $r1, $r0 after the relayout\$" "$BP_TMPDIR/out"
! grep -q 'a relayout is scheduled' "$BP_TMPDIR/out" ||
	bp_fail "gained ranges scheduled a relayout: $(cat "$BP_TMPDIR/out")"
[ "$(phase)" = read ] || { cat "$BP_TMPDIR/out"; bp_fail "phase $(phase) after a boot with no miss"; }
bp_grep '^high_misses=0$' "$state"
bp_grep "^history=3,[0-9]+,read,$((r1 - r0)),$((r1 - r0)),[0-9]+,0,[0-9]+,read\$" "$state"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --json
jq -e --argjson r "$r0" '.pack_ranges_after_relayout == $r' "$BP_TMPDIR/out" >/dev/null ||
	bp_fail "status --json: $(cat "$BP_TMPDIR/out")"

# the relayout done: the next read boot's pack is the new base
echo "done in 2 s" >"$run/relayout.status"
cp "$sd/pack" "$run/pack"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
bp_grep '^pack_runs0=0$' "$state"

# two boots whose other reads are the pack's, and 24 journal blocks 8 apart
bs=$(frozen dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
jm=()
for i in $(seq 1 24); do
	b=$(frozen debugfs -R "bmap <8> $((8 * i + 1))" "$img" 2>/dev/null)
	[ -n "$b" ] && [ "$b" -gt 0 ] || bp_fail "no journal block $((8 * i + 1)) from debugfs"
	jm+=(-m "$((b * bs)):$bs:$((5000000 + i))")
	jblocks+=("$((b * bs))")
done
mktrace "$BP_TMPDIR/journal" "${jm[@]}" /usr/lib/x/a /usr/lib/x/b /usr/lib/x/c "${files[@]}"
for n in 1 2; do
	rm -f "$sd/control-boot"
	booted
	bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/journal"
	bp_grep '^misses 24 requests' "$BP_TMPDIR/out"
	bp_grep '^high_misses=0$' "$state"
	[ "$(phase)" = read ] || { cat "$BP_TMPDIR/out"; bp_fail "journal boot $n: phase $(phase)"; }
	[ "$(ranges "$sd/pack")" = "$r1" ] ||
		bp_fail "journal boot $n: the pack has $(ranges "$sd/pack") ranges, not $r1"
	"$BOOTPACK" dump --json "$sd/pack" >"$BP_TMPDIR/pj.json"
	for o in "${jblocks[@]}"; do
		jq -e --argjson o "$o" '[.meta[] | select(.offset <= $o and $o < .offset + .length)]
			| length == 0' "$BP_TMPDIR/pj.json" >/dev/null ||
			bp_fail "journal boot $n: the pack reads the journal at $o"
	done
done
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep "^  journal +$((24 * bs)) bytes in 24 requests\$" "$BP_TMPDIR/out"
exit 0
