#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-recorder.sh --- what the read boot's recorder costs (loop/BENCH.md).
# A tree of its own (a loop-mounted ext4 image, as the setup tests make it)
# with a copy of this machine's /usr/lib/x86_64-linux-gnu cut to a boot's
# size; a pack of a few of its files; then, caches dropped, every file is
# read four times, without the recorder and with it, interleaved. Prints
# the events the recorder kept, the read times, and the CPU time of 'status
# --sample' (collect, resolve, misses, merge into the trace, rewrite the pack).
# Root; run from the build tree: bash loop/bench-recorder.sh [MiB, default 150].
set -eEu
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
. "$top_srcdir/tests/functions.sh"
TREE_SIZE=1G
. "$top_srcdir/tests/ts/setup/tree.sh"
mib=${1:-150}

# shellcheck disable=SC2119  # mk_tree's arguments are mke2fs options: none here
mk_tree
src=/usr/lib/x86_64-linux-gnu
mkdir -p "$ROOT/usr/lib/bench"
# files in name order until mib MiB
find "$src" -type f -size -8M -printf '%s %P\n' | sort -k2 |
	awk -v max=$((mib << 20)) '{ t += $1; if (t <= max) print $2 }' >"$BP_TMPDIR/list"
(cd "$src" && cpio -pdm --quiet "$ROOT/usr/lib/bench" <"$BP_TMPDIR/list")
sync
nfiles=$(wc -l <"$BP_TMPDIR/list")
bytes=$(cd "$ROOT/usr/lib/bench" && du -sb . | cut -f1)
img=$BP_TMPDIR/root.img
sd=$ROOT/var/lib/bootpack
"$BOOTPACK" setup --root "$ROOT" >/dev/null
mapfile -t some < <(sed -n '1~20p' "$BP_TMPDIR/list" | head -n 100 | sed 's|^|/usr/lib/bench/|')
bash "$top_srcdir/tests/mktrace.sh" "$img" "$sd/trace" "${some[@]}"
"$BOOTPACK" setup --root "$ROOT" --event traced
mkdir -p "$ROOT/run/bootpack"
"$BOOTPACK" pack --trace "$sd/trace" -o "$ROOT/run/bootpack/pack" "$TREE_DEV" >/dev/null
echo "done in 1 s" >"$ROOT/run/bootpack/relayout.status"
"$BOOTPACK" setup --root "$ROOT" --event boot

readall() {
	sync
	blockdev --flushbufs "$TREE_DEV"
	bp_drop_caches
	local t0 t1
	t0=$(date +%s%N)
	(cd "$ROOT/usr/lib/bench" && xargs -d '\n' cat <"$BP_TMPDIR/list" >/dev/null)
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
# interleaved: off, on, off, on (tracing_on of the recorder's instance)
"$BOOTPACK" setup --root "$ROOT" --event read-start
inst=$(ls -d /sys/kernel/tracing/instances/bootpack_misses-*-"$((0x$(stat -c %T "$TREE_DEV")))")
plain='' traced=''
for i in 1 2; do
	echo 0 >"$inst/tracing_on"
	plain+=" $(readall)"
	echo 1 >"$inst/tracing_on"
	traced+=" $(readall)"
done
/usr/bin/time -f '%U %S %M' -o "$BP_TMPDIR/time" "$BOOTPACK" status --root "$ROOT" --sample \
	>"$BP_TMPDIR/sample"
read -r user sys rss <"$BP_TMPDIR/time"
events=$(sed -n 's/.* events=\([0-9]*\) lost=\([0-9]*\).*/\1 \2/p' "$sd/misses")
echo "files read: $nfiles, $((bytes >> 20)) MiB; pack: ${#some[@]} of them"
echo "recorder: events kept, lost: $events"
echo "read all, cold (2 runs each, interleaved):${plain} ms without the recorder,${traced} ms with it"
echo "status --sample (collect, resolve, misses, merge, repack): user ${user} s, sys ${sys} s, max RSS ${rss} KiB"
cat "$BP_TMPDIR/sample"
