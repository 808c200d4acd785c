#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGINT or SIGTERM during 'trace -- sleep 5': the command is stopped, the
# tracefs instance is removed, nothing is written, exit 32. After SIGKILL
# (which cannot be caught) the next run removes the orphaned instance.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_root
tfs=$(bp_tracefs)

for sig in INT TERM; do
	"$BOOTPACK" trace -o "$BP_TMPDIR/t" -- sleep 5 2>"$BP_TMPDIR/err" &
	pid=$!
	on=
	for _ in $(seq 100); do
		on=$(cat "$tfs/instances/bootpack-$pid/tracing_on" 2>/dev/null) || true
		[ "$on" = 1 ] && break
		sleep 0.05
	done
	[ "$on" = 1 ] || bp_fail "no instance bootpack-$pid with tracing on appeared"
	sleep 0.2
	start=$(date +%s)
	kill -s "$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ $rc -eq 32 ] || { cat "$BP_TMPDIR/err"; bp_fail "SIG$sig: exit $rc, expected 32"; }
	[ $(($(date +%s) - start)) -lt 4 ] || bp_fail "SIG$sig did not stop the command"
	bp_grep 'interrupted by signal' "$BP_TMPDIR/err"
	[ ! -d "$tfs/instances/bootpack-$pid" ] || bp_fail "SIG$sig left the instance behind"
	[ ! -e "$BP_TMPDIR/t" ] || bp_fail "SIG$sig: a trace was written"
done
tr_no_instance

"$BOOTPACK" trace -o "$BP_TMPDIR/t" -- sleep 1 2>/dev/null &
pid=$!
tr_orphan "$pid"	# other cases running now must not take it for a leak
for _ in $(seq 100); do
	[ "$(cat "$tfs/instances/bootpack-$pid/tracing_on" 2>/dev/null)" = 1 ] && break
	sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
bp_on_exit "rmdir '$tfs/instances/bootpack-$pid'"
[ -d "$tfs/instances/bootpack-$pid" ] || bp_fail "expected an orphaned instance after SIGKILL"
sleep 1.1	# the orphaned command ends
bp_expect_exit 2 "$BOOTPACK" trace -o "$BP_TMPDIR/t" --buffer-size 1x -- true
"$BOOTPACK" trace -o "$BP_TMPDIR/t2" -- true 2>/dev/null || true
[ ! -d "$tfs/instances/bootpack-$pid" ] || bp_fail "the orphaned instance was not removed"
tr_no_instance
