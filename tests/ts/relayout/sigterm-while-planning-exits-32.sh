#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGTERM while a huge trace is planned (issue 23): the planning loops watch
# the cancel flag, so relayout exits 32 within seconds, the image byte for
# byte unchanged. Before, SIGTERM was looked at only after planning, which
# a boot's time limit could not bound. The trace: 200,000 ranges of one
# file (4 KiB every 8 KiB of a sparse 2 GiB file); the signal is sent once
# --progress-fd says the ownership walk is done (planning step 1 of 3).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs mkfs.ext4 timeout mkfifo
img=$BP_TMPDIR/huge.img
truncate -s 64M "$img"
mkfs.ext4 -q -F -b 4096 "$img" || bp_fail "mkfs"
head -c 4096 /dev/urandom >"$BP_TMPDIR/huge"
truncate -s 2G "$BP_TMPDIR/huge"
debugfs -w -R "write $BP_TMPDIR/huge /huge" "$img" >/dev/null 2>&1 || bp_fail "debugfs write"
rl_mktrace "$img" "$BP_TMPDIR/t1" "/huge@0+4096"
n=200000
awk -v n=$n '
	/^events / { print "events " n + 1 " " n + 1 " 0"; next }
	/^end / { print "end " n + 1; next }
	/^R / { for (i = 0; i < n; i++) printf "R %.0f 4096 %.0f 0\n", i * 8192, (n - i) * 1000; next }
	{ print }' "$BP_TMPDIR/t1" >"$BP_TMPDIR/t"
s0=$(rl_sum "$img")

mkfifo "$BP_TMPDIR/prog"
env -u E2FSPROGS_SKIP_PROGRESS timeout -k 5 40 "$BOOTPACK" relayout --no-undo --progress-fd 3 \
	--trace "$BP_TMPDIR/t" "$img" >"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err" 3>"$BP_TMPDIR/prog" &
pid=$!
exec {fd}<"$BP_TMPDIR/prog"
while read -r -u "$fd" pass cur max _; do
	[ "$pass $cur $max" = "1 1 3" ] && break
done
kill -TERM "$pid" 2>/dev/null || true
t0=$(date +%s%N)
cat <&"$fd" >/dev/null &
rc=0
wait "$pid" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
exec {fd}<&-
bp_info "exit $rc, $ms ms after SIGTERM"
[ "$rc" = 32 ] || { cat "$BP_TMPDIR/err"; bp_fail "relayout exited $rc, expected 32 (canceled)"; }
[ "$ms" -lt 5000 ] || bp_fail "relayout took $ms ms to act on SIGTERM"
bp_grep "canceled" "$BP_TMPDIR/err"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "the image changed"
exit 0
