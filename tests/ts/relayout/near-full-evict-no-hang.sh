#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A nearly full, fragmented filesystem whose last block is in use: free space
# in single blocks, other files of 8 blocks in every window. Eviction must
# move runs longer than any free run. ext2fs_new_range() (libext2fs 1.47.0)
# spun forever there, after B0, deaf to SIGTERM; relayout now finds free runs
# in the bitmap itself. The run (and its dry run) must end within seconds,
# relaid out or refused cleanly; e2fsck -fn clean, every file unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs mkfs.ext4 e2fsck timeout
img=$BP_TMPDIR/full.img
truncate -s 32M "$img"
mkfs.ext4 -q -F -b 4096 -N 16384 -E root_owner=0:0 "$img" || bp_fail "mkfs"
head -c $((5 << 20)) /dev/urandom >"$BP_TMPDIR/big"
head -c 4096 /dev/urandom >"$BP_TMPDIR/c1"
head -c 32768 /dev/urandom >"$BP_TMPDIR/c8"
{
	echo "write $BP_TMPDIR/big /big"
	echo "mkdir /fill"
	for i in $(seq 1 9000); do
		if ((i % 16 == 0)); then f=c8; else f=c1; fi
		echo "write $BP_TMPDIR/$f /fill/$i"
	done
} >"$BP_TMPDIR/cmds"
debugfs -w -f "$BP_TMPDIR/cmds" "$img" >/dev/null 2>&1 || true
{ for i in $(seq 1 2 9000); do echo "rm /fill/$i"; done; } >"$BP_TMPDIR/cmds"
debugfs -w -f "$BP_TMPDIR/cmds" "$img" >/dev/null 2>&1 || bp_fail "debugfs rm"
bp_fsck_clean "$img"
last=$(($(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block count/ {print $2}') - 1))
debugfs -R "testb $last" "$img" 2>/dev/null | grep -q "marked in use" ||
	bp_fail "fixture: the last block $last is free"
# The big file read tail first: it must move, into a window to clear.
rl_mktrace "$img" "$BP_TMPDIR/t" "/big@0+4194304/2000000,4194304+1048576/1000000"
bp_hash_files "$img" >"$BP_TMPDIR/h0"
s0=$(rl_sum "$img")

rc=0
timeout -k 5 30 "$BOOTPACK" relayout -n --trace "$BP_TMPDIR/t" "$img" >"$BP_TMPDIR/out" \
	2>"$BP_TMPDIR/err" || rc=$?
[ "$rc" = 124 ] || [ "$rc" = 137 ] && bp_fail "the dry run hung"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "the dry run changed the image"
dry=$rc

rc=0
start=$SECONDS
timeout -k 5 30 "$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/t" "$img" >"$BP_TMPDIR/out" \
	2>"$BP_TMPDIR/err" || rc=$?
bp_info "relayout exited $rc after $((SECONDS - start)) s (dry run: $dry)"
case $rc in
124 | 137) bp_fail "relayout hung (killed by timeout)" ;;
0)
	bp_grep "evicted: +[1-9][0-9]* blocks" "$BP_TMPDIR/out"
	[ "$(rl_verify_json "$img" "$BP_TMPDIR/t" discontiguities)" = 0 ] ||
		bp_fail "boot stream not contiguous"
	;;
1 | 4)
	# A refusal writes nothing, and the dry run said so first.
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "a refusal changed the image"
	[ "$dry" = "$rc" ] || bp_fail "the dry run exited $dry, the run $rc"
	;;
*) cat "$BP_TMPDIR/err"; bp_fail "relayout exited $rc" ;;
esac
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/h1"
diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "file contents changed"
exit 0
