#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The reader of --progress-fd is gone: no SIGPIPE death
# (exit 141, filesystem left "clean with errors"): the run finishes, says the
# progress lines were dropped, and the filesystem is clean, relaid out, every
# file unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid e2fsck python3
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
bp_hash_files "$img" >"$BP_TMPDIR/h0"

# The reader is gone before the first line: fd 3 is a pipe whose read end
# is closed, so the first progress write raises SIGPIPE (set back to its
# default in the child by Python's restore_signals). '| head -8' raced: when
# the run wrote all its lines into the pipe buffer before head exited,
# nothing failed and the case did.
rc=0
env -u E2FSPROGS_SKIP_PROGRESS python3 - "$BP_TMPDIR/err" "$BOOTPACK" relayout --no-undo --progress-fd 3 \
	--trace "$t" "$img" <<'PY' || rc=$?
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
err = open(sys.argv[1], "w")
p = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err,
                   preexec_fn=lambda: os.dup2(w, 3), close_fds=False)
sys.exit(141 if p.returncode < 0 else p.returncode)
PY
[ "$rc" = 0 ] || { cat "$BP_TMPDIR/err"; bp_fail "relayout exited $rc with its progress reader gone"; }
bp_grep "the reader of --progress-fd 3 went away; the rest of the progress lines were dropped" \
	"$BP_TMPDIR/err"
dumpe2fs -h "$img" 2>/dev/null | grep -q '^Filesystem state: *clean$' ||
	bp_fail "filesystem not marked clean after the run"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"
[ "$(rl_verify_json "$img" "$t" discontiguities)" = 0 ] || bp_fail "not one stream"
exit 0
