#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where bootpack image starts the reader. An image with initramfs-tools and
# bootpack's hooks whose configuration says BOOTPACK=y (written by the
# builder before its initramfs is built): the initramfs reads the pack, so
# bootpack-read.service is not enabled, and the link the package left is
# removed (the pack is read once). Without that line, or with a later
# BOOTPACK=n of the builder's: the unit is enabled as before. dracut's
# bootpack.conf the same. --reader initramfs on an image without the line
# and --reader service on one with it are refused (exit 4), naming the file,
# the image byte for byte unchanged. The oracles read the image with debugfs.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs e2fsck

link=/etc/systemd/system/sysinit.target.wants/bootpack-read.service
base=$BP_TMPDIR/root-ri.img
img_root "$base"
t=$base.trace
printf '#!/bin/sh\nexit 0\n' >"$BP_TMPDIR/stub"

# img_with IMG TOOL [DEBUGFS-COMMAND...]: a copy of the base root with TOOL
# (initramfs-tools or dracut) and bootpack's hooks for it installed, the
# unit enabled as the package leaves it, then the commands run.
img_with() {
	local img=$1 tool=$2 c
	shift 2
	cp "$base" "$img"
	{
		echo "mkdir /usr/sbin"
		echo "mkdir /usr/bin"
		echo "mkdir /etc/systemd"
		echo "mkdir /etc/systemd/system"
		echo "mkdir /etc/systemd/system/sysinit.target.wants"
		echo "symlink $link /usr/lib/systemd/system/bootpack-read.service"
		if [ "$tool" = initramfs-tools ]; then
			echo "write $BP_TMPDIR/stub /usr/sbin/update-initramfs"
			for d in /usr/share /usr/share/initramfs-tools \
				/usr/share/initramfs-tools/hooks /usr/share/initramfs-tools/scripts \
				/usr/share/initramfs-tools/scripts/init-bottom \
				/etc/initramfs-tools /etc/initramfs-tools/conf.d; do
				echo "mkdir $d"
			done
			echo "write $BP_TMPDIR/stub /usr/share/initramfs-tools/hooks/bootpack"
			echo "write $BP_TMPDIR/stub /usr/share/initramfs-tools/scripts/init-bottom/bootpack"
		else
			echo "write $BP_TMPDIR/stub /usr/bin/dracut"
			for d in /usr/lib/dracut /usr/lib/dracut/modules.d \
				/usr/lib/dracut/modules.d/90bootpack /etc/dracut.conf.d; do
				echo "mkdir $d"
			done
			echo "write $BP_TMPDIR/stub /usr/lib/dracut/modules.d/90bootpack/module-setup.sh"
			echo "write $BP_TMPDIR/stub /usr/lib/dracut/modules.d/90bootpack/bootpack-read.sh"
		fi
	} | debugfs -w -f - "$img" >/dev/null 2>&1
	debugfs -R "stat $link" "$img" 2>/dev/null | grep -q 'Type: symlink' ||
		bp_fail "fixture: the package's link was not written"
	[ $# = 0 ] || printf '%s\n' "$@" | debugfs -w -f - "$img" >/dev/null 2>&1
}

# The configuration files the builder writes, for debugfs write.
yes=$BP_TMPDIR/conf-yes
no=$BP_TMPDIR/conf-no
dracut_add=$BP_TMPDIR/conf-dracut
echo 'BOOTPACK=y' >"$yes"
echo 'BOOTPACK=n' >"$no"
echo 'add_dracutmodules+=" bootpack "' >"$dracut_add"

# has_link IMG: the unit's link is in the image (debugfs, not bootpack).
has_link() { debugfs -R "stat $link" "$1" 2>/dev/null | grep -q 'Type: symlink'; }
has_pack() {
	debugfs -R "dump /var/lib/bootpack/pack $BP_TMPDIR/pack" "$1" >/dev/null 2>&1
	[ "$(head -c 8 "$BP_TMPDIR/pack")" = BOOTPACK ]
}

# 1. BOOTPACK=y in conf.d/bootpack: the initramfs reads, the package's link is removed.
a=$BP_TMPDIR/a.img
img_with "$a" initramfs-tools "write $yes /etc/initramfs-tools/conf.d/bootpack"
bp_expect_exit 0 "$BOOTPACK" image --no-undo --json --trace "$t" "$a"
bp_grep '"reader": "initramfs",' "$BP_TMPDIR/out"
bp_grep '"reader_why": "BOOTPACK=y in /etc/initramfs-tools/conf.d/bootpack",' "$BP_TMPDIR/out"
bp_grep '"initramfs_tool": "initramfs-tools",' "$BP_TMPDIR/out"
bp_grep "\"unit_disabled\": \"$link\"," "$BP_TMPDIR/out"
bp_grep '"unit": "",' "$BP_TMPDIR/out"
has_link "$a" && bp_fail "BOOTPACK=y: $link is still in the image (the pack would be read twice)"
has_pack "$a" || bp_fail "BOOTPACK=y: no pack in the image"
rl_fsck_silent "$a"
# --reader initramfs on it: the same, in text
a2=$BP_TMPDIR/a2.img
img_with "$a2" initramfs-tools "write $yes /etc/initramfs-tools/conf.d/bootpack"
bp_expect_exit 0 "$BOOTPACK" image --no-undo --reader initramfs --trace "$t" "$a2"
bp_grep "^reader: in the image's initramfs \\(BOOTPACK=y in /etc/initramfs-tools/conf.d/bootpack\\), not bootpack-read.service\$" \
	"$BP_TMPDIR/out"
bp_grep "^disabled: $link " "$BP_TMPDIR/out"
has_link "$a2" && bp_fail "--reader initramfs: $link is still in the image"

# 2. No BOOTPACK= line: the unit, as before.
b=$BP_TMPDIR/b.img
img_with "$b" initramfs-tools "rm $link"
has_link "$b" && bp_fail "fixture: the link is still there"
bp_expect_exit 0 "$BOOTPACK" image --no-undo --json --trace "$t" "$b"
bp_grep '"reader": "service",' "$BP_TMPDIR/out"
bp_grep "\"unit_link\": \"$link\"," "$BP_TMPDIR/out"
has_link "$b" || bp_fail "no BOOTPACK=y: the unit is not enabled"
has_pack "$b" || bp_fail "no BOOTPACK=y: no pack in the image"
rl_fsck_silent "$b"

# 3. The builder's own BOOTPACK=n in a later file wins, as in the hook.
c=$BP_TMPDIR/c.img
img_with "$c" initramfs-tools "write $yes /etc/initramfs-tools/conf.d/bootpack" \
	"write $no /etc/initramfs-tools/conf.d/zz-local"
bp_expect_exit 0 "$BOOTPACK" image --no-undo --json --trace "$t" "$c"
bp_grep '"reader": "service",' "$BP_TMPDIR/out"
bp_grep '"reader_why": "BOOTPACK=n in /etc/initramfs-tools/conf.d/zz-local",' "$BP_TMPDIR/out"
has_link "$c" || bp_fail "a later BOOTPACK=n: the unit is not enabled"

# 4. BOOTPACK=y but bootpack's init-bottom script not in the image: the unit.
d=$BP_TMPDIR/d.img
img_with "$d" initramfs-tools "write $yes /etc/initramfs-tools/conf.d/bootpack" \
	"rm /usr/share/initramfs-tools/scripts/init-bottom/bootpack"
bp_expect_exit 0 "$BOOTPACK" image --no-undo --json --trace "$t" "$d"
bp_grep '"reader": "service",' "$BP_TMPDIR/out"
bp_grep '"initramfs_tool": "",' "$BP_TMPDIR/out"
has_link "$d" || bp_fail "no init-bottom script: the unit is not enabled"

# 5. dracut: bootpack.conf adds the module.
e=$BP_TMPDIR/e.img
img_with "$e" dracut "write $dracut_add /etc/dracut.conf.d/bootpack.conf"
bp_expect_exit 0 "$BOOTPACK" image --no-undo --json --trace "$t" "$e"
bp_grep '"reader": "initramfs",' "$BP_TMPDIR/out"
bp_grep '"initramfs_tool": "dracut",' "$BP_TMPDIR/out"
has_link "$e" && bp_fail "dracut adds bootpack: $link is still in the image"

# 6. Refusals: nothing written, the image byte for byte the same, no undo file.
f=$BP_TMPDIR/f.img
img_with "$f" initramfs-tools
s0=$(rl_sum "$f")
bp_expect_exit 4 "$BOOTPACK" image --reader initramfs --trace "$t" "$f"
bp_grep "$f: --reader initramfs, but the image's initramfs does not read the pack \\(no BOOTPACK= in /etc/initramfs-tools/initramfs.conf or conf.d/\\): write BOOTPACK=y into /etc/initramfs-tools/conf.d/bootpack in the image before its initramfs is built" \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$f")" = "$s0" ] || bp_fail "--reader initramfs refused, but the image changed"
ls "$f".bootpack-undo* >/dev/null 2>&1 && bp_fail "a refused run wrote an undo file"
g=$BP_TMPDIR/g.img
img_with "$g" initramfs-tools "write $yes /etc/initramfs-tools/conf.d/bootpack"
s0=$(rl_sum "$g")
bp_expect_exit 4 "$BOOTPACK" image --reader service --trace "$t" "$g"
bp_grep "$g: --reader service, but the image's initramfs reads the pack \\(BOOTPACK=y in /etc/initramfs-tools/conf.d/bootpack\\) and the pack would be read twice" \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$g")" = "$s0" ] || bp_fail "--reader service refused, but the image changed"
# no initramfs tool at all
h=$BP_TMPDIR/h.img
cp "$base" "$h"
s0=$(rl_sum "$h")
bp_expect_exit 4 "$BOOTPACK" image --reader initramfs --trace "$t" "$h"
bp_grep "neither initramfs-tools nor dracut with bootpack's reader hook in the image" \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$h")" = "$s0" ] || bp_fail "--reader initramfs refused, but the image changed"
bp_expect_exit 2 "$BOOTPACK" image --reader elsewhere --trace "$t" "$h"
bp_grep "--reader 'elsewhere': expected initramfs, service or auto" "$BP_TMPDIR/err"
exit 0
