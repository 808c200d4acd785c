#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGINT or SIGTERM during 'trace -- sleep 5': the command is stopped, the
# tracefs instance is removed, nothing is written, exit 32.
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
