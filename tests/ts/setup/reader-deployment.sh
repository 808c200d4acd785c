#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 22: bootpack setup deploys the reader where it reads the most of the
# boot, the initramfs, by default: it writes the opt-in of the initramfs
# tool that is there (initramfs-tools conf.d/bootpack, BOOTPACK=y; dracut
# dracut.conf.d/bootpack.conf) and leaves bootpack-read.service disabled, so
# that the pack is never read twice. --reader service is the old deployment.
# A user's own choice (BOOTPACK=n, a conf.d/bootpack of theirs) is kept and
# the service used; --undo removes what setup wrote and nothing else; a
# failed setup takes the opt-in back. Oracles: the files of the tree, and
# initramfs-tools' view of them: the real hook, run as mkinitramfs runs it
# (CONFDIR), puts the reader into the initramfs or not.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

T=$BP_TMPDIR
mk_tree
mkdir -p "$ROOT/var/lib/bootpack" "$ROOT/etc/initramfs-tools/conf.d" "$ROOT/etc/dpkg/dpkg.cfg.d" \
	"$ROOT/etc/systemd/system"
conf=$ROOT/etc/initramfs-tools/conf.d/bootpack
link=$ROOT/etc/systemd/system/sysinit.target.wants/bootpack-read.service
other=$ROOT/etc/systemd/system/sysinit.target.wants/bootpack-misses.service
state=$ROOT/var/lib/bootpack/loop

# the hook of initramfs-tools, reading the tree's configuration
cat >"$T/hook-functions" <<'SH'
copy_exec() { mkdir -p "${DESTDIR}$2" && cp "$1" "${DESTDIR}$2/"; }
SH
sed -e "s|@sbindir@|$top_builddir|g" -e "s|@sysconfdir@|$T/etc|g" \
	-e "s|@bpstatedir@|$T/state|g" -e "s|@pkgdatadir@|$T/share|g" \
	-e "s|/usr/share/initramfs-tools/hook-functions|$T/hook-functions|" \
	"$top_srcdir/boot/initramfs-tools/hooks/bootpack.in" >"$T/hook"
# hook_adds_reader: 0 if mkinitramfs would put the reader into the initramfs
hook_adds_reader() {
	rm -rf "$T/dest"
	mkdir "$T/dest"
	DESTDIR=$T/dest CONFDIR=$ROOT/etc/initramfs-tools sh "$T/hook" || bp_fail "the hook failed"
	[ -x "$T/dest/sbin/bootpack-read" ]
}
undo_restores() {
	bp_expect_exit 0 "$BOOTPACK" setup --undo --root "$ROOT"
	listing "$ROOT" "$T/after"
	diff -u "$T/before" "$T/after" || bp_fail "$1: --undo left the tree different"
}

# 1. the default: the initramfs reader, the service not enabled
listing "$ROOT" "$T/before"
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep '^Reader: in the initramfs, before switch_root \(BOOTPACK=y in .*conf.d/bootpack \(written by bootpack setup\)\)$' "$T/out"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ -f "$conf" ] || bp_fail "setup wrote no $conf"
head -n 1 "$conf" | grep -q "^# Written by 'bootpack setup'" || bp_fail "$conf does not say who wrote it"
[ "$(grep -c '^BOOTPACK=' "$conf")" = 1 ] && grep -qx 'BOOTPACK=y' "$conf" ||
	bp_fail "$conf: $(cat "$conf")"
hook_adds_reader || bp_fail "after setup, the initramfs-tools hook leaves the reader out"
[ ! -e "$link" ] && [ ! -L "$link" ] || bp_fail "bootpack-read.service enabled beside the initramfs reader"
[ -L "$other" ] || bp_fail "the other units of the loop are not enabled"
bp_grep '^reader=initramfs$' "$state"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Reader: +in the initramfs' "$T/out"
undo_restores "the default"
[ ! -e "$conf" ] || bp_fail "--undo left $conf"
! hook_adds_reader || bp_fail "after --undo, the hook still adds the reader"

# 2. --reader service: the old deployment
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --reader service
[ ! -e "$conf" ] || bp_fail "--reader service wrote $conf"
[ -L "$link" ] && [ -f "$ROOT$(readlink "$link")" ] ||
	bp_fail "--reader service: bootpack-read.service not enabled"
! hook_adds_reader || bp_fail "--reader service: the hook adds the reader too"
bp_grep '^reader=service$' "$state"
# setup again, by default: the service is taken back, never both
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ ! -e "$link" ] && [ ! -L "$link" ] || bp_fail "a second setup left the service enabled"
hook_adds_reader || bp_fail "a second setup: the hook leaves the reader out"
# ... and again with --reader service: setup's opt-in is taken back
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --reader service
[ -L "$link" ] || bp_fail "a third setup, --reader service: the service is not enabled"
[ ! -e "$conf" ] || bp_fail "a third setup, --reader service: setup's $conf stays"
! hook_adds_reader || bp_fail "a third setup, --reader service: the hook adds the reader too"
undo_restores "--reader service, the default, --reader service"

