#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --background --head-start-ms (what the initramfs hooks run): the command
# returns once the reading child's stream is under way, once the child is
# done, or once the head start is over, whichever comes first; never later.
# On a disk slowed to 1 MiB/s (block throttling in a cgroup of our own,
# cgroup v1 blkio or v2 io.max):
# - a pack of about 2 MiB, smaller than the window, and a 10 s head start:
#   the stream's signal comes only with the end, so every packed file is
#   resident (mincore, from outside) the moment the command returns (a
#   return before the reading, the old --background, fails this);
# - a window of 128 KiB and 3 MiB to read (about 3 s), a 10 s head start:
#   the command returns while the child still reads (a wait for the child's
#   end or the deadline fails this);
# - slowed, --head-start-ms=300 and the child stopped at --max-ms=2000: the
#   command returns while the child still reads (the head start is a
#   deadline, never a wait for the disk).
# Orderings, not timings.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd debugfs losetup pgrep
rd_require_blkio

img=$(bp_fixture ext4)
rd_boot_files "$img" all
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" "${all[@]}"
bp_loop_attach "$img" loop
mnt=$BP_TMPDIR/mnt
bp_mount "$loop" "$mnt" ro
log=$BP_TMPDIR/bg.log

# the reading child (its command line names this case's pack), if running
child() {
	pgrep -f -- "--pack $pack" || true
}

# wait for the child to end (at most 30 s), so that the next case starts cold
child_gone() {
	local n

	for ((n = 0; n < 300; n++)); do
		[ -z "$(child)" ] && return 0
		sleep 0.1
	done
	bp_fail "the reading child still runs 30 s later"
}

bg_read() {
	"$READER" --no-exec --background --log=stderr --pack "$pack" --root "$mnt" "$@" \
		2>>"$log" || bp_fail "bootpack-read --background $* failed"
}

rd_slow_cgroup "$loop" 1048576 grp
# slow_bg OPTION...: read $pack from the slow cgroup; $running, $n: the
# child running and the files not resident when the command returned
slow_bg() {
	rd_cold "$loop"
	: >"$log"
	(
		echo $BASHPID >"$grp/cgroup.procs"
		bg_read "$@"
	)
	running=$(child) n=$(rd_not_resident "$mnt" "${files[@]}")
	child_gone
	cat "$log"
}

# a pack of files under /usr, about 2 MiB of them (none inline in its
# inode: the pack has no range of such a file)
files=() sum=0
# shellcheck disable=SC2013  # the fixture's paths have no spaces
for f in $(awk '$2 ~ /^\/usr\// {print $2}' "$img.files"); do
	sz=$(stat -c %s "$mnt$f")
	[ "$sz" -ge 4096 ] && [ $((sum + sz)) -le $((2 << 20)) ] || continue
	files+=("$f") sum=$((sum + sz))
done
[ ${#files[@]} -ge 2 ] || bp_fail "fixture: no 2 files under 2 MiB"
small=$BP_TMPDIR/small.pack
rd_make_pack "$img" "$small" "${files[@]}"
pack=$small
slow_bg --head-start-ms=10000 --in-flight=1G --method=uring
[ "$n" = 0 ] || bp_fail "$n of ${#files[@]} files not resident when --background returned"
bp_grep " ${#files[@]} files, 0 skipped" "$log"
files=("${all[@]}") pack=$BP_TMPDIR/pack

slow_bg --method=uring --in-flight=128K --budget=3M --head-start-ms=10000
[ -n "$running" ] || bp_fail "--background returned only when the reader was done, not once it streamed"
bp_grep ' 0 errors' "$log"

slow_bg --method=pread --max-ms=2000 --head-start-ms=300
[ -n "$running" ] || bp_fail "--background with --head-start-ms=300 waited for the slow disk"
bp_grep 'stopped at --max-ms' "$log"
