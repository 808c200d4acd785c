#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The reader of --progress-fd goes away mid-run (| head -8): no SIGPIPE death
# (exit 141, filesystem left "clean with errors"): the run finishes, says the
# progress lines were dropped, and the filesystem is clean, relaid out, every
# file unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid e2fsck
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
bp_hash_files "$img" >"$BP_TMPDIR/h0"

rc=0
env -u E2FSPROGS_SKIP_PROGRESS "$BOOTPACK" relayout --no-undo --progress-fd 3 --trace "$t" "$img" \
	3>&1 >/dev/null 2>"$BP_TMPDIR/err" | head -8 >"$BP_TMPDIR/lines" || rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { cat "$BP_TMPDIR/err"; bp_fail "relayout exited $rc with its progress reader gone"; }
[ "$(wc -l <"$BP_TMPDIR/lines")" = 8 ] || bp_fail "head did not read 8 progress lines"
bp_grep "the reader of --progress-fd 3 went away; the rest of the progress lines were dropped" \
	"$BP_TMPDIR/err"
dumpe2fs -h "$img" 2>/dev/null | grep -q '^Filesystem state: *clean$' ||
	bp_fail "filesystem not marked clean after the run"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"
[ "$(rl_verify_json "$img" "$t" discontiguities)" = 0 ] || bp_fail "not one stream"
exit 0
