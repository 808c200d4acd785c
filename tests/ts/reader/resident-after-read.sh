#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# On a loop-mounted fixture with caches dropped: trace a workload (cat of
# boot files, an exec), build the pack with bootpack pack, drop caches, run
# bootpack-read --no-exec: every range of the pack is then resident
# (mincore), the metadata ranges are resident in the block device's cache,
# and replaying the workload reads (nearly) nothing from the device.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs blockdev python3
tfs=$(bp_tracefs)
[ -d "$tfs/events/filemap/mm_filemap_get_pages" ] ||
	bp_skip "kernel without mm_filemap_get_pages (Linux 6.12+)"

img=$(bp_fixture ext4)
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mnt=$BP_TMPDIR/mnt
echo 128 >"/sys/block/$(basename "$loop")/queue/read_ahead_kb"

files=()
while read -r f; do files+=("$f"); done < <(cd "$mnt" && find etc usr/bin usr/lib -type f -size +2k 2>/dev/null | sort | head -n 40)
[ ${#files[@]} -ge 10 ] || bp_fail "fixture has too few files"
workload() {
	local f
	for f in "${files[@]}"; do cat "$mnt/$f" >/dev/null; done
	ls -lR "$mnt/usr" >/dev/null
}

rd_cold "$loop"
before=$(rd_read_sectors "$loop")
"$BOOTPACK" trace -o "$BP_TMPDIR/trace" --device "$loop" -- bash -c \
	"$(declare -p mnt files; declare -f workload); workload" >/dev/null 2>"$BP_TMPDIR/trace.err" ||
	{ cat "$BP_TMPDIR/trace.err"; bp_fail "bootpack trace"; }
cold=$(( $(rd_read_sectors "$loop") - before ))
"$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" "$loop" >"$BP_TMPDIR/pack.out"
cat "$BP_TMPDIR/pack.out"

"$BOOTPACK" dump "$BP_TMPDIR/pack" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d.get("pack", {})
for f in d.get("entries", p.get("entries", [])):
    print("F", f["path"], f["offset"], f["length"])
for m in d.get("meta", p.get("meta", [])):
    print("M", m["offset"], m["length"])
' >"$BP_TMPDIR/ranges"
nf=$(grep -c '^F ' "$BP_TMPDIR/ranges" || true)
nm=$(grep -c '^M ' "$BP_TMPDIR/ranges" || true)
bp_info "pack: $nf file ranges, $nm metadata ranges; cold workload read $cold sectors"
[ "$nf" -ge 10 ] || bp_fail "pack has too few file ranges"

# Cold again, then bootpack-read; then every file range of the pack is
# resident, and so is every metadata range in the device's page cache. (A
# page or two may be reclaimed in between on a busy machine: at most 1% of
# the pages may be missing, and the count is printed. If another test
# dropped every cache meanwhile, the canary says so and the round is redone.)
for round in 1 2 3; do
	rd_cold "$loop"
	[ "$("$RD_HELPERS/bp-mincore" "$mnt/${files[0]}")" != "$("$RD_HELPERS/bp-mincore" -t "$mnt/${files[0]}")" ] ||
		bp_fail "caches were not dropped"
	rd_canary_set
	bp_expect_exit 0 "$READER" --no-exec --log=stderr --config=none --root "$mnt" --pack "$BP_TMPDIR/pack"
	cat "$BP_TMPDIR/err"
	bp_grep '^bootpack-read: [0-9]+ bytes \([1-9][0-9]* metadata\), [1-9][0-9]* files, 0 skipped' "$BP_TMPDIR/err"
	missing=0 total=0
	while read -r kind a b c; do
		if [ "$kind" = F ]; then
			r=$("$RD_HELPERS/bp-mincore" -m "$mnt$a" "$b" "$c")
			t=$(( (c + 4095) / 4096 ))
		else
			r=$("$RD_HELPERS/bp-mincore" -m "$loop" "$a" "$b")
			t=$(( (b + 4095) / 4096 ))
		fi
		[ "$r" = 0 ] || bp_info "not resident: $kind $a $b $c: $r pages"
		missing=$((missing + r)) total=$((total + t))
	done <"$BP_TMPDIR/ranges"
	bp_info "resident after bootpack-read: $((total - missing)) of $total pages"
	rd_canary_lost || break
	bp_info "round $round: every cache was dropped meanwhile (canary gone), again"
done
[ "$missing" -le $((total / 100)) ] || bp_fail "$missing of $total pages not resident after bootpack-read"

# Replay: (nearly) no block reads.
before=$(rd_read_sectors "$loop")
workload
warm=$(( $(rd_read_sectors "$loop") - before ))
bp_info "replay after bootpack-read: $warm sectors read (cold: $cold)"
[ "$cold" -gt 0 ] || bp_fail "the cold workload read nothing: caches not dropped?"
[ "$warm" -le $((cold / 20)) ] || bp_fail "replay read $warm sectors of $cold cold (more than 5%)"
