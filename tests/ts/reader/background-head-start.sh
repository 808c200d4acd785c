#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --background --head-start-ms (what the initramfs hooks run): the command
# returns once the reading child's stream is under way, once the child is
# done, or once the head start is over, whichever comes first; never later.
# On a disk slowed to 1 MiB/s (block throttling in a cgroup of our own,
# cgroup v1 blkio or v2 io.max):
# - a pack of about 2 MiB, smaller than the window, and a 10 s head start:
#   the stream's signal comes only with the end, so the command exits after
#   its child, and the packed files are resident (mincore, from outside)
#   the moment it returns (a return before the reading, the old
#   --background, fails this);
# - a window of 128 KiB and 3 MiB to read (about 3 s), a 10 s head start:
#   the command exits while the child still reads (a wait for the child's
#   end or the deadline fails this);
# - slowed, --head-start-ms=300 and the child stopped at --max-ms=2000: the
#   command exits while the child still reads (the head start is a
#   deadline, never a wait for the disk).
# Orderings, not timings: "exits before" and "still reads" are the order of
# the kernel's own events (sched_process_fork/exit of the reader, the loop
# device's block_rq_complete) in a tracefs instance of this case's own, not
# what a shell sees when it gets to look (under ASan on a loaded machine the
# child could be done before pgrep ran). The residency check allows 1% of
# the pages missing: a machine may drop a clean page or two of the page
# cache at any time (this one, a VM, dropped a page of these 2 MiB every
# 10-60 s, with no drop_caches and no reclaim counted; a return before the
# reading leaves nearly all of them missing).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd debugfs losetup pgrep
rd_require_blkio
tfs=$(bp_tracefs)

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
	"$READER" --no-exec --background --log=stderr --pack "$pack" --root "$mnt" "$@" 2>>"$log" &
	echo $! >"$BP_TMPDIR/bg.pid"
	wait $! || bp_fail "bootpack-read --background $* failed"
}

rd_slow_cgroup "$loop" 1048576 grp

# The kernel's events: the reader's forks and exits, the loop device's
# completed requests (dev as the block events encode it: major << 20 | minor).
read -r maj min < <(stat -c '%t %T' "$loop")
inst=$tfs/instances/bp-test-$$-bg
mkdir "$inst" || bp_fail "cannot make a tracefs instance"
bp_on_exit "rmdir '$inst'"
echo "dev == $(((16#$maj << 20) | 16#$min))" >"$inst/events/block/block_rq_complete/filter"
echo 'comm ~ "*bootpack-read*"' >"$inst/events/sched/sched_process_exit/filter"
echo 'parent_comm ~ "*bootpack-read*"' >"$inst/events/sched/sched_process_fork/filter"
events() {
	local e
	for e in block/block_rq_complete sched/sched_process_exit sched/sched_process_fork; do
		echo "$1" >"$inst/events/$e/enable"
	done
}
bp_on_exit "echo 0 >'$inst/events/enable'"

# slow_bg OPTION...: read $pack from the slow cgroup; $n: the pages of
# $files not resident when the command returned (of $pages); $order: the
# kernel's events from the command's fork of the child, one a line, in
# order: "fork", "exit parent", "exit child", "read" (a request of the
# device completed)
slow_bg() {
	local pid
	rd_cold "$loop"
	rd_canary_set
	: >"$log"
	: >"$inst/trace"
	events 1
	(
		echo $BASHPID >"$grp/cgroup.procs"
		bg_read "$@"
	)
	n=$(pages_not_resident)
	dropped=0
	if rd_canary_lost; then dropped=1; fi
	child_gone
	events 0
	cp "$inst/trace" "$BP_TMPDIR/events"
	pid=$(cat "$BP_TMPDIR/bg.pid")
	order=$(awk -v p="$pid" '
		/ sched_process_fork: / && $0 ~ (" pid=" p " ") { match($0, /child_pid=[0-9]+/)
			c = substr($0, RSTART + 10, RLENGTH - 10); print "fork"; next }
		c == "" { next }
		/ sched_process_exit: / && $0 ~ (" pid=" p " ") { print "exit parent"; next }
		/ sched_process_exit: / && $0 ~ (" pid=" c " ") { print "exit child"; next }
		/ block_rq_complete: / { print "read" }' "$BP_TMPDIR/events" | uniq)
	cat "$log"
	echo "events (pid $pid): $(echo "$order" | tr '\n' ' ')"
	[ "${order%%$'\n'*}" = fork ] || bp_fail "no fork of the reading child in the trace"
	[ "$(grep -c '^exit ' <<<"$order")" = 2 ] || bp_fail "not both exits of the reader in the trace"
}
# pages_not_resident: of $files under $mnt; their number in $pages
pages_not_resident() {
	"$RD_HELPERS/bp-mincore" -l < <(for f in "${files[@]}"; do
		printf '%s\t0\t%s\n' "$mnt$f" "$(stat -c %s "$mnt$f")"; done) |
		awk '{ n += $NF } END { print n + 0 }'
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
pages=0
for f in "${files[@]}"; do pages=$((pages + ($(stat -c %s "$mnt$f") + 4095) / 4096)); done
# (if every cache was dropped meanwhile by something that shares this
# page cache and not the tests' lock, the canary says so and the round is
# redone: the host of a chroot, whose cases' lock is its own)
for round in 1 2 3 4 5; do
	slow_bg --head-start-ms=10000 --in-flight=1G --method=uring
	[ "$dropped" = 1 ] && [ $((n * 100)) -gt "$pages" ] || break
	bp_info "round $round: $n of $pages pages not resident, every cache dropped meanwhile (canary gone): again"
done
[ "$dropped" = 0 ] || [ $((n * 100)) -le "$pages" ] ||
	bp_skip "the page cache was dropped from outside during each of 5 rounds (canary gone):" \
		"residency cannot be checked here"
bp_grep " ${#files[@]} files, 0 skipped" "$log"
# the child's own CPU time, not one counted from before the fork (an
# underflow printed 18446744073709551613 ms)
bp_grep ' [0-9]+ ms \([0-9]{1,6} ms CPU\)' "$log"
# the child's end, then the command's
awk '/^exit child$/ { c = NR } /^exit parent$/ { p = NR } END { exit !(c < p) }' <<<"$order" ||
	bp_fail "--background returned before its reading child ended"
bp_info "$n of $pages pages not resident when --background returned"
[ $((n * 100)) -le "$pages" ] ||
	bp_fail "$n of $pages pages of ${#files[@]} files not resident when --background returned"
files=("${all[@]}") pack=$BP_TMPDIR/pack

# returned_while_reading WHY: the command exited before its child, and the
# device completed a request of the child's after that
returned_while_reading() {
	awk '/^exit parent$/ { p = NR } /^exit child$/ { c = NR } /^read$/ && p && !c { r = 1 }
		END { exit !(p < c && r) }' <<<"$order" || bp_fail "$1"
}
slow_bg --method=uring --in-flight=128K --budget=3M --head-start-ms=10000
returned_while_reading "--background returned only when the reader was done, not once it streamed"
bp_grep ' 0 errors' "$log"

slow_bg --method=pread --max-ms=2000 --head-start-ms=300
returned_while_reading "--background with --head-start-ms=300 waited for the slow disk"
bp_grep 'stopped at --max-ms' "$log"
