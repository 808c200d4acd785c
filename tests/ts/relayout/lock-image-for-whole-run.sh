#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The image is locked for the whole run: a second relayout of it while the
# first runs refuses (exit 4) with nothing written, and so does one while
# another process holds flock(1) on it. A loop device backed by the image,
# attached before the run or while it plans, is refused (exit 4) before the
# first write: it could mount the image under the run.
# A run is held still by a full progress pipe: it blocks in its first
# progress line, after taking the lock and before writing anything.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_root
bp_require_cmd debugfs dumpe2fs blkid losetup flock e2fsck
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
bp_hash_files "$img" >"$BP_TMPDIR/h0"
s0=$(rl_sum "$img")
# The process still running at exit, if any (never a pid already waited for).
live=
bp_on_exit 'if [ -n "$live" ]; then kill "$live"; fi'

# hold_start ARGS...: a relayout blocked in its first progress write; pid in held_pid.
hold_start() {
	local i
	rm -f "$BP_TMPDIR/fifo"
	mkfifo "$BP_TMPDIR/fifo"
	exec 5<>"$BP_TMPDIR/fifo"
	dd if=/dev/zero bs=4096 count=16 >&5 2>/dev/null	# 16 full pages: the pipe is full
	env -u E2FSPROGS_SKIP_PROGRESS "$BOOTPACK" relayout --progress-fd 3 "$@" \
		3>&5 >"$BP_TMPDIR/held.out" 2>"$BP_TMPDIR/held.err" &
	held_pid=$!
	live=$held_pid
	for ((i = 0; i < 600; i++)); do
		case $(cat "/proc/$held_pid/wchan" 2>/dev/null) in *pipe_write*) return 0 ;; esac
		kill -0 "$held_pid" 2>/dev/null || { cat "$BP_TMPDIR/held.err"; bp_fail "held run ended early"; }
		sleep 0.1
	done
	bp_fail "the held run never reached its first progress line"
}
# hold_release: drain the pipe, let the run go on; its exit status in held_rc.
hold_release() {
	local drain
	cat <&5 >/dev/null &
	drain=$!
	held_rc=0
	wait "$held_pid" || held_rc=$?
	live=
	kill "$drain" 2>/dev/null || true
	wait "$drain" 2>/dev/null || true
	exec 5<&-
}

# Another process holds the lock (util-linux flock): refused, untouched.
flock -o "$img" sleep 30 &
holder=$!
live=$holder
for ((i = 0; i < 100; i++)); do flock -n "$img" true || break; sleep 0.05; done
bp_expect_exit 4 "$BOOTPACK" relayout --no-undo --trace "$t" "$img"
bp_grep "is locked by another process" "$BP_TMPDIR/err"
kill "$holder"
wait "$holder" 2>/dev/null || true
# shellcheck disable=SC2034  # read by the exit handler (bp_on_exit's eval)
live=
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "a refused run changed the image"

# Two relayouts at once: the second refuses while the first holds the image.
hold_start --no-undo --trace "$t" "$img"
cp "$t" "$BP_TMPDIR/t2"
bp_expect_exit 4 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t2" "$img"
bp_grep "is locked by another process" "$BP_TMPDIR/err"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "the second run wrote to the image"
hold_release
[ "$held_rc" = 0 ] || { cat "$BP_TMPDIR/held.err"; bp_fail "the first run exited $held_rc"; }
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"
[ "$(rl_verify_json "$img" "$t" discontiguities)" = 0 ] || bp_fail "not one stream"

# A loop device backed by the image: refused, named with the fix.
img=$(bp_fixture ext4)
s0=$(rl_sum "$img")
cp --sparse=always "$img" "$BP_TMPDIR/second.img"
bp_loop_attach "$img" loopdev
bp_expect_exit 4 "$BOOTPACK" relayout --no-undo --trace "$t" "$img"
bp_grep "is attached to the loop device $loopdev.*losetup -d $loopdev" "$BP_TMPDIR/err"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "a refused run changed the image"

# ... also when it is attached while the run plans: refused before the first write.
# (Another image: loop devices are only detached by the cleanup, never reused.)
img=$BP_TMPDIR/second.img
hold_start --no-undo --trace "$t" "$img"
bp_loop_attach "$img" loopdev
hold_release
[ "$held_rc" = 4 ] || { cat "$BP_TMPDIR/held.err"; bp_fail "run with a loop device attached meanwhile exited $held_rc"; }
bp_grep "is attached to the loop device $loopdev" "$BP_TMPDIR/held.err"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "the run wrote to an image attached to a loop device"
exit 0
