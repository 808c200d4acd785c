#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Power cut at a sample of the writes of a relayout on ext4 with user, group
# and project quota: ranges of two files read alternately give both a new
# extent leaf (i_blocks grows; the files are owned by root and by uid 1002,
# project 9), so the run rewrites quota usage, while ERROR_FS is set. A cut
# before the end leaves the usage stale or half updated, and e2fsck -p must
# fix it without asking ("Update quota info"); the completed run's result
# must be clean.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/crash/crash-functions.sh"
crash_require
bp_require_cmd tune2fs
img=$(bp_fixture ext4)
tune2fs -O quota,project -Q usrquota,grpquota,prjquota "$img" >/dev/null 2>&1 ||
	bp_fail "tune2fs -O quota,project"
a=/usr/lib/systemd/libsystemd-shared-252.so
printf '%s\n' "sif $a uid 1002" "sif $a projid 9" "sif /usr/bin/bash uid 1000" "sif /usr/bin/bash gid 1000" \
	"sif /usr/bin/bash projid 7" "sif /boot/vmlinuz-6.1.0-bootpack projid 8" \
	"sif /usr/lib/systemd/systemd uid 1001" >"$BP_TMPDIR/cmds"
debugfs -w -f "$BP_TMPDIR/cmds" "$img" >/dev/null 2>&1 || bp_fail "debugfs sif"
e2fsck -fy "$img" >/dev/null 2>&1 || true	# debugfs does not charge quota
bp_fsck_clean "$img"
ra="" rb=""
for i in $(seq 0 11); do
	ra="$ra${ra:+,}$((i * 65536))+4096/$((i * 2000 + 1000))"
	rb="$rb${rb:+,}$((i * 8192))+4096/$((i * 2000 + 2000))"
done
RL_BOOT_FILES=("$a@$ra" "/usr/bin/python3.11@$rb" /usr/bin/bash /boot/vmlinuz-6.1.0-bootpack)
crash_points_img "$img" ext4-quota --sample 40
exit 0
