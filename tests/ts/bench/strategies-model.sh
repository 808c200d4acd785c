#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bp-strategies (bench/boot/, not installed) models the boot bench's four
# strategies (bench/boot/strategy.h). On a trace of an aged image (files read
# in the reverse of their disk order), checked against debugfs (the blocks of
# the traced files), not against the model's own mapping:
#  - the ureadahead-style stream reads every data block of the traced files
#    once, in increasing physical order, after all of its metadata reads;
#    the stock stream reads them in first-access order, which on the aged
#    image goes backwards;
#  - on the hard disk the sorted pass costs less than stock;
#  - after relayout, bootpack with relayout's pack costs less than both,
#    and the ordering is reported in the text and JSON outputs.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd debugfs python3
bp_tracefs >/dev/null
STRATEGIES=$top_builddir/bench/boot/bp-strategies

img=$(bp_fixture --aged ext4)
# A boot that reads files in the reverse of their order on disk (debugfs
# bmap of block 0): first-access order then jumps back at every file.
awk '{ print $2 }' "$img.files" | grep -E '^/(usr/bin|usr/lib/x86_64-linux-gnu|etc|var/lib/dpkg/info)/[^/ ]+$' |
	while read -r p; do printf 'bmap "%s" 0\n' "$p"; done >"$BP_TMPDIR/cmd"
debugfs -f "$BP_TMPDIR/cmd" "$img" 2>/dev/null | awk '
	/^debugfs: bmap "/ { p = substr($0, 16); sub(/" 0$/, "", p); next }
	/^[0-9]+$/ && p != "" && $1 > 0 { print $1, p; p = "" }' | sort -rn | awk '{ print $2 }' \
	>"$BP_TMPDIR/order"
