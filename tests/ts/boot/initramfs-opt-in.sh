#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One rule for both initramfs generators: bootpack adds nothing to an
# initramfs until asked (bootpack-read(8)). initramfs-tools: the hook copies
# the reader only when an initramfs-tools configuration file says BOOTPACK=y
# (the last BOOTPACK= line of initramfs.conf and conf.d/* wins); dracut: the
# module's check() returns 255, "only when asked for" (add_dracutmodules).
# The hook runs as mkinitramfs runs it (DESTDIR, CONFDIR), with a stand-in
# for initramfs-tools' hook-functions (copy_exec), so the case needs neither
# initramfs-tools nor a kernel.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

T=$BP_TMPDIR
mkdir -p "$T/etc" "$T/conf/conf.d"
echo "#pack = /x" >"$T/etc/bootpack.conf"
cat >"$T/hook-functions" <<'SH'
copy_exec() { mkdir -p "${DESTDIR}$2" && cp "$1" "${DESTDIR}$2/"; }
SH
sed -e "s|@sbindir@|$top_builddir|g" -e "s|@sysconfdir@|$T/etc|g" \
	-e "s|@bpstatedir@|$T/state|g" -e "s|@pkgdatadir@|$T/share|g" \
	-e "s|/usr/share/initramfs-tools/hook-functions|$T/hook-functions|" \
	"$top_srcdir/boot/initramfs-tools/hooks/bootpack.in" >"$T/hook"
grep -q '@[a-z]*@' "$T/hook" && bp_fail "the hook names a path this case does not substitute"
grep -q "^\. $T/hook-functions$" "$T/hook" || bp_fail "the hook does not source hook-functions"

# run_hook: 0 if the hook put the reader (and the config) into a fresh DESTDIR.
run_hook() {
	rm -rf "$T/dest"
	mkdir "$T/dest"
	DESTDIR=$T/dest CONFDIR=$T/conf sh "$T/hook" || bp_fail "the hook failed"
	if [ -x "$T/dest/sbin/bootpack-read" ]; then
		# at the configured path, where the reader looks for it
		cmp -s "$T/dest$T/etc/bootpack.conf" "$T/etc/bootpack.conf" ||
			bp_fail "the reader went in without SYSCONFDIR/bootpack.conf"
		return 0
	fi
	[ -e "$T/state/loop" ] || [ -z "$(ls -A "$T/dest")" ] ||
		bp_fail "opted out, yet the hook wrote: $(ls -R "$T/dest")"
	return 1
}

sh "$T/hook" prereqs >/dev/null || bp_fail "hook prereqs failed"
! run_hook || bp_fail "nothing configured: the hook added the reader"
echo "MODULES=most" >"$T/conf/initramfs.conf"
! run_hook || bp_fail "no BOOTPACK line: the hook added the reader"
echo "BOOTPACK=y" >"$T/conf/conf.d/bootpack"
run_hook || bp_fail "BOOTPACK=y in conf.d/bootpack: the reader was not added"
echo 'BOOTPACK="no"  # off again' >"$T/conf/conf.d/zz-local"
! run_hook || bp_fail "a later BOOTPACK=no did not win"
rm "$T/conf/conf.d/zz-local" "$T/conf/conf.d/bootpack"
echo 'BOOTPACK="yes"' >>"$T/conf/initramfs.conf"
run_hook || bp_fail "BOOTPACK=\"yes\" in initramfs.conf: the reader was not added"
echo "BOOTPACK=n" >>"$T/conf/initramfs.conf"
! run_hook || bp_fail "the last line of initramfs.conf did not win"

# Once 'bootpack setup' ran (STATEDIR/loop), the hook adds what boot 2's
# relayout needs, whether or not the reader is wanted (setup asked for it).
mkdir -p "$T/state" "$T/share"
touch "$T/state/loop"
echo "#!/bin/sh" >"$T/share/relayout-root.sh"
! run_hook 2>/dev/null || bp_fail "setup ran, BOOTPACK=n: the reader was added"
[ -x "$T/dest/sbin/bootpack" ] && [ -x "$T/dest/bin/bootpack-relayout-root" ] ||
	bp_fail "setup ran: bootpack and the relayout script are not in the initramfs"
rm "$T/state/loop"

