#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot bench's desktop variant in report.py: a boot whose monitor ran
# with --session reports the session's time as session_s: the kernel's
# timestamp of the marker's record in the kernel log (not the record of the
# command line that names the marker), else session_ms of the summary; a
# boot whose session never came up (session_ms=-1), or that was done before
# it, is invalid however idle it went; the run's table has the session
# table, and a server boot (no session_ms) has neither.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

bp_require_cmd python3 jq
rep=$top_srcdir/bench/boot/report.py
mkboot() {	# DIR SESSION_MS|none [KMSG_USEC]
	mkdir -p "$1"
	printf 'model=hdd-5k160\nscale=1\n' >"$1/boot.env"
	{
		echo "=== BENCH-BEGIN summary"
		echo "done_ms=30500"
		echo "reached=1"
		[ "$2" = none ] || echo "session_ms=$2"
		[ "$2" = none ] || echo "session_mark=bench-session-up"
		echo "rd_ios=0"
		echo "window_ms=2000"
		echo "=== BENCH-END summary"
		echo "=== BENCH-BEGIN samples"
		echo "30500 0 0"
		echo "32500 0 200"
		echo "=== BENCH-END samples"
		echo "=== BENCH-BEGIN kmsg"
		echo "5,76,80700,-;Kernel command line: root=/dev/vda bench.session=bench-session-up"
		[ -z "${3:-}" ] || echo "12,479,$3,-;bench-session-up bench"
		echo "=== BENCH-END kmsg"
	} >"$1/results.log"
}
r=$BP_TMPDIR/run
mkboot "$r/hdd-5k160/stock/boot-1" 0.0 21300000
mkboot "$r/hdd-5k160/stock/boot-2" -1
mkboot "$r/hdd-5k160/stock/boot-3" 31000
mkboot "$r/hdd-5k160/bootpack/boot-1" none
for b in stock/boot-1 stock/boot-2 stock/boot-3 bootpack/boot-1; do
	python3 "$rep" boot "$r/hdd-5k160/$b" >"$r/hdd-5k160/$b/boot.json" || bp_fail "report.py boot $b"
done
j() { jq -e "$2" "$r/hdd-5k160/$1/boot.json" >/dev/null || bp_fail "$1: $3"; }
j stock/boot-1 '.session_s == 21.3 and .valid' "session_s is not 21.3 s, or the boot is not valid"
j stock/boot-2 '.session_s == null and (.valid | not)' "a boot without its session is valid"
j stock/boot-3 '.session_s == 31 and (.valid | not)' "a boot done before its session is valid"
j bootpack/boot-1 '(has("session_s") | not) and .valid' "a server boot has a session_s, or is invalid"
python3 "$rep" table "$r" >"$BP_TMPDIR/table.md" || bp_fail "report.py table failed"
cat "$BP_TMPDIR/table.md"
grep -q '^| hdd-5k160 | stock | 21.3 (21.3, –, 31.0) | 30.5 | 9.2 |' "$BP_TMPDIR/table.md" ||
	bp_fail "no session row for stock: session 21.3, done 30.5, 9.2 s after"
echo ok
