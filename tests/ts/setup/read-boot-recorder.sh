#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The read boot's recorder on a tree, with the kernel's tracefs: started by
# 'setup --event read-start' (an instance of its own, one event), it sees
# what is read from the tree's device, caches dropped; 'status --sample'
# collects it, names the file read outside the pack as a miss and none of
# the packed ones, and removes the instance.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd blockdev

tfs=$(bp_tracefs)
mk_tree
mkdir -p "$ROOT/usr/lib/x" "$ROOT/usr/lib/y"
for f in a b c; do
	head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/$f"
done
head -c 200000 /dev/urandom >"$ROOT/usr/lib/y/new"
sync
img=$BP_TMPDIR/root.img
sd=$ROOT/var/lib/bootpack
run=$ROOT/run/bootpack
inst=$tfs/instances/bootpack_misses-$((0x$(stat -c %t "$TREE_DEV")))-$((0x$(stat -c %T "$TREE_DEV")))
bp_on_exit "rmdir '$inst' 2>/dev/null"

bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
# not a read boot: nothing started
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event read-start
[ ! -d "$inst" ] || bp_fail "a recorder in phase trace"
bash "$top_srcdir/tests/mktrace.sh" "$img" "$sd/trace" /usr/lib/x/a /usr/lib/x/b /usr/lib/x/c
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event traced
mkdir -p "$run"
bp_expect_exit 0 "$BOOTPACK" pack --trace "$sd/trace" -o "$run/pack" "$TREE_DEV"
echo "done in 3 s" >"$run/relayout.status"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot

# the boot: cold caches, the recorder, then a, b, c and y/new read
sync
blockdev --flushbufs "$TREE_DEV"
bp_drop_caches
bp_cache_hold
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event read-start
[ -d "$inst" ] || bp_fail "no recorder instance $inst"
[ "$(cat "$inst/events/filemap/mm_filemap_add_to_page_cache/enable")" = 1 ] ||
	bp_fail "the recorder's event is off"
[ "$(cat "$inst/events/filemap/mm_filemap_get_pages/enable" 2>/dev/null || echo 0)" = 0 ] ||
	bp_fail "the recorder records page accesses (costly)"
cat "$ROOT"/usr/lib/x/* "$ROOT/usr/lib/y/new" >/dev/null
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample
cat "$BP_TMPDIR/out"
bp_grep '^misses [1-9][0-9]* requests, [0-9]+ bytes outside the pack' "$BP_TMPDIR/out"
[ ! -d "$inst" ] || bp_fail "the recorder's instance outlives the sample"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
cat "$BP_TMPDIR/out"
bp_grep '^  missed data +(2000[0-9][0-9]|2[0-9]{5}) bytes  /usr/lib/y/new$' "$BP_TMPDIR/out"
! grep -q 'missed data .*/usr/lib/x/' "$BP_TMPDIR/out" || bp_fail "a packed file named as a miss"
# the next pack holds it (the boot's reads were merged)
"$BOOTPACK" dump "$sd/pack" >"$BP_TMPDIR/dump"
bp_grep '/usr/lib/y/new$' "$BP_TMPDIR/dump"
exit 0