# dracut: check() says "only when asked for" (255), and 1 without the reader.
mod=$top_builddir/boot/dracut/90bootpack/module-setup.sh
[ -f "$mod" ] || bp_fail "no $mod"
rc=0
bash -c 'require_binaries() { return 0; }; . "$1"; check' sh "$mod" || rc=$?
[ "$rc" = 255 ] || bp_fail "dracut check() returned $rc, expected 255 (opt-in)"
rc=0
bash -c 'require_binaries() { return 1; }; . "$1"; check' sh "$mod" || rc=$?
[ "$rc" = 1 ] || bp_fail "dracut check() without the reader returned $rc, expected 1"

# dracut, once 'bootpack setup' ran: the module comes in by itself (check()
# 0) with the relayout's pieces, and the reader only if asked for as well.
sed -e "s|@sbindir@|$top_builddir|g" -e "s|@sysconfdir@|$T/etc|g" \
	-e "s|@bpstatedir@|$T/state|g" -e "s|@pkgdatadir@|$T/share|g" \
	"$top_srcdir/boot/dracut/90bootpack/module-setup.sh.in" >"$T/module-setup.sh"
grep -q '@[a-z]*@' "$T/module-setup.sh" && bp_fail "the module names a path this case does not substitute"
# dracut_install ADD: what install() asks dracut for, one line per call
dracut_install() {
	bash -c 'inst_binary() { echo "binary $2"; }; inst_simple() { echo "simple ${2:-$1}"; }
		inst_hook() { echo "hook $1"; }; inst_multiple() { echo "multiple $*"; }
		add_dracutmodules=$2; . "$1"; install' sh "$T/module-setup.sh" "$1"
}
rc=0
bash -c 'require_binaries() { return 0; }; . "$1"; check' sh "$T/module-setup.sh" || rc=$?
[ "$rc" = 255 ] || bp_fail "dracut check() before setup returned $rc, expected 255"
mkdir -p "$T/state" "$T/share"
touch "$T/state/loop"
rc=0
bash -c 'require_binaries() { return 1; }; . "$1"; check' sh "$T/module-setup.sh" || rc=$?
[ "$rc" = 0 ] || bp_fail "dracut check() after setup returned $rc, expected 0 (the loop needs it)"
dracut_install "" >"$T/inst"
grep -q '^hook pre-mount$' "$T/inst" && grep -q '^binary /sbin/bootpack$' "$T/inst" ||
	bp_fail "setup ran: the relayout is not in the dracut initramfs: $(cat "$T/inst")"
! grep -q 'pre-pivot\|bootpack-read' "$T/inst" || bp_fail "setup ran, not asked for: the reader was added"
# every tool the relayout script runs is in the dracut initramfs (a
# systemd-based dracut initramfs has no busybox: no cut, grep, tail)
tools=$(sed -n 's/^TOOLS="\(.*\)"$/\1/p' "$top_srcdir/boot/relayout-root.sh.in")
[ -n "$tools" ] || bp_fail "no TOOLS line in relayout-root.sh.in"
for t in $tools; do
	grep -q "^multiple .*\b$t\b" "$T/inst" || bp_fail "relayout-root.sh runs $t; the dracut module does not install it"
done
dracut_install " foo bootpack " >"$T/inst"
grep -q '^hook pre-pivot$' "$T/inst" && grep -q '^binary /sbin/bootpack-read$' "$T/inst" &&
	grep -q '^hook pre-mount$' "$T/inst" || bp_fail "asked for and set up: $(cat "$T/inst")"
rm "$T/state/loop"
dracut_install " bootpack " >"$T/inst"
grep -q '^hook pre-pivot$' "$T/inst" && ! grep -q 'pre-mount' "$T/inst" ||
	bp_fail "asked for, no setup: $(cat "$T/inst")"

# The documented switches are the ones the scripts read.
grep -q 'BOOTPACK=y > /etc/initramfs-tools/conf.d/bootpack' "$top_builddir/man/bootpack-read.8" ||
	bp_fail "bootpack-read(8) does not give the initramfs-tools switch"
grep -q "add_dracutmodules+=" "$top_builddir/man/bootpack-read.8" ||
	bp_fail "bootpack-read(8) does not give the dracut switch"
