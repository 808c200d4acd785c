#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One JSON shape for every verb (bootpack(8), JSON OUTPUT; issue 13: verify
# printed {"verify":{...}}, relayout a flat object): one object on stdout,
# whose first member is an object named after the verb (dump: after the
# file, trace or pack); any other top-level member is a list or dump's
# summary; nothing else on stdout.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid python3
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"

check() {	# check NAME CMD...: the verb's -J output has the shape
	local name=$1
	shift
	bp_expect_exit 0 "$@"
	python3 - "$BP_TMPDIR/out" "$name" <<'PY' || bp_fail "$*: not the one shape"
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text)    # one object and nothing else: json.loads refuses trailing text
assert isinstance(d, dict), d
keys = list(d)
assert keys[0] == sys.argv[2] and isinstance(d[keys[0]], dict), keys
for k in keys[1:]:
    assert isinstance(d[k], list) or k == "summary", (k, type(d[k]))
PY
}
check pack "$BOOTPACK" pack -J --trace "$t" -o "$BP_TMPDIR/p" "$img"
check trace "$BOOTPACK" dump -J "$t"
check pack "$BOOTPACK" dump -J "$BP_TMPDIR/p"
check verify "$BOOTPACK" verify -J --trace "$t" "$img"
check verify "$BOOTPACK" verify -J --pack "$BP_TMPDIR/p" "$img"
check bench "$BOOTPACK" bench -J --trace "$t" "$img"
check probe "$BOOTPACK" probe -J -t 0.5 "$img"
check relayout "$BOOTPACK" relayout -n -J --trace "$t" "$img"
check relayout "$BOOTPACK" relayout -J --no-undo --no-pack --trace "$t" "$img"
