#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --head-start-ms as PID 1 (PID namespace, stand-in init): with a fast disk
# and a pack smaller than the reader's window init starts once the reader is
# done; else once the window is queued, while the reader streams; with a
# disk slowed to 1 MiB/s (block throttling of the loop device in a cgroup
# of our own, cgroup v1 blkio or v2 io.max) init starts while the reader
# still reads: the head start is a deadline, never a wait for the disk.
# The stand-in notes whether the reader was running when it started (an
# ordering, not a timing).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd unshare timeout debugfs losetup
"${RD_UNSHARE[@]}" true 2>/dev/null || bp_skip "cannot create PID namespaces"
rd_require_blkio

img=$(bp_fixture ext4)
rd_boot_files "$img" files
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" "${files[@]}"
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mark=$BP_TMPDIR/mark

# Fast disk, a long head start, a window larger than the pack (the head
# start then ends only with the reader): the reader is done when init starts.
rd_cold "$loop"
rd_pid1 "$mark" --pack "$pack" --root "$BP_TMPDIR/mnt" --head-start-ms=2000 --method=pread \
	--in-flight=1G
cat "$BP_TMPDIR/pid1.log"
bp_grep '^at-start:0$' "$mark"
bp_grep ' [1-9][0-9]* files, 0 skipped' "$BP_TMPDIR/pid1.log"

# A slow disk from here on: 1 MiB/s for processes of our cgroup, the
# reader stopped at --max-ms=2000, so whether init waited does not depend
# on how fast this machine reads 40 files (on a loaded host a fast reader
# could finish before the stand-in init looked).
rd_slow_cgroup "$loop" 1048576 grp
slow_pid1() {
	rd_cold "$loop"
	(
		echo $BASHPID >"$grp/cgroup.procs"
		rd_pid1 "$mark" --pack "$pack" --root "$BP_TMPDIR/mnt" --method=pread \
			--max-ms=2000 "$@"
	)
	cat "$BP_TMPDIR/pid1.log"
}

# Without a head start init starts at once, the reader still running.
slow_pid1 --head-start-ms=0
bp_grep '^at-start:1$' "$mark"

# auto (the default), on a disk that says it does not rotate as on one that
# does: 500 ms at most, a deadline (a wait of the reader's 2 s or more would
# show as at-start:0).
rot=/sys/block/${loop#/dev/}/queue/rotational
old=$(cat "$rot")
bp_on_exit "echo $old >'$rot'"
for r in 0 1; do
	echo $r >"$rot" || bp_fail "cannot set $rot"
	slow_pid1
	bp_grep '^at-start:1$' "$mark"
done
echo "$old" >"$rot"

# The head start ends once the reader's stream is under way (its first
# --in-flight window queued, here 128 KiB), not when the reader is done: 3 MiB
# at 1 MiB/s take the reader about 3 s, and init starts while it reads, long
# before the 10 s deadline (without that signal init would start when the
# reader ended: at-start:0).
rd_cold "$loop"
(
	echo $BASHPID >"$grp/cgroup.procs"
	rd_pid1 "$mark" --pack "$pack" --root "$BP_TMPDIR/mnt" --method=uring --in-flight=128K \
		--budget=3M --head-start-ms=10000
)
cat "$BP_TMPDIR/pid1.log"
bp_grep '^at-start:1$' "$mark"
bp_grep ' 0 errors' "$BP_TMPDIR/pid1.log"

# Init starts after the 300 ms head start, while the reader still reads (it
# stops at --max-ms).
slow_pid1 --head-start-ms=300
bp_grep '^at-start:1$' "$mark"
bp_grep 'stopped at --max-ms' "$BP_TMPDIR/pid1.log"
