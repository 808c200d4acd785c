#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot bench's desktop variant in report.py: a boot whose monitor ran
# with --session reports the session's time (session_ms of the summary) as
# session_s; a boot whose session never came up (session_ms=-1) is invalid
# however idle it went; the run's table has the session table, and a
# server boot (no session_ms) has neither.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

bp_require_cmd python3 jq
rep=$top_srcdir/bench/boot/report.py
mkboot() {	# DIR SESSION_MS|none
	mkdir -p "$1"
	printf 'model=hdd-5k160\nscale=1\n' >"$1/boot.env"
	{
		echo "=== BENCH-BEGIN summary"
		echo "done_ms=30500"
		echo "reached=1"
		[ "$2" = none ] || echo "session_ms=$2"
		echo "rd_ios=0"
		echo "window_ms=2000"
		echo "=== BENCH-END summary"
		echo "=== BENCH-BEGIN samples"
		echo "30500 0 0"
		echo "32500 0 200"
		echo "=== BENCH-END samples"
	} >"$1/results.log"
}
r=$BP_TMPDIR/run
mkboot "$r/hdd-5k160/stock/boot-1" 21300
mkboot "$r/hdd-5k160/stock/boot-2" -1
mkboot "$r/hdd-5k160/bootpack/boot-1" none
for b in stock/boot-1 stock/boot-2 bootpack/boot-1; do
	python3 "$rep" boot "$r/hdd-5k160/$b" >"$r/hdd-5k160/$b/boot.json" || bp_fail "report.py boot $b"
done
j() { jq -e "$2" "$r/hdd-5k160/$1/boot.json" >/dev/null || bp_fail "$1: $3"; }
j stock/boot-1 '.session_s == 21.3 and .valid' "session_s is not 21.3 s, or the boot is not valid"
j stock/boot-2 '.session_s == null and (.valid | not)' "a boot without its session is valid"
j bootpack/boot-1 '(has("session_s") | not) and .valid' "a server boot has a session_s, or is invalid"
python3 "$rep" table "$r" >"$BP_TMPDIR/table.md" || bp_fail "report.py table failed"
cat "$BP_TMPDIR/table.md"
grep -q '^| hdd-5k160 | stock | 21.3 (21.3, –) | 30.5 | 9.2 |' "$BP_TMPDIR/table.md" ||
	bp_fail "no session row for stock: session 21.3, done 30.5, 9.2 s after"
echo ok
