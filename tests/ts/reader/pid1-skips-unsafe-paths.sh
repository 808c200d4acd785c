#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A pack of eight files on a loop-mounted fixture; after packing, the files
# are changed into what the reader must never read: a FIFO, a device node, a
# symbolic link, a directory replaced by a symbolic link to /, a file under
# a mount point (another filesystem), a changed file (stale), a removed one.
# As PID 1 (PID namespace, stand-in init) and as --no-exec the reader reads
# the one good file, skips the others with the right reason, never blocks.
# Then once more on a "kernel without openat2" (bp-no-openat2: a seccomp
# filter makes openat2(2) fail with ENOSYS, as before Linux 5.6), so the
# reader's openat(2) fallback runs: there RESOLVE_NO_XDEV does not stop the
# file under the tmpfs mount, only the reader's st_dev check does (with that
# check removed this part fails), and the directory turned into a symbolic
# link to / is followed to the host's /inner, which is missing (4 unsafe,
# 2 missing instead of 5 and 1).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd unshare timeout debugfs losetup
"${RD_UNSHARE[@]}" true 2>/dev/null || bp_skip "cannot create PID namespaces"

img=$(bp_fixture ext4)
head -c 8192 /dev/urandom >"$BP_TMPDIR/f"
names=(good fifo dev link dir/inner xdev/inner stale gone)
{
	echo "mkdir /rd"; echo "mkdir /rd/dir"; echo "mkdir /rd/xdev"
	for n in "${names[@]}"; do echo "write $BP_TMPDIR/f /rd/$n"; done
} | debugfs -w "$img" >/dev/null 2>&1
bp_fsck_clean "$img"
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" "${names[@]/#//rd/}"

bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt"
m=$BP_TMPDIR/mnt/rd
rm "$m/fifo" && mkfifo "$m/fifo"
rm "$m/dev" && mknod "$m/dev" c 1 3
rm "$m/link" && ln -s ../rd/good "$m/link"
rm -r "$m/dir" && ln -s / "$m/dir"
mount -t tmpfs -o size=1m none "$m/xdev" && bp_on_exit "umount -l '$m/xdev'"
cp -p "$BP_TMPDIR/f" "$m/xdev/inner"
echo x >>"$m/stale"
rm "$m/gone"
sync
want='^bootpack-read: 8192 bytes \(0 metadata\), 1 files, 7 skipped \(1 stale, 5 unsafe, 1 missing\), 0 cut, 0 errors, [0-9]+ ms \([0-9]+ ms CPU\)$'
# BP_READER_NO_OPENAT2=1: $READER runs where openat2(2) is ENOSYS all the
# time (qemu-user 7.2: make check-arm64), so it takes the fallback below here too.
[ "${BP_READER_NO_OPENAT2:-}" = 1 ] && [ ! -e /inner ] && want=${want/5 unsafe, 1 missing/4 unsafe, 2 missing}

rd_cold "$loop"
rd_pid1 "$BP_TMPDIR/mark" --pack "$pack" --root "$BP_TMPDIR/mnt" --no-meta
cat "$BP_TMPDIR/pid1.log"
bp_grep "$want" "$BP_TMPDIR/pid1.log"
[ "$("$RD_HELPERS/bp-mincore" -m "$m/good" 0 8192)" = 0 ] || bp_fail "good file not resident"

rd_cold "$loop"
bp_expect_exit 0 timeout 30 "$READER" --no-exec --log=stderr --config=none --pack "$pack" \
	--root "$BP_TMPDIR/mnt" --no-meta
bp_grep "$want" "$BP_TMPDIR/err"
[ "$("$RD_HELPERS/bp-mincore" -m "$m/good" 0 8192)" = 0 ] || bp_fail "good file not resident"

# The openat(2) fallback (no openat2): the same files, the same verdicts but
# for dir/inner (missing: the link to / is followed, /inner does not exist).
unsafe=4 missing=2
[ -e /inner ] && unsafe=5 missing=1	# then found, on another filesystem
rc=0
"$RD_HELPERS/bp-no-openat2" true >"$BP_TMPDIR/noat2" 2>&1 || rc=$?
[ $rc -ne 77 ] || bp_skip "$(sed -n 's/^SKIP: //p' "$BP_TMPDIR/noat2")"
[ $rc -eq 0 ] || { cat "$BP_TMPDIR/noat2"; bp_fail "bp-no-openat2 exited $rc"; }
rd_cold "$loop"
bp_expect_exit 0 timeout 30 "$RD_HELPERS/bp-no-openat2" "$READER" --no-exec --log=stderr \
	--config=none --pack "$pack" --root "$BP_TMPDIR/mnt" --no-meta
cat "$BP_TMPDIR/err"
bp_grep "^bootpack-read: 8192 bytes \\(0 metadata\\), 1 files, 7 skipped \\(1 stale, $unsafe unsafe, $missing missing\\), 0 cut, 0 errors, [0-9]+ ms \\([0-9]+ ms CPU\\)\$" \
	"$BP_TMPDIR/err"
[ "$("$RD_HELPERS/bp-mincore" -m "$m/good" 0 8192)" = 0 ] || bp_fail "good file not resident (openat fallback)"
