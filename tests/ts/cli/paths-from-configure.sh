#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every installation path comes from configure: bootpack and bootpack-read
# name exactly this build's --sysconfdir, --with-statedir and --sbindir
# (help texts, 'trace --setup', which prints the units make renders), and
# no other copy of the default paths is compiled in. Run it on a build
# configured with other directories to see them followed, e.g.
#   mkdir /tmp/b && cd /tmp/b && $srcdir/configure --sysconfdir=/opt/x/etc \
#     --with-statedir=/opt/x/state && tests/run.sh --builddir /tmp/b paths-from
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd strings

# var NAME: the fully expanded make variable of this build.
var() { printf 'include Makefile\n_bp_show:\n\t@echo $(%s)\n' "$1" |
	MAKEFLAGS='' MAKELEVEL='' make --no-print-directory -C "$top_builddir" -s -f - _bp_show; }
etc=$(var sysconfdir)
state=$(var bpstatedir)
sbin=$(var sbindir)
[ -n "$etc" ] && [ -n "$state" ] && [ -n "$sbin" ] || bp_fail "cannot read the configured paths"
bp_info "sysconfdir $etc, statedir $state, sbindir $sbin"
READER=$top_builddir/bootpack-read

bp_expect_exit 0 "$READER" --help
bp_grep "the pack \[$state/pack\]" "$BP_TMPDIR/out"
bp_grep "settings file \[$etc/bootpack.conf\]" "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" pack --help
bp_grep "write the pack here \[$state/pack\]" "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" relayout --help
bp_grep "default under $state\)" "$BP_TMPDIR/out"
bp_grep "$state/pack if it is of this filesystem" "$BP_TMPDIR/out"

# trace --setup prints the units make rendered from the .in files.
bp_expect_exit 0 "$BOOTPACK" trace --setup --device /
bp_grep "^ExecStart=$sbin/bootpack trace --from-boot -o $state/trace --device /\$" "$BP_TMPDIR/out"
for u in bootpack-trace-stop.service bootpack-trace-stop.timer; do
	awk -v u="$u" '$0 ~ "^# .*/" u "$" { on = 1; next } on && /^# (Then|\/)/ { on = 0 }
		       on' "$BP_TMPDIR/out" | sed '${/^$/d}' >"$BP_TMPDIR/$u"
	diff -u "$top_builddir/trace/$u" "$BP_TMPDIR/$u" || bp_fail "--setup does not print trace/$u"
done

# The man pages name the configured settings file (rendered from .in).
for m in bootpack.conf.5 bootpack-read.8; do
	bp_grep "$etc/bootpack\.conf" "$top_builddir/man/$m"
	if [ "$etc" != /etc ] && grep -qE '(^|[[:space:](])/etc/bootpack\.conf' "$top_builddir/man/$m"; then
		bp_fail "man/$m names /etc/bootpack.conf, sysconfdir is $etc"
	fi
done

# The default paths are not compiled in anywhere else.
for bin in "$BOOTPACK" "$READER"; do
	if [ "$etc" != /etc ] && strings "$bin" | grep -q '^/etc/bootpack.conf$'; then
		bp_fail "$bin has /etc/bootpack.conf built in, sysconfdir is $etc"
	fi
	if [ "$state" != /var/lib/bootpack ] && strings "$bin" | grep -q '/var/lib/bootpack'; then
		bp_fail "$bin has /var/lib/bootpack built in, statedir is $state"
	fi
done
exit 0
