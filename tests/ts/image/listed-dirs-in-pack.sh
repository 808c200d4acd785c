#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image with a boot that reads directories on no packed file's
# path (issue 35): the guest's trace_event text (a stub boot driver) reads
# a unit directory systemd lists, a directory a negative lookup searched
# and a mount point through the root's block device. After the image is
# relaid out, every block those directories have (debugfs, the oracle) is
# in the pack the image installed, and `bootpack verify --pack --trace`
# accounts for every block the guest's trace read.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs e2fsck sfdisk jq

img_root "$BP_TMPDIR/root-a.img"
root=$BP_TMPDIR/root-a.img
wants=/etc/systemd/system/multi-user.target.wants
{
	echo "mkdir /etc/systemd/system"
	echo "mkdir $wants"
	for i in $(seq 1 200); do
		echo "symlink $wants/bootpack-unit-$i.service /usr/lib/systemd/system/bootpack-unit-$i.service"
	done
	echo "mkdir /etc/modules-load.d"
	echo "mkdir /proc"
} >"$BP_TMPDIR/mkdirs"
debugfs -w -f "$BP_TMPDIR/mkdirs" "$root" >/dev/null 2>&1 || bp_fail "debugfs: cannot make the directories"
DIRS=("$wants" /etc/systemd/system /etc/modules-load.d /proc)
bs=$(dumpe2fs -h "$root" 2>/dev/null | sed -n 's/^Block size: *//p')
disk=$BP_TMPDIR/disk-a.img
size=$(stat -c %s "$root")
off=$(img_gpt "$disk" "$root")
dirblocks() { debugfs -R "blocks $2" "$1" 2>/dev/null | tr ' ' '\n' | grep .; }

# The guest's trace: the directories' blocks through the root's block
# device (254:2: bdev inode 0xfe00002), then a few files.
text=$BP_TMPDIR/guest.txt
: >"$text"
ts=1000
for d in "${DIRS[@]}"; do
	for b in $(dirblocks "$root" "$d"); do
		ts=$((ts + 1))
		printf '         systemd-1       [000] .....     2.%06d: mm_filemap_add_to_page_cache: dev 0:5 ino fe00002 pfn=0x10000 ofs=%d order=0\n' \
			"$ts" "$((b * bs))" >>"$text"
	done
done
for f in /usr/lib/systemd/systemd /usr/bin/bash /etc/passwd; do
	ino=$(debugfs -R "stat $f" "$root" 2>/dev/null | awk '/^Inode:/ {print $2; exit}')
	ts=$((ts + 1))
	printf '         systemd-1       [000] .....     2.%06d: mm_filemap_add_to_page_cache: dev 254:2 ino %x pfn=0x10000 ofs=0 order=0\n' \
		"$ts" "$ino" >>"$text"
done
stub=$BP_TMPDIR/image-boot-a
cat >"$stub" <<-EOS
	#!/bin/sh
	# --image IMG --offset N --out TEXT --timeout S
	cp "$text" "\$6"
	printf 'dev=254:2\ndone_s=4.25\nmem_mb=1024\n' >"\$6.env"
EOS
chmod +x "$stub"

# a budget given: the automatic one is the disk rate times this short trace
BOOTPACK_IMAGE_BOOT=$stub bp_expect_exit 0 "$BOOTPACK" image --json --budget 64M "$disk"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/image.json"
pack=$(jq -r '.installed.pack' "$BP_TMPDIR/image.json")
[ -n "$pack" ] && [ "$pack" != null ] || bp_fail "no pack installed: $(cat "$BP_TMPDIR/image.json")"
img_part "$disk" "$off" "$size" "$BP_TMPDIR/part.img"
rl_fsck_silent "$BP_TMPDIR/part.img"
debugfs -R "dump $pack $BP_TMPDIR/pack" "$BP_TMPDIR/part.img" >/dev/null 2>&1 ||
	bp_fail "debugfs: cannot read $pack from the image"
"$BOOTPACK" dump --json "$BP_TMPDIR/pack" | jq -r --argjson bs "$bs" \
	'.meta[] | range(.offset / $bs | floor; (.offset + .length + $bs - 1) / $bs | floor)' |
	sort -n >"$BP_TMPDIR/packed"
n=0 miss=0 moved=0
for d in "${DIRS[@]}"; do
	dirblocks "$root" "$d" >"$BP_TMPDIR/was"
	for b in $(dirblocks "$BP_TMPDIR/part.img" "$d"); do
		n=$((n + 1))
		grep -qx "$b" "$BP_TMPDIR/was" || moved=$((moved + 1))
		grep -qx "$b" "$BP_TMPDIR/packed" || { miss=$((miss + 1)); echo "$d: block $b not in the pack"; }
	done
done
bp_info "image: $((n - miss)) of $n directory blocks in the installed pack ($moved moved)"
[ "$moved" -gt 0 ] || bp_fail "the image's relayout moved none of the directories: nothing to check"
[ "$miss" = 0 ] || bp_fail "$miss directory blocks missing from the installed pack"
# the guest's trace against the pack, on the relaid-out root
"$BOOTPACK" trace --import "$text" --device "$root" -o "$BP_TMPDIR/guest.trace" 2>/dev/null
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/pack" --trace "$BP_TMPDIR/guest.trace" \
	"$BP_TMPDIR/part.img"
exit 0