mapfile -t files <"$BP_TMPDIR/order"
[ ${#files[@]} -ge 40 ] || bp_fail "fixture: only ${#files[@]} files to read"
bp_trace_reads "$img" "$BP_TMPDIR/boot.trace" "${files[@]}"
bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block size/ {print $2}')
[ "$bs" -gt 0 ] || bp_fail "dumpe2fs: no block size"
# The fixture has one block group: its inode table holds every traced inode.
itable=$(dumpe2fs "$img" 2>/dev/null | awk '/Inode table at/ { print $4; exit }')
[[ $itable == *-* ]] || bp_fail "dumpe2fs: no inode table"

# The traced files' extents, from debugfs: "PATH LOGICAL PHYSICAL LENGTH" per leaf.
while read -r p; do printf 'ex "%s"\n' "$p"; done <"$BP_TMPDIR/boot.trace.paths" >"$BP_TMPDIR/cmd"
debugfs -f "$BP_TMPDIR/cmd" "$img" 2>/dev/null | awk '
	/^debugfs: ex "/ { p = substr($0, 14, length($0) - 14); next }
	# a leaf: level L/L; "Uninit" extents hold no data
	$1 ~ /^[0-9]+\/$/ && $1 + 0 == $2 + 0 && $6 == "-" && $9 == "-" && $0 !~ /Uninit/ {
		print p, $5, $8, $11 }' >"$BP_TMPDIR/extents"
[ "$(wc -l <"$BP_TMPDIR/extents")" -ge 20 ] || bp_fail "debugfs: too few extents"

# check STREAMS STRATEGY: the strategy's reads against the debugfs extents.
# Data blocks: the extents' blocks; traced blocks: those of the trace's file
# ranges (its R records, offsets in the file) mapped through the extents.
check() {
	python3 - "$1" "$2" "$bs" "$BP_TMPDIR/extents" "$BP_TMPDIR/boot.trace" "$itable" <<'PY'
import sys, urllib.parse
streams, strat, bs, extents, trace = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
it_first, it_last = map(int, sys.argv[6].split("-"))
ext = {}
for l in open(extents):
    p, lo, ph, n = l.rsplit(None, 3)
    ext.setdefault(p, []).append((int(lo), int(ph), int(n)))
data = {ph + i for e in ext.values() for _, ph, n in e for i in range(n)}
traced, path = set(), None
for l in open(trace):
    f = l.split()
    if f and f[0] == "F":
        path = urllib.parse.unquote(f[5])
    elif f and f[0] == "R" and path in ext:
        off, ln = int(f[1]), int(f[2])
        for lb in range(off // bs, (off + ln + bs - 1) // bs):
            traced |= {ph + lb - lo for lo, ph, n in ext[path] if lo <= lb < lo + n}
reads = [tuple(map(int, l.split()[1:])) for l in open(streams) if l.split()[0] == strat]
seen, ndata, other_after, backwards, last = {}, 0, 0, 0, -1
itable_before = set()
for off, ln in reads:
    bl = range(off // bs, (off + ln + bs - 1) // bs)
    d = [b for b in bl if b in data]
    if not d:
        other_after += ndata > 0
        if not ndata:
            itable_before |= {b for b in bl if it_first <= b <= it_last}
        continue
    if len(d) != len(bl):
        sys.exit(f"{strat}: read {off}+{ln} mixes data and other blocks")
    for b in d:
        seen[b] = seen.get(b, 0) + 1
    backwards += bl[0] <= last
    last = bl[-1]
    ndata += 1
missing, extra = traced - set(seen), set(seen) - traced
twice = [b for b, n in seen.items() if n > 1]
print(f"{strat}: {len(reads)} reads, {ndata} of data, {backwards} backwards, "
      f"{len(traced)} traced blocks: {len(missing)} unread, {len(extra)} untraced read, "
      f"{len(twice)} read twice; {other_after} other reads after the first data read")
if missing:
    sys.exit(f"{strat}: {len(missing)} traced data blocks not read")
if strat == "ureadahead" and (backwards or twice or other_after or extra):
    sys.exit("ureadahead: the data is not one increasing pass over the traced blocks after the metadata")
if strat == "ureadahead" and len(itable_before) != it_last - it_first + 1:
    sys.exit(f"ureadahead: {len(itable_before)} of the inode table's blocks read before the data")
if strat == "stock" and not backwards:
    sys.exit("stock: first-access order on an aged image should go backwards")
PY
}

# strat MODEL STRATEGY: seconds from the JSON output.
strat() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["ranking"]["models"] if m["model"] == sys.argv[2]][0]
print([s for s in m["strategies"] if s["strategy"] == sys.argv[3]][0]["seconds"])' \
		"$BP_TMPDIR/out" "$1" "$2"
}

bp_expect_exit 0 "$STRATEGIES" --json --stream-out "$BP_TMPDIR/streams" \
	--trace "$BP_TMPDIR/boot.trace" "$img"
check "$BP_TMPDIR/streams" ureadahead || bp_fail "ureadahead stream"
check "$BP_TMPDIR/streams" stock || bp_fail "stock stream"
check "$BP_TMPDIR/streams" sreadahead || bp_fail "sreadahead stream"
u=$(strat hdd-5k160 ureadahead) s=$(strat hdd-5k160 stock)
bp_info "hdd-5k160 before relayout: stock $s s, ureadahead $u s"
awk -v u="$u" -v s="$s" 'BEGIN { exit !(u < s) }' || bp_fail "hdd: sorted pass not below stock"

# After relayout, with the pack relayout wrote.
bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --pack "$BP_TMPDIR/pack" \
	--trace "$BP_TMPDIR/boot.trace" "$img"
bp_fsck_clean "$img"
bp_expect_exit 0 "$STRATEGIES" --json --pack "$BP_TMPDIR/pack" --trace "$BP_TMPDIR/boot.trace" "$img"
b=$(strat hdd-5k160 bootpack) u2=$(strat hdd-5k160 ureadahead)
bp_info "hdd-5k160 after relayout: bootpack $b s, ureadahead $u2 s"
[ "$u2" = "$u" ] || bp_fail "ureadahead reads the traced layout: $u s before, $u2 s after relayout"
awk -v b="$b" -v u="$u" 'BEGIN { exit !(b < u) }' || bp_fail "hdd: bootpack not below ureadahead"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["ranking"]["models"]:
    names = [s["strategy"] for s in m["strategies"]]
    assert names == ["stock", "sreadahead", "ureadahead", "bootpack"], names
    secs = {s["strategy"]: s["seconds"] for s in m["strategies"]}
    assert sorted(m["ordering"], key=secs.get) == m["ordering"], m["ordering"]
    assert sorted(m["ordering"]) == sorted(names), m["ordering"]
' "$BP_TMPDIR/out" || bp_fail "JSON: strategies or ordering"
bp_expect_exit 0 "$STRATEGIES" -m hdd-5k160 --pack "$BP_TMPDIR/pack" --trace "$BP_TMPDIR/boot.trace" "$img"
cat "$BP_TMPDIR/out"
bp_grep '^hdd-5k160  ordering: bootpack < ' "$BP_TMPDIR/out"

# A pack of another filesystem, or none there: refused.
uuid=0b0e1ca1-0000-4000-8000-000000000001
cp --sparse=always "$img" "$BP_TMPDIR/copy.img"
tune2fs -U "$uuid" "$BP_TMPDIR/copy.img" >/dev/null 2>&1 || bp_fail "tune2fs -U"
sed "s/^uuid .*/uuid $uuid/" "$BP_TMPDIR/boot.trace" >"$BP_TMPDIR/copy.trace"
bp_expect_exit 1 "$STRATEGIES" --pack "$BP_TMPDIR/pack" --trace "$BP_TMPDIR/copy.trace" \
	"$BP_TMPDIR/copy.img"
bp_grep 'the pack is of filesystem UUID .*, this one is UUID '"$uuid" "$BP_TMPDIR/err"
bp_expect_exit 1 "$STRATEGIES" --pack "$BP_TMPDIR/nosuch" --trace "$BP_TMPDIR/boot.trace" "$img"
bp_grep 'no such pack' "$BP_TMPDIR/err"
exit 0
