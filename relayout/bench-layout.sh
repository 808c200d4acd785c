#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-layout.sh --- reader lookahead and extents per file, per minimum piece
#
# An aged ext4 fixture (1 GiB, scale 4; cached under $top_builddir/bench) and
# a synthetic interleaving boot trace (seeded, so repeatable): programs and
# libraries are opened one after the other, each read at its head (16-128
# KiB), and most of them read again later, 1-3 ranges of 4-512 KiB at random
# offsets, 1-60 opens after the head: file A's head, other files, A's tail;
# 30 % of the larger ones also take 8-32 single-page faults at random
# offsets, 1-200 opens later (a mapped library).
# Prints relayout/bench-layout's figures (the "pages ahead" a sequential
# reader of the region needs, extents per file) for the layout as it is,
# as planned with minimum pieces of 4 KiB to 1 MiB and "whole traced set of
# a file at once" (file-by-file order), then after a real relayout
# (default 64 KiB) and, if OLD_BOOTPACK is given, after that engine's
# relayout. Writes nothing into the source tree.
. "${top_srcdir:?}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"

BENCH=${BENCH_DIR:-$top_builddir/bench}
SIZE=${BENCH_LAYOUT_SIZE:-1G}
SCALE=${BENCH_LAYOUT_SCALE:-4}
TOOL=$top_builddir/relayout/bench-layout
mkdir -p "$BENCH"

AGED=${BENCH_LAYOUT_AGED:-1}	# 0: a fresh (not aged) image, files in one extent
aged=() name=layout
if [ "$AGED" = 1 ]; then aged=(--aged) name=layout-aged; fi
img=$BENCH/$name-$SIZE.img
if [ ! -s "$img" ]; then
	"$top_srcdir/fixtures/mkfixture.sh" "${aged[@]}" --size "$SIZE" --scale "$SCALE" \
		--bindir "$top_builddir/fixtures" ext4 "$img.tmp" >"$img.log" 2>&1 ||
		{ cat "$img.log" >&2; bp_fail "mkfixture"; }
	mv "$img.tmp.files" "$img.files"
	mv "$img.tmp" "$img"
fi

# Candidates: boot files first, then programs and libraries (list order), with their sizes.
awk '{print $2}' "$img.files" | grep -E '^/(boot|usr/lib|usr/bin|usr/sbin)/' |
	awk '{ print (/^\/boot\// ? 0 : 1), NR, $0 }' | sort -k1,1n -k2,2n | cut -d' ' -f3- \
	>"$BP_TMPDIR/candidates"
while read -r p; do printf 'stat "%s"\n' "$p"; done <"$BP_TMPDIR/candidates" >"$BP_TMPDIR/stat.cmd"
debugfs -f "$BP_TMPDIR/stat.cmd" "$img" 2>/dev/null | awk '
	/^debugfs: stat "/ { p = substr($0, 16, length($0) - 16); next }
	/Size:/ && p != "" { for (i = 1; i < NF; i++) if ($i == "Size:") print p, $(i + 1); p = "" }' \
	>"$BP_TMPDIR/sizes"
python3 - "$BP_TMPDIR/sizes" >"$BP_TMPDIR/specs" <<'PY'
import random, sys
rnd = random.Random(20261203)
files = [l.rsplit(" ", 1) for l in open(sys.argv[1])]
files = [(p, int(s)) for p, s in files if int(s) >= 8192][:400]
K = 1024
ev = {}        # path -> [(time, off, len)]
t = 0
for p, size in files:
    t += 1000
    head = min(size, rnd.choice([16 * K, 32 * K, 64 * K, 128 * K]))
    ev.setdefault(p, []).append((t, 0, head))
    if size > head and rnd.random() < 0.7:
        for _ in range(rnd.randint(1, 3)):
            off = rnd.randrange(head, size) // 4096 * 4096
            ln = min(size - off, rnd.choice([4, 8, 16, 64, 128, 256, 512]) * K)
            ev[p].append((t + rnd.randint(1, 60) * 1000 + rnd.randint(1, 999), off, ln))
    if size > head + 65536 and rnd.random() < 0.3:
        # page faults of a mapped file: single pages here and there, later
        for _ in range(rnd.randint(8, 32)):
            off = rnd.randrange(head, size) // 4096 * 4096
            ev[p].append((t + rnd.randint(1, 200) * 1000 + rnd.randint(1, 999), off, 4096))
for p, rs in ev.items():
    taken = []
    out = []
    for tm, off, ln in sorted(rs):
        a, b = off, off + ln
        for x, y in sorted(taken):          # keep the part not read before
            if y <= a or x >= b:
                continue
            if x <= a:
                a = max(a, y)
            elif y >= b:
                b = x
            else:
                b = x                       # drop the part after an earlier read
        if a < b:
            taken.append((a, b))
            out.append((a, b - a, tm))
    out.sort()
    print(p + "@" + ",".join("%d+%d/%d" % (a, l, tm) for a, l, tm in out))
PY
mapfile -t specs <"$BP_TMPDIR/specs"
rl_mktrace "$img" "$BP_TMPDIR/trace" "${specs[@]}"
cp "$BP_TMPDIR/trace" "$img.trace"
echo "# image $img, ${#specs[@]} files, trace $img.trace"

"$TOOL" "$img" "$BP_TMPDIR/trace"
for min in 4096 16384 65536 262144 1048576 1099511627776; do
	"$TOOL" --plan $min "$img" "$BP_TMPDIR/trace"
done

work=$BENCH/layout-work.img
cp --sparse=always "$img" "$work"
"$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/trace" "$work" >"$BP_TMPDIR/out" ||
	{ cat "$BP_TMPDIR/out"; bp_fail "relayout failed"; }
e2fsck -fn "$work" >/dev/null 2>&1 || bp_fail "e2fsck -fn failed after relayout"
echo "# after bootpack relayout (this engine):"
"$TOOL" "$work" "$BP_TMPDIR/trace"
if [ -n "${OLD_BOOTPACK:-}" ]; then
	cp --sparse=always "$img" "$work"
	"$OLD_BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/trace" "$work" >"$BP_TMPDIR/out" ||
		{ cat "$BP_TMPDIR/out"; bp_fail "old relayout failed"; }
	echo "# after $OLD_BOOTPACK relayout:"
	"$TOOL" "$work" "$BP_TMPDIR/trace"
fi
rm -f "$work"
