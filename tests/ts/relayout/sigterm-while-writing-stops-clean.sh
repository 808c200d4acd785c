#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGTERM after writing began (issue 23): the run stops at the next safe
# point (an epoch before its first commit, or between the eviction and the
# fill), gives back what it reserved, marks the filesystem clean and exits 32
# ("stopped"); after the fill's first commit it completes (exit 0). At a
# sample of its writes (relayout/crash: BP_CRASH_SIGNAL_AT=N raises SIGTERM
# right after the N-th write), with and without eviction: e2fsck -fn clean,
# state clean, every file unchanged; some signal must stop the run.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs e2fsck
CRASH_RELAYOUT=$top_builddir/relayout/crash/bp-crash-relayout
[ -x "$CRASH_RELAYOUT" ] || bp_fail "$CRASH_RELAYOUT not built (make check builds it)"
img0=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img0" "$t" "${RL_BOOT_FILES[@]}"
bp_hash_files "$img0" >"$BP_TMPDIR/h0"
img=$BP_TMPDIR/run.img

for args in "" "--region 6000"; do
	cp --sparse=always "$img0" "$img"
	# shellcheck disable=SC2086
	BP_CRASH_COUNT=$BP_TMPDIR/count "$CRASH_RELAYOUT" $args "$img" "$t" >"$BP_TMPDIR/out" ||
		bp_fail "${args:-auto}: the complete run failed"
	w=$(awk '/^writes/ {print $2}' "$BP_TMPDIR/count")
	[ -n "$args" ] && { grep -q "evicted [1-9]" "$BP_TMPDIR/out" || bp_fail "no eviction"; }
	stopped=0 completed=0
	for n in 1 2 3 $((w / 8)) $((w / 4)) $((w / 2)) $((3 * w / 4)) $((w - 2)) $((w - 1)) $w; do
		[ "$n" -ge 1 ] || continue
		cp --sparse=always "$img0" "$img"
		rc=0
		# shellcheck disable=SC2086
		BP_CRASH_SIGNAL_AT=$n timeout -k 5 120 "$CRASH_RELAYOUT" $args "$img" "$t" \
			>"$BP_TMPDIR/out" 2>&1 || rc=$?
		case $rc in
		0) completed=$((completed + 1)) ;;
		32) grep -q "^stopped: " "$BP_TMPDIR/out" ||
			bp_fail "signal at write $n/$w: exit 32 but not stopped: $(cat "$BP_TMPDIR/out")"
		    stopped=$((stopped + 1)) ;;
		*) bp_fail "${args:-auto}: signal at write $n/$w: exit $rc: $(cat "$BP_TMPDIR/out")" ;;
		esac
		dumpe2fs -h "$img" 2>/dev/null | grep -q '^Filesystem state: *clean$' ||
			bp_fail "signal at write $n/$w (exit $rc): not marked clean"
		bp_fsck_clean "$img"
		bp_hash_files "$img" >"$BP_TMPDIR/h1"
		diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" ||
			bp_fail "signal at write $n/$w (exit $rc): file contents changed"
	done
	bp_info "${args:-auto}: $w writes; signal at 10 of them: $stopped stopped, $completed completed"
	[ "$stopped" -gt 0 ] || bp_fail "${args:-auto}: no signal stopped the run"
done
exit 0
