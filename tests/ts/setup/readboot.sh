# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# readboot.sh --- sourced by the read-boot cases after mk_tree (tree.sh):
# the loop's paths in the tree, its phase, and the image read beside the
# mount with the tree frozen.
# shellcheck disable=SC2034	# img, sd, run: for the sourcing case
img=$BP_TMPDIR/root.img
sd=$ROOT/var/lib/bootpack
state=$sd/loop
run=$ROOT/run/bootpack
bp_on_exit "fsfreeze -u '$ROOT'"	# before the umount, should a case end frozen
phase() { sed -n 's/^phase=//p' "$state"; }
# frozen CMD...: CMD, a reader of the image file, run with the tree frozen.
# debugfs reads the image beside the mount, not through it: after a sync the
# kernel still writes the image when it likes (the journal's commits and
# checkpoints, an atime, the flusher's writeback of the inode tables,
# ext4lazyinit's group descriptors), and a read beside such a write can get
# a block half old, half new (a checksum that does not match, an inode not
# found). fsfreeze writes back all the mount holds, the journal checkpointed
# to its place included, and holds every change until CMD is done. CMD must
# not write to the tree.
frozen() {
	local rc=0
	fsfreeze -f "$ROOT" || bp_fail "fsfreeze -f $ROOT"
	"$@" || rc=$?
	fsfreeze -u "$ROOT" || bp_fail "fsfreeze -u $ROOT"
	return $rc
}
# mktrace OUT ARGS...: tests/mktrace.sh of the image, frozen, into OUT
mktrace() {
	local out=$1
	shift
	frozen bash "$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/mktrace.out" "$@" ||
		bp_fail "mktrace.sh $*"
	cp "$BP_TMPDIR/mktrace.out" "$out"
}
# relaid PATH...: boot 1 traced PATHs, boot 2 relaid out (its pack here made
# by pack): the loop in the read phase
relaid() {
	mktrace "$sd/trace" "$@"
	bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event traced
	mkdir -p "$run"
	bp_expect_exit 0 "$BOOTPACK" pack --trace "$sd/trace" -o "$run/pack" "$TREE_DEV"
	echo "done in 3 s" >"$run/relayout.status"
	bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
	[ "$(phase)" = read ] || bp_fail "phase $(phase)"
}
