#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --whole-files moves the partly traced initrd whole (one extent in the region);
# --progress-fd writes e2fsck-style "pass cur max device" lines.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
bp_hash_files "$img" >"$BP_TMPDIR/h0"
bp_expect_exit 0 env -u E2FSPROGS_SKIP_PROGRESS "$BOOTPACK" relayout --no-undo --whole-files --progress-fd 3 \
	--trace "$BP_TMPDIR/t" "$img" 3>"$BP_TMPDIR/progress"
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"
debugfs -R "ex /boot/initrd.img-6.1.0-bootpack" "$img" >"$BP_TMPDIR/ex" 2>/dev/null
[ "$(grep -c '^ *0/ *0' "$BP_TMPDIR/ex")" = 1 ] || { cat "$BP_TMPDIR/ex"; bp_fail "initrd not one extent"; }
for pass in 1 2 3 4; do
	bp_grep "^$pass [0-9]+ [0-9]+ $img\$" "$BP_TMPDIR/progress"
done
exit 0
