#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack-read as PID 1 of a PID namespace (unshare --pid --fork) with a
# stand-in init: init is exec'd as PID 1, with its arguments, whatever the
# pack — none, empty, truncated, bad CRC, huge counts, a ".." path, a FIFO
# as the pack, a symbolic link, owned by a non-root user, group-writable —
# and the reading child ends (never hangs). bootpack.init= and bootpack=off
# are taken from the kernel command line (a file bound over /proc/cmdline).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd unshare timeout debugfs
"${RD_UNSHARE[@]}" true 2>/dev/null || bp_skip "cannot create PID namespaces"

img=$(bp_fixture ext4)
good=$BP_TMPDIR/good.pack
rd_make_pack "$img" "$good" /etc/passwd /etc/hostname
mut=$RD_HELPERS/bp-pack-mutate
mark=$BP_TMPDIR/mark
size=$(stat -c %s "$good")

# A pack that is read, then every bad one: init runs each time.
rd_pid1 "$mark" --pack "$good" --root / -- single extra
bp_grep '^args:single extra$' "$mark"
# (the fixture's files are not on / : their entries are skipped, never read)
bp_grep 'the pack is for another filesystem|skipped' "$BP_TMPDIR/pid1.log"

check_bad() {	# NAME PACK PATTERN
	rd_pid1 "$mark" --pack "$2"
	bp_grep "$3" "$BP_TMPDIR/pid1.log"
	bp_info "$1: init ran as PID 1; $(tail -n 1 "$BP_TMPDIR/pid1.log")"
}
check_bad "no pack" "$BP_TMPDIR/none" 'no such file'
: >"$BP_TMPDIR/empty"
check_bad "empty pack" "$BP_TMPDIR/empty" 'empty file'
"$mut" "$good" "$BP_TMPDIR/trunc" truncate $((size - 7))
check_bad "truncated" "$BP_TMPDIR/trunc" 'truncated body'
"$mut" "$good" "$BP_TMPDIR/hdrtrunc" truncate 100
check_bad "truncated header" "$BP_TMPDIR/hdrtrunc" 'truncated header'
"$mut" "$good" "$BP_TMPDIR/crc" replace /etc/passwd /etc/pAsswd
check_bad "bad body CRC" "$BP_TMPDIR/crc" 'body CRC mismatch'
"$mut" "$good" "$BP_TMPDIR/hcrc" le64 80 12345
check_bad "bad header CRC" "$BP_TMPDIR/hcrc" 'header CRC mismatch'
"$mut" "$good" "$BP_TMPDIR/huge" le32 116 4294967295 fixcrc
check_bad "huge entry count" "$BP_TMPDIR/huge" 'too many records'
"$mut" "$good" "$BP_TMPDIR/huge2" le32 116 1000000 le64 104 72000000 fixcrc
check_bad "large count, small body" "$BP_TMPDIR/huge2" 'do not match the body size'
"$mut" "$good" "$BP_TMPDIR/dotdot" replace /etc/passwd /etc/../swd fixcrc
check_bad "path with .." "$BP_TMPDIR/dotdot" 'invalid path'
mkfifo "$BP_TMPDIR/fifo"
check_bad "FIFO as the pack" "$BP_TMPDIR/fifo" 'not a regular file'
ln -s "$good" "$BP_TMPDIR/link"
check_bad "symbolic link" "$BP_TMPDIR/link" 'symbolic link'
cp "$good" "$BP_TMPDIR/nobody"
chown 65534:65534 "$BP_TMPDIR/nobody"
check_bad "owned by nobody" "$BP_TMPDIR/nobody" 'not owned by root.*chown root'
cp "$good" "$BP_TMPDIR/gw"
chmod 0664 "$BP_TMPDIR/gw"
check_bad "group-writable" "$BP_TMPDIR/gw" 'writable by group or others'

# bootpack.init= on the kernel command line wins over --init; bootpack=off
# execs init without forking a reader.
rd_standin "$BP_TMPDIR/other-init" "$BP_TMPDIR/mark2"
with_cmdline() {	# CMDLINE ARGS...
	local c=$1
	shift
	printf '%s\n' "$c" >"$BP_TMPDIR/cmdline"
	timeout 30 "${RD_UNSHARE[@]}" bash -c \
		'mount --bind "$0" /proc/cmdline && exec "$@"' "$BP_TMPDIR/cmdline" \
		"$READER" --log=stderr --config=none --init "$BP_TMPDIR/standin" "$@" \
		>/dev/null 2>"$BP_TMPDIR/pid1.log"
}
rm -f "$BP_TMPDIR/mark2"
with_cmdline "root=/dev/vda1 ro bootpack.init=$BP_TMPDIR/other-init quiet" --pack "$good"
[ "$(head -n 1 "$BP_TMPDIR/mark2")" = 1 ] || bp_fail "bootpack.init= was not exec'd as PID 1"
rd_standin "$BP_TMPDIR/standin" "$mark"
rm -f "$mark"
with_cmdline "root=/dev/vda1 bootpack=off" --pack "$good"
[ "$(head -n 1 "$mark")" = 1 ] || bp_fail "bootpack=off: init not exec'd as PID 1"
bp_grep 'bootpack=off: not reading' "$BP_TMPDIR/pid1.log"
if grep -q 'bytes.*files' "$BP_TMPDIR/pid1.log"; then bp_fail "bootpack=off still read"; fi


# An init that cannot be executed: the kernel's fallbacks follow, the first
# being /sbin/init (here a stand-in on a tmpfs over /sbin, in a private mount
# namespace; not where / is not a mount point: the tmpfs could not be kept
# from the system's mount namespace).
if ! mountpoint -q /; then
	bp_info "/ is not a mount point: the fallback init is not checked"
	exit 0
fi
rm -f "$mark"
timeout 30 unshare --pid --fork --mount-proc bash -c \
	'mount -t tmpfs -o size=1m none /sbin && cp "$0" /sbin/init && exec "$@"' "$BP_TMPDIR/standin" \
	"$READER" --log=stderr --config=none --init "$BP_TMPDIR/no-such-init" --pack "$good" \
	>/dev/null 2>"$BP_TMPDIR/pid1.log"
[ "$(head -n 1 "$mark")" = 1 ] || bp_fail "the fallback /sbin/init was not exec'd as PID 1"
bp_grep "cannot exec $BP_TMPDIR/no-such-init: No such file or directory; trying the default inits" \
	"$BP_TMPDIR/pid1.log"
