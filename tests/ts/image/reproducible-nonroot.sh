#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image is reproducible and needs no root on an image file: two
# runs as nobody on two copies of one image give the same bytes (nothing of
# the wall clock goes in: times are the root's last write time), and
# SOURCE_DATE_EPOCH, when set, is the time written into the image.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_root
bp_require_cmd debugfs sfdisk setpriv

img_root "$BP_TMPDIR/root-a.img"
t=$BP_TMPDIR/root-a.img.trace
disk=$BP_TMPDIR/disk-a.img
off=$(img_gpt "$disk" "$BP_TMPDIR/root-a.img")
size=$(stat -c %s "$BP_TMPDIR/root-a.img")
# A directory nobody can write, reached through one it can enter, and the
# bootpack it runs: a copy of $BOOTPACK there, as the tree may lie where
# nobody cannot read (a clone under /root).
bp_nobody_bootpack nobp
mkdir -m 0777 "$BP_TMPDIR/nobody"
for n in 1 2 3; do cp --sparse=always "$disk" "$BP_TMPDIR/nobody/copy$n.img"; done
cp "$t" "$BP_TMPDIR/nobody/boot.trace"
chown 65534:65534 "$BP_TMPDIR"/nobody/*
chmod 0644 "$BP_TMPDIR"/nobody/*
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

as_nobody env -u SOURCE_DATE_EPOCH "$nobp" image -q --trace "$BP_TMPDIR/nobody/boot.trace" \
	"$BP_TMPDIR/nobody/copy1.img" || bp_fail "bootpack image as nobody failed"
sleep 1.1	# a wall-clock second later
bp_expect_exit 0 as_nobody env -u SOURCE_DATE_EPOCH "$nobp" image -q \
	--trace "$BP_TMPDIR/nobody/boot.trace" "$BP_TMPDIR/nobody/copy2.img"
h1=$(rl_sum "$BP_TMPDIR/nobody/copy1.img")
h2=$(rl_sum "$BP_TMPDIR/nobody/copy2.img")
[ "$h1" = "$h2" ] || bp_fail "two runs on one image gave different bytes ($h1, $h2)"
[ "$h1" != "$(rl_sum "$disk")" ] || bp_fail "the run changed nothing"
bp_info "same output twice: $h1"

# SOURCE_DATE_EPOCH: the pack's inode times are that time.
SOURCE_DATE_EPOCH=1700000000 bp_expect_exit 0 as_nobody "$nobp" image -q \
	--trace "$BP_TMPDIR/nobody/boot.trace" "$BP_TMPDIR/nobody/copy3.img"
img_part "$BP_TMPDIR/nobody/copy3.img" "$off" "$size" "$BP_TMPDIR/part.img"
debugfs -R "stat /var/lib/bootpack/pack" "$BP_TMPDIR/part.img" >"$BP_TMPDIR/stat" 2>&1
bp_grep 'mtime: 0x6553f100' "$BP_TMPDIR/stat"
dumpe2fs -h "$BP_TMPDIR/part.img" 2>/dev/null >"$BP_TMPDIR/sb"
bp_grep 'Last write time: +Tue Nov 14 22:13:20 2023' "$BP_TMPDIR/sb"
exit 0
