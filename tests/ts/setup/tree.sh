# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# tree.sh --- sourced by the setup cases: a system tree on an ext4 image of
# its own, loop-mounted at $ROOT, with bootpack installed (make install
# DESTDIR) and the pieces setup looks for (systemd, initramfs-tools, a kernel
# config with tracing). Never this machine's own /.
#   mk_tree [mke2fs options...]
#   tree_install (into a $ROOT mounted otherwise)
bp_require_root
bp_require_cmd mke2fs losetup debugfs

mk_tree() {
	local img=$BP_TMPDIR/root.img
	truncate -s "${TREE_SIZE:-400M}" "$img"
	mke2fs -q -F -t ext4 "$@" "$img"
	bp_loop_attach "$img" TREE_DEV
	ROOT=$BP_TMPDIR/root
	bp_mount "$TREE_DEV" "$ROOT"
	tree_install
}

# tree_install: bootpack and the pieces setup looks for, into the tree at $ROOT
tree_install() {
	# the hooks where the tools look, as a distribution's package puts them
	# (a build configured elsewhere, e.g. by make distcheck, would not)
	make -s -C "$top_builddir" install DESTDIR="$ROOT" \
		initramfstoolsdir=/usr/share/initramfs-tools \
		dracutmoduledir=/usr/lib/dracut/modules.d >"$BP_TMPDIR/install.log" 2>&1 ||
		{ cat "$BP_TMPDIR/install.log"; bp_fail "make install DESTDIR"; }
	mkdir -p "$ROOT/lib/systemd" "$ROOT/usr/sbin" "$ROOT/boot" "$ROOT/etc/default"
	printf '#!/bin/sh\n' >"$ROOT/lib/systemd/systemd"
	printf '#!/bin/sh\n' >"$ROOT/usr/sbin/update-initramfs"
	chmod 755 "$ROOT/lib/systemd/systemd" "$ROOT/usr/sbin/update-initramfs"
	printf 'CONFIG_FTRACE=y\nCONFIG_EVENT_TRACING=y\n' >"$ROOT/boot/config-6.1.0-test"
}

# listing ROOT FILE: every path with its type and contents' hash, for "nothing
# written" and "all of it removed"
listing() {
	(cd "$1" && find . -xdev \( -path ./lost+found -prune \) -o -printf '%y %p %l\n' | sort) >"$2"
	(cd "$1" && find . -xdev -type f -print0 | sort -z | xargs -0r sha256sum) >>"$2"
}