# 3. the user's BOOTPACK=n in conf.d/bootpack: kept, the service is used
printf 'BOOTPACK=n\n' >"$conf"
listing "$ROOT" "$T/before"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ "$(cat "$conf")" = BOOTPACK=n ] || bp_fail "setup overwrote the user's $conf"
[ -L "$link" ] || bp_fail "the user said BOOTPACK=n: the service is not enabled"
! hook_adds_reader || bp_fail "the user said BOOTPACK=n, yet the hook adds the reader"
bp_grep "conf.d/bootpack says BOOTPACK=n: kept" "$T/out"
undo_restores "the user's BOOTPACK=n"
[ "$(cat "$conf")" = BOOTPACK=n ] || bp_fail "--undo removed the user's $conf"
rm "$conf"

# ... in a file read after it (its last BOOTPACK= wins): not overridden
printf 'MODULES=most\nBOOTPACK=n\n' >"$ROOT/etc/initramfs-tools/conf.d/zz-local"
listing "$ROOT" "$T/before"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ ! -e "$conf" ] || bp_fail "setup wrote $conf that zz-local's BOOTPACK=n overrides"
[ -L "$link" ] || bp_fail "zz-local says BOOTPACK=n: the service is not enabled"
undo_restores "zz-local's BOOTPACK=n"
# ... and in initramfs.conf, read before conf.d: setup's file wins
printf 'BOOTPACK=n\n' >"$ROOT/etc/initramfs-tools/conf.d/zz-local"
mv "$ROOT/etc/initramfs-tools/conf.d/zz-local" "$ROOT/etc/initramfs-tools/initramfs.conf"
listing "$ROOT" "$T/before"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
hook_adds_reader || bp_fail "initramfs.conf's BOOTPACK=n: setup's conf.d/bootpack does not win"
[ ! -L "$link" ] || bp_fail "initramfs reader and service both"
undo_restores "initramfs.conf's BOOTPACK=n"
rm "$ROOT/etc/initramfs-tools/initramfs.conf"

# the user's own opt-in (as bootpack-read(8) told them): used, kept by --undo
printf '# mine\nBOOTPACK=yes\n' >"$conf"
listing "$ROOT" "$T/before"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ "$(cat "$conf")" = "$(printf '# mine\nBOOTPACK=yes')" ] || bp_fail "setup rewrote the user's opt-in"
[ ! -L "$link" ] || bp_fail "the user's opt-in: the service is enabled too"
bp_grep '^reader=initramfs$' "$state"
undo_restores "the user's opt-in"
rm "$conf"

# 4. a failure half-way (the dpkg hook's name taken) takes the opt-in back
rmdir "$ROOT/etc/initramfs-tools/conf.d"
mkdir -p "$ROOT/etc/dpkg/dpkg.cfg.d/bootpack/x"
listing "$ROOT" "$T/before"
bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT"
[ ! -e "$conf" ] || bp_fail "the failed setup left $conf"
[ ! -e "$ROOT/etc/initramfs-tools/conf.d" ] || bp_fail "the failed setup left the conf.d it made"
listing "$ROOT" "$T/now"
diff -u "$T/before" "$T/now" || bp_fail "the failed setup left changes behind"
rm -r "$ROOT/etc/dpkg/dpkg.cfg.d/bootpack"
mkdir -p "$ROOT/etc/initramfs-tools/conf.d"

# 5. dracut only: its configuration, not initramfs-tools'
rm "$ROOT/usr/sbin/update-initramfs"
mkdir -p "$ROOT/usr/bin" "$ROOT/etc/dracut.conf.d"
printf '#!/bin/sh\n' >"$ROOT/usr/bin/dracut"
chmod 755 "$ROOT/usr/bin/dracut"
dconf=$ROOT/etc/dracut.conf.d/bootpack.conf
listing "$ROOT" "$T/before"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ ! -e "$conf" ] || bp_fail "dracut only: setup wrote $conf"
grep -qx 'add_dracutmodules+=" bootpack "' "$dconf" || bp_fail "dracut: $(cat "$dconf" 2>&1)"
# dracut's own reading of it: the module is in the list it adds (the file
# setup wrote in the fake root, sourced as dracut sources its conf.d)
# shellcheck source=/dev/null
( add_dracutmodules=''; . "$dconf"; case " $add_dracutmodules " in *" bootpack "*) ;; *) exit 1 ;; esac ) ||
	bp_fail "$dconf does not add the module bootpack"
[ ! -L "$link" ] || bp_fail "dracut: the service is enabled beside the initramfs reader"
undo_restores "dracut"
printf 'omit_dracutmodules+=" bootpack "\n' >"$ROOT/etc/dracut.conf.d/50-mine.conf"
listing "$ROOT" "$T/before"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ ! -e "$dconf" ] || bp_fail "dracut omits bootpack: setup wrote $dconf"
[ -L "$link" ] || bp_fail "dracut omits bootpack: the service is not enabled"
undo_restores "dracut omits bootpack"
exit 0
