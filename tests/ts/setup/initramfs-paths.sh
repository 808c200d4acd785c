#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 23, case 6: initramfs-tools and dracut look for hooks in their own
# directories (/usr/share/initramfs-tools or /etc/initramfs-tools,
# /usr/lib/dracut/modules.d), whatever bootpack's prefix. A build with
# configure's defaults (prefix /usr/local) installs them there; setup checks
# there and refuses hooks anywhere else (exit 1), writing nothing. (The old
# build put them under /usr/local/share and /usr/local/lib, and setup
# checked the same wrong paths and passed.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

# the install, when this build took configure's defaults for the two directories
if ! (cd "$top_builddir" && ./config.status --config) | grep -qE 'with-(initramfstoolsdir|dracutmoduledir)'; then
	d=$BP_TMPDIR/inst
	make -s -C "$top_builddir" install DESTDIR="$d" >"$BP_TMPDIR/install.log" 2>&1 ||
		{ cat "$BP_TMPDIR/install.log"; bp_fail "make install DESTDIR"; }
	for f in /usr/share/initramfs-tools/hooks/bootpack \
		/usr/share/initramfs-tools/scripts/local-premount/bootpack \
		/usr/share/initramfs-tools/scripts/init-bottom/bootpack \
		/usr/lib/dracut/modules.d/90bootpack/module-setup.sh \
		/usr/lib/dracut/modules.d/90bootpack/bootpack-relayout.sh; do
		[ -x "$d$f" ] || bp_fail "$f not installed (under: $(cd "$d" && find . -name bootpack -path '*initramfs*' -o -name module-setup.sh | tr '\n' ' '))"
	done
	[ -z "$(cd "$d" && find . -path '*/local/*' \( -path '*initramfs-tools*' -o -path '*dracut*' \))" ] ||
		bp_fail "hooks installed under a local prefix"
else
	bp_info "configured with explicit hook directories: the install is not checked"
fi

# a tree whose hooks lie where neither tool looks: refused
mk_tree
mkdir -p "$ROOT/usr/local/share" "$ROOT/usr/local/lib"
mv "$ROOT/usr/share/initramfs-tools" "$ROOT/usr/local/share/"
mkdir -p "$ROOT/usr/bin"
printf '#!/bin/sh\n' >"$ROOT/usr/bin/dracut"
chmod 755 "$ROOT/usr/bin/dracut"
mv "$ROOT/usr/lib/dracut" "$ROOT/usr/local/lib/"
listing "$ROOT" "$BP_TMPDIR/before"
bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT"
bp_grep "neither initramfs-tools nor dracut with bootpack's relayout hook where they look" "$BP_TMPDIR/err"
listing "$ROOT" "$BP_TMPDIR/now"
diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "the refusal wrote to the tree"
# where they look: accepted (dracut's, then initramfs-tools' in /etc)
mv "$ROOT/usr/local/lib/dracut" "$ROOT/usr/lib/"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep '^Initramfs: dracut' "$BP_TMPDIR/out"
rm -r "$ROOT/usr/lib/dracut" "$ROOT/usr/bin/dracut"
mkdir -p "$ROOT/etc"
mv "$ROOT/usr/local/share/initramfs-tools" "$ROOT/etc/"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep '^Initramfs: initramfs-tools' "$BP_TMPDIR/out"
exit 0
