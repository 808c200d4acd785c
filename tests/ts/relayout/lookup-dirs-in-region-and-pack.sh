#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a later boot needs to open the boot set, whatever it looks up: every
# directory on the lookup path of each traced file lies, block for block, in
# the relayout region and in the pack relayout rewrites, and the inode-table
# block of every packed inode (files and those directories) is in the pack.
# debugfs is the oracle (blocks, imap); the region is the plan relayout
# printed, the pack is what 'bootpack dump' lists.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs jq

img=$(bp_fixture --aged ext4)
t=$BP_TMPDIR/boot.trace
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
bp_expect_exit 0 "$BOOTPACK" relayout --json --no-undo --pack "$BP_TMPDIR/pack" --trace "$t" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/plan.json"
bp_fsck_clean "$img"
reg_start=$(jq '.relayout.plan.region_start' "$BP_TMPDIR/plan.json")
rn=$(jq '.relayout.plan.region_blocks' "$BP_TMPDIR/plan.json")
[ "$rn" -gt 0 ] || bp_fail "no region in the plan"
bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$BP_TMPDIR/pack.json"
jq -r --argjson bs "$bs" '.meta[] | range(.offset / $bs; (.offset + .length) / $bs)' \
	"$BP_TMPDIR/pack.json" | sort -n >"$BP_TMPDIR/packed-blocks"
inpack() { grep -qx "$1" "$BP_TMPDIR/packed-blocks"; }

# every directory on the traced paths (the root's parent-less "/" too), once
dirs=()
for spec in "${RL_BOOT_FILES[@]}"; do
	p=${spec%%@*}
	while p=${p%/*}; [ -n "$p" ]; do dirs+=("$p"); done
	dirs+=(/)
done
mapfile -t dirs < <(printf '%s\n' "${dirs[@]}" | sort -u)
[ "${#dirs[@]}" -ge 7 ] || bp_fail "too few directories: ${dirs[*]}"
n=0
for d in "${dirs[@]}"; do
	for b in $(debugfs -R "blocks $d" "$img" 2>/dev/null); do
		[ "$b" -ge "$reg_start" ] && [ "$b" -lt $((reg_start + rn)) ] ||
			bp_fail "$d: block $b outside the region $reg_start+$rn"
		inpack "$b" || bp_fail "$d: block $b not in the pack"
		n=$((n + 1))
	done
done
bp_info "${#dirs[@]} directories, $n blocks, in the region $reg_start+$rn and in the pack"

# the inode-table block of every packed file and of those directories
mapfile -t files < <(jq -r '[.entries[].path] | unique[]' "$BP_TMPDIR/pack.json")
[ "${#files[@]}" = "${#RL_BOOT_FILES[@]}" ] || bp_fail "packed files: ${files[*]}"
for p in "${files[@]}" "${dirs[@]}"; do
	b=$(debugfs -R "imap $p" "$img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
	[ -n "$b" ] || bp_fail "$p: no inode block from debugfs"
	inpack "$b" || bp_fail "$p: its inode-table block $b is not in the pack"
done
exit 0
