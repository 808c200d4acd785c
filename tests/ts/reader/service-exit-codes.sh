#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack-read --no-exec: the documented exit codes and messages (0 read,
# 2 usage, 3 no pack or a corrupt or stale one, 4 refused, 1 failure), the
# settings file (bad lines skipped and named), --budget and --max-ms cut.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd debugfs losetup mke2fs

rd() { "$READER" --no-exec --log=stderr --config=none "$@"; }
bp_expect_exit 0 "$READER" --help
bp_grep '^Usage:' "$BP_TMPDIR/out"
bp_grep 'bootpack-read\(8\)' "$BP_TMPDIR/out"
bp_expect_exit 0 "$READER" --version
bp_grep '^bootpack-read from bootpack [0-9]' "$BP_TMPDIR/out"
bp_expect_exit 2 rd --bogus
bp_grep "Try 'bootpack-read --help'" "$BP_TMPDIR/err"
bp_expect_exit 2 rd --method=mmap
bp_grep "bad value 'mmap'" "$BP_TMPDIR/err"
bp_expect_exit 2 rd --max-ms=soon
bp_expect_exit 2 rd extra-arg
bp_expect_exit 3 rd --pack "$BP_TMPDIR/none"
bp_grep "none: no such file \(nothing to read; create it with 'bootpack pack'\)" "$BP_TMPDIR/err"

img=$(bp_fixture ext4)
files=(/etc/passwd /etc/hostname /etc/group /usr/bin/bash)
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" "${files[@]}"
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mnt=$BP_TMPDIR/mnt

bp_expect_exit 0 rd --pack "$pack" --root "$mnt"
bp_grep ' [1-9][0-9]* bytes .*, 4 files, 0 skipped' "$BP_TMPDIR/err"
for m in pread readahead fadvise; do
	bp_expect_exit 0 rd --pack "$pack" --root "$mnt" --method=$m --ioprio=idle --max-fds=1
	bp_grep ', 4 files, 0 skipped' "$BP_TMPDIR/err"
done
# The pack is for the fixture: another filesystem's root is refused as stale
# (an ext4 on a loop device: where FS_IOC_GETFSUUID is missing, before Linux
# 6.5 or under qemu-user, the reader reads the UUID from its superblock).
mke2fs -q -F -t ext4 "$BP_TMPDIR/other.img" 4M
bp_loop_attach "$BP_TMPDIR/other.img" oloop
bp_mount "$oloop" "$BP_TMPDIR/other" ro
bp_expect_exit 3 rd --pack "$pack" --root "$BP_TMPDIR/other"
bp_grep 'another filesystem \(UUID differs' "$BP_TMPDIR/err"
bp_expect_exit 1 rd --pack "$pack" --root "$BP_TMPDIR/nodir"
bp_grep 'nodir: cannot open the root directory' "$BP_TMPDIR/err"

# Budget: 1 byte admits nothing; --max-ms=0 means no limit.
bp_expect_exit 0 rd --pack "$pack" --root "$mnt" --budget=1
bp_grep '^bootpack-read: 0 bytes .*, 0 files, 0 skipped .*, [1-9][0-9]* cut' "$BP_TMPDIR/err"

# Refused packs: exit 4, named, with the fix.
cp "$pack" "$BP_TMPDIR/nobody" && chown 65534 "$BP_TMPDIR/nobody"
bp_expect_exit 4 rd --pack "$BP_TMPDIR/nobody" --root "$mnt"
bp_grep 'nobody: not owned by root \(fix: chown root:root and chmod go-w the pack\)' "$BP_TMPDIR/err"
cp "$pack" "$BP_TMPDIR/ww" && chmod 0646 "$BP_TMPDIR/ww"
bp_expect_exit 4 rd --pack "$BP_TMPDIR/ww" --root "$mnt"
mkfifo "$BP_TMPDIR/fifo"
bp_expect_exit 4 timeout 10 "$READER" --no-exec --log=stderr --config=none --pack "$BP_TMPDIR/fifo"
bp_grep 'fifo: not a regular file' "$BP_TMPDIR/err"
"$RD_HELPERS/bp-pack-mutate" "$pack" "$BP_TMPDIR/bad" le32 0 0
bp_expect_exit 3 rd --pack "$BP_TMPDIR/bad" --root "$mnt"
bp_grep 'bad magic.*write a new one' "$BP_TMPDIR/err"

# The settings file: values apply, command line wins, a bad line is named.
cat >"$BP_TMPDIR/conf" <<-END
	# comment
	pack = $BP_TMPDIR/none
	budget = 1
	method = readahead
	frobnicate = yes
END
bp_expect_exit 3 "$READER" --no-exec --log=stderr --config "$BP_TMPDIR/conf"
bp_grep 'conf: line 5: bad setting, ignored' "$BP_TMPDIR/err"
bp_grep 'none: no such file' "$BP_TMPDIR/err"
bp_expect_exit 0 "$READER" --no-exec --log=stderr --config "$BP_TMPDIR/conf" --pack "$pack" \
	--root "$mnt"
bp_grep ' 0 files, .* [1-9][0-9]* cut' "$BP_TMPDIR/err"
