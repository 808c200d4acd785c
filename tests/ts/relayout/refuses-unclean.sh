#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A filesystem that is not clean is refused (exit 4) with the reason and the
# e2fsck command to run, and the image stays byte-identical: not cleanly
# unmounted, errors, orphans, mounted after the last check (--force accepts
# only that last one).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
base=$(bp_fixture ext4)
rl_mktrace "$base" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"

check() {	# check SSV-COMMAND... -- EXPECTED-REASON
	local img=$BP_TMPDIR/unclean.img reason s0 c
	cp "$base" "$img"
	while [ "$1" != -- ]; do
		debugfs -w -R "ssv $1" "$img" >/dev/null 2>&1 || bp_fail "debugfs ssv $1"
		shift
	done
	reason=$2
	s0=$(rl_sum "$img")
	for dry in -n ""; do
		bp_expect_exit 4 "$BOOTPACK" relayout $dry --no-undo --trace "$BP_TMPDIR/t" "$img"
		bp_grep "$img: is not clean: $reason; please run 'e2fsck -f $img' first" "$BP_TMPDIR/err"
	done
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the image ($reason)"
}
check "state 0" -- "it was not cleanly unmounted"
check "state 3" -- "it is marked as having errors"
check "last_orphan 12" -- "it has orphan inodes"
check "mtime 1800000000" -- "it was mounted after its last check"

# --force accepts a filesystem mounted after its last check (dry run here).
bp_expect_exit 0 "$BOOTPACK" relayout -n --force --trace "$BP_TMPDIR/t" "$BP_TMPDIR/unclean.img"
exit 0
