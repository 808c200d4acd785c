#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# trace -- COMMAND without --device (issue 13: it picked the host's root disk
# and failed with an opaque "Operation not permitted"). Every process's reads
# count, so the device is picked only when exactly one was read from, and
# then said; when it cannot be opened, or several were read from, the error
# says to name the filesystem with --device. Nothing is written either way.
# The case runs in a mount namespace whose /dev is an empty tmpfs (/dev made
# private by hand: where / is not a mount point unshare cannot): the host's
# disks cannot be opened by it, whichever device is picked; the command is a
# static program on our own loop-mounted image. (On a busy machine, or with
# the loop device reading its image through the page cache, several devices
# are read from: the refusal branch.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs unshare
bp_tracefs >/dev/null

tr_image img
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro

rc=0
unshare -m --propagation unchanged \
	bash -c 'mount --make-rprivate /dev && mount -t tmpfs none /dev && exec "$@"' sh \
	"$BOOTPACK" trace -o "$BP_TMPDIR/t" -- "$BP_TMPDIR/mnt/usr/bin/bp-hello" \
	>"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err" || rc=$?
cat "$BP_TMPDIR/err"
[ "$rc" != 0 ] || bp_fail "trace without --device succeeded with no device node to open"
[ ! -e "$BP_TMPDIR/t" ] || bp_fail "a failed trace wrote its output"
if grep -q "pick one with --device" "$BP_TMPDIR/err"; then
	bp_info "several devices read from: refused ($rc)"
	[ "$rc" = 4 ] || bp_fail "several devices: exit $rc, expected 4"
	bp_grep "^bootpack trace: the trace read files from [0-9]+ block devices; pick one with --device \(a device, a mount point such as /, or the loop device of an image\):$" \
		"$BP_TMPDIR/err"
else
	bp_info "one device read from: picked, said, and the open failed ($rc)"
	bp_grep "^bootpack trace: warning: no --device given: tracing [^ ]+ \([0-9]+:[0-9]+\), the one block device files were read from while '.*bp-hello' ran$" \
		"$BP_TMPDIR/err"
	bp_grep "^bootpack trace: [^ ]+ was picked because no --device was given; name the filesystem to trace with --device" \
		"$BP_TMPDIR/err"
fi
tr_no_instance

# With --device: the same command is traced (the fix the hint names works);
# a fresh mount reads the program from the image again.
umount "$BP_TMPDIR/mnt"
mount -o ro "$loop" "$BP_TMPDIR/mnt"
"$BOOTPACK" trace -o "$BP_TMPDIR/t" --device "$loop" -- "$BP_TMPDIR/mnt/usr/bin/bp-hello" \
	>/dev/null 2>"$BP_TMPDIR/err" || { cat "$BP_TMPDIR/err"; bp_fail "trace --device $loop failed"; }
tr_files "$BP_TMPDIR/t" | grep -qx /usr/bin/bp-hello || bp_fail "bp-hello not in the trace"
tr_no_instance
