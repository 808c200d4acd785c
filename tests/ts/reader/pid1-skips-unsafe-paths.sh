#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A pack of eight files on a loop-mounted fixture; after packing, the files
# are changed into what the reader must never read: a FIFO, a device node, a
# symbolic link, a directory replaced by a symbolic link to /, a file under
# a mount point (another filesystem), a changed file (stale), a removed one.
# As PID 1 (PID namespace, stand-in init) and as --no-exec the reader reads
# the one good file, skips the others with the right reason, never blocks.
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
rd_make_pack "$img" "$pack" $(printf '/rd/%s ' "${names[@]}")

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
want='^bootpack-read: 8192 bytes \(0 metadata\), 1 files, 7 skipped \(1 stale, 5 unsafe, 1 missing\), 0 cut, 0 errors, [0-9]+ ms$'

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
