#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack setup --root on a tree: the units are enabled as systemd itself
# sees them (systemctl --root is-enabled, an oracle that does not share our
# code), the traced boot's kernel arguments are in the GRUB snippet and the
# cmdline file, the state says phase=trace; --undo removes every piece and
# leaves the tree as it was (but the state directory).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd systemctl

mk_tree
# systemctl --root knows systemd's own unit directories only; a build
# configured elsewhere (make distcheck: under its own prefix) installs the
# units where the oracle cannot see them.
for d in /etc /lib /usr/lib /usr/local/lib; do
	[ -e "$ROOT$d/systemd/system/bootpack-read.service" ] && break
done || true
[ -e "$ROOT$d/systemd/system/bootpack-read.service" ] ||
	bp_skip "units installed outside systemd's directories: systemctl --root cannot judge"
touch "$ROOT/etc/default/grub"	# a GRUB system: the snippet is written
# what a Debian system has (setup's --undo leaves directories it did not create)
mkdir -p "$ROOT/var/lib/bootpack" "$ROOT/etc/default/grub.d" "$ROOT/etc/dpkg/dpkg.cfg.d" \
	"$ROOT/etc/systemd/system" "$ROOT/etc/initramfs-tools/conf.d"
listing "$ROOT" "$BP_TMPDIR/before"

units="bootpack-trace-stop.timer bootpack-loop.service bootpack-loop-sample.timer bootpack-read.service"
for u in $units; do
	st=$(systemctl --root="$ROOT" is-enabled "$u" 2>&1 || true)
	[ "$st" = disabled ] || bp_fail "$u is '$st' before setup"
done

bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
bp_grep 'next boot \(1\): traced' "$BP_TMPDIR/out"
bp_grep 'chroot .* update-grub' "$BP_TMPDIR/out"
bp_grep 'chroot .* update-initramfs -u' "$BP_TMPDIR/out"
for u in $units; do
	st=$(systemctl --root="$ROOT" is-enabled "$u" 2>&1 || true)
	# the reader runs in the initramfs by default (reader-deployment.sh)
	want=enabled
	[ "$u" = bootpack-read.service ] && want=disabled
	[ "$st" = "$want" ] || bp_fail "$u is '$st' after setup"
done
state=$ROOT/var/lib/bootpack/loop
bp_grep '^phase=trace$' "$state"
uuid=$(blkid -p -s UUID -o value "$TREE_DEV")
bp_grep "^device=UUID=$uuid\$" "$state"
# boot/config-6.1.0-test: no page-access events (kernel-events.sh has 6.12)
bp_grep '^trace_event=filemap:mm_filemap_add_to_page_cache trace_buf_size=32768K$' \
	"$ROOT/var/lib/bootpack/cmdline"
bp_grep '^GRUB_CMDLINE_LINUX_DEFAULT="\$GRUB_CMDLINE_LINUX_DEFAULT trace_event=filemap:' \
	"$ROOT/etc/default/grub.d/bootpack.cfg"
# the snippet is valid shell that appends to what was there
# shellcheck source=/dev/null  # the snippet bootpack setup wrote in the tree
( GRUB_CMDLINE_LINUX_DEFAULT=quiet; . "$ROOT/etc/default/grub.d/bootpack.cfg"
  case $GRUB_CMDLINE_LINUX_DEFAULT in "quiet trace_event="*) ;; *) exit 1 ;; esac ) ||
	bp_fail "the GRUB snippet does not append to GRUB_CMDLINE_LINUX_DEFAULT"
bp_grep '^ExecStartPost=.*/bootpack setup --event traced$' \
	"$ROOT/etc/systemd/system/bootpack-trace-stop.service.d/bootpack-setup.conf"
bp_grep '^post-invoke=.*bootpack setup --event packages' "$ROOT/etc/dpkg/dpkg.cfg.d/bootpack"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Phase: +trace$' "$BP_TMPDIR/out"

bp_expect_exit 0 "$BOOTPACK" setup --undo --root "$ROOT"
for u in $units; do
	st=$(systemctl --root="$ROOT" is-enabled "$u" 2>&1 || true)
	[ "$st" = disabled ] || bp_fail "$u is '$st' after --undo"
done
listing "$ROOT" "$BP_TMPDIR/after"
diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/after" || bp_fail "--undo left the tree different"
bp_expect_exit 3 "$BOOTPACK" status --root "$ROOT"
exit 0
