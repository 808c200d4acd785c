#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image --chunk 512K (a cloud volume's snapshot chunks): the region
# starts on a chunk boundary of the image (not of the partition), and the
# boot touches fewer chunks after than before: no more than its bytes need
# plus one for the metadata outside the region. The first block of the
# region is the reader's own binary or the first boot file (debugfs icheck).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs e2fsck sfdisk

img_root "$BP_TMPDIR/root-a.img"
t=$BP_TMPDIR/root-a.img.trace
disk=$BP_TMPDIR/cloud-a.img
size=$(stat -c %s "$BP_TMPDIR/root-a.img")
# A partition that starts 3 MiB + 4 KiB into the image: off the chunk grid.
off=$((3 * 1048576 + 4096))
truncate -s $((off + size + 1048576)) "$disk"
sfdisk -q "$disk" >/dev/null <<-EOS
	label: gpt
	start=$((off / 512)), size=$((size / 512)), type=$IMG_ROOT_TYPE
EOS
dd if="$BP_TMPDIR/root-a.img" of="$disk" bs=4096 seek=$((off / 4096)) conv=notrunc,sparse status=none

bp_expect_exit 0 "$BOOTPACK" image --json --chunk 512K --trace "$t" "$disk"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/image.json"
num() { awk -v k="\"$1\":" '$1 == k {gsub(/,/, "", $2); print $2; exit}' "$BP_TMPDIR/image.json"; }
start=$(num byte_in_image)
[ $((start % 524288)) = 0 ] || bp_fail "the region starts at byte $start, not on a 512 KiB chunk"
before=$(sed -n '/"chunks"/,/}/p' "$BP_TMPDIR/image.json" | awk '$1 == "\"before\":" {gsub(/,/, "", $2); print $2}')
after=$(sed -n '/"chunks"/,/}/p' "$BP_TMPDIR/image.json" | awk '$1 == "\"after\":" {print $2}')
blocks=$(num blocks)
need=$(((blocks * 4096 + 524287) / 524288 + 1))
bp_info "chunks touched: $before -> $after (the boot set needs $need)"
[ "$after" -lt "$before" ] || bp_fail "chunks touched did not fall ($before -> $after)"
[ "$after" -le "$need" ] || bp_fail "$after chunks touched after, more than $need"
img_part "$disk" "$off" "$size" "$BP_TMPDIR/part.img"
rl_fsck_silent "$BP_TMPDIR/part.img"
blk=$(((start - off) / 4096))
debugfs -R "icheck $blk" "$BP_TMPDIR/part.img" 2>/dev/null | awk 'NR == 2 {print $2}' >"$BP_TMPDIR/ino"
[ "$(cat "$BP_TMPDIR/ino")" != "<block" ] && [ -s "$BP_TMPDIR/ino" ] ||
	bp_fail "block $blk, the region's first, holds nothing"
exit 0
