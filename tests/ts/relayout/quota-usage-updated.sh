#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# With the quota feature (user, group and project quota), relayout changes
# i_blocks (a fragmented file's leaf block is freed, a file cut into many
# pieces gets a new leaf, one of them counted in huge_file units) and must
# change the quota usage by as much: e2fsck -fn is clean and prints no
# problem at all (not "usage inconsistent", nor a count it would fix
# silently), each id's space in the quota files (debugfs get_quota) moved
# by what i_blocks moved (debugfs stat), every file is unchanged and e2undo
# restores the image. Once with a free region, once on a nearly full
# filesystem (eviction). A quota file missing an owner's entry is refused
# before anything is written.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs e2fsck mke2fs e2undo

# mkimg IMG [fill]: ext4 as the fixtures make it (metadata_csum, huge_file,
# dir_nlink, ...) with 4 KiB blocks, an orphan file, and quota for users,
# groups and projects;
# /fragged (uid 1000, gid 2000, project 7) in 2-block pieces (a depth-1
# extent tree), /lib/a (uid 1001, gid 2001, project 8; EXT4_HUGE_FILE_FL,
# so i_blocks counts filesystem blocks) and /lib/b (uid 1002) contiguous. "fill": the rest of the space cut into 32-block
# holes, owned by uid 3000 (no free run fits the boot set).
mkimg() {
	local img=$1 bs=4096 i
	MKE2FS_CONFIG=$top_srcdir/fixtures/mke2fs.conf mke2fs -q -F -t ext4 -b $bs \
		-O quota,project,orphan_file -E quotatype=usrquota:grpquota:prjquota \
		"$img" 32M >/dev/null 2>&1 || bp_fail "mke2fs -O quota,project,orphan_file"
	head -c 8192 /dev/urandom >"$BP_TMPDIR/c2"
	head -c 400000 /dev/urandom >"$BP_TMPDIR/big"
	head -c 1048576 /dev/urandom >"$BP_TMPDIR/a"
	head -c 98304 /dev/urandom >"$BP_TMPDIR/b"
	{
		echo "mkdir /frag"
		echo "mkdir /lib"
		for i in $(seq 1 60); do echo "write $BP_TMPDIR/c2 /frag/$i"; done
		for i in $(seq 1 2 60); do echo "rm /frag/$i"; done
		echo "write $BP_TMPDIR/big /fragged"
		echo "write $BP_TMPDIR/a /lib/a"
		echo "write $BP_TMPDIR/b /lib/b"
		echo "sif /fragged uid 1000"
		echo "sif /fragged gid 2000"
		echo "sif /fragged projid 7"
		echo "sif /lib/a uid 1001"
		echo "sif /lib/a gid 2001"
		echo "sif /lib/a projid 8"
		# huge_file: i_blocks of /lib/a counts 4 KiB blocks, not 512-byte sectors.
		echo "sif /lib/a flags 0xc0000"
		echo "sif /lib/a blocks 256"
		echo "sif /lib/b uid 1002"
	} >"$BP_TMPDIR/cmds"
	debugfs -w -f "$BP_TMPDIR/cmds" "$img" >/dev/null 2>&1 || bp_fail "debugfs populate"
	if [ "${2:-}" = fill ]; then
		rl_fill_holes "$img" "sif %s uid 3000" || bp_fail "debugfs fill"
	fi
	# debugfs does not charge quota: e2fsck writes the usage, then it is clean.
	e2fsck -fy "$img" >/dev/null 2>&1 || true
	bp_fsck_clean "$img"
	debugfs -R "ex /fragged" "$img" 2>/dev/null | grep -q "^ *1/ *1 " ||
		bp_fail "/fragged has no leaf block"
}

# space TYPE ID IMG: the bytes the quota file says ID holds.
space() {
	debugfs -R "get_quota $1 $2" "$3" 2>/dev/null | awk -v id="$2" '$1 == id {print $2}'
}

# blocks PATH IMG: i_blocks (512-byte units) as debugfs stat shows it.
blocks() {
	debugfs -R "stat $1" "$2" 2>/dev/null | sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p'
}

ra="" rb=""
for i in $(seq 0 11); do
	ra="$ra${ra:+,}$((i * 65536))+4096/$((i * 2000 + 1000))"
	rb="$rb${rb:+,}$((i * 8192))+4096/$((i * 2000 + 2000))"
done

for mode in region fill; do
	img=$BP_TMPDIR/quota-$mode.img
	mkimg "$img" $mode
	rl_mktrace "$img" "$BP_TMPDIR/t" /fragged "/lib/a@$ra" "/lib/b@$rb"
	bp_hash_files "$img" >"$BP_TMPDIR/h0"
	s0=$(rl_sum "$img")
	declare -A q0=() b0=()
	for k in user:1000 group:2000 project:7 user:1001 group:2001 project:8 user:1002 \
		user:0 group:0 project:0; do
		q0[$k]=$(space "${k%:*}" "${k#*:}" "$img")
		[ -n "${q0[$k]}" ] || bp_fail "$mode: no quota entry for $k"
	done
	for p in /fragged /lib/a /lib/b; do b0[$p]=$(blocks $p "$img"); done

	bp_expect_exit 0 "$BOOTPACK" relayout -z "$BP_TMPDIR/u" --trace "$BP_TMPDIR/t" "$img"
	if [ $mode = fill ]; then
		bp_grep "evicted: +[1-9][0-9]* blocks" "$BP_TMPDIR/out"
	fi
	rl_fsck_silent "$img"	# not only exit 0: no count e2fsck would fix silently
	bp_hash_files "$img" >"$BP_TMPDIR/h1"
	diff "$BP_TMPDIR/h0" "$BP_TMPDIR/h1" || bp_fail "$mode: file contents changed"

	# The i_blocks changes the cases are built for: a leaf freed, a leaf added.
	d_frag=$(( ($(blocks /fragged "$img") - ${b0[/fragged]}) * 512 ))
	d_a=$(( ($(blocks /lib/a "$img") - ${b0[/lib/a]}) * 4096 ))	# huge_file units
	d_b=$(( ($(blocks /lib/b "$img") - ${b0[/lib/b]}) * 512 ))
	[ $d_frag = -4096 ] || bp_fail "$mode: /fragged i_blocks moved by $d_frag bytes, not -4096"
	[ $d_a = 4096 ] || bp_fail "$mode: /lib/a i_blocks moved by $d_a bytes, not +4096"
	# The quota files moved by as much, id by id (the others did not move).
	check() {
		local k=$1 want=$2 got
		got=$(( $(space "${k%:*}" "${k#*:}" "$img") - ${q0[$k]} ))
		[ "$got" = "$want" ] || bp_fail "$mode: $k usage changed by $got bytes, not $want"
	}
	check user:1000 $d_frag
	check group:2000 $d_frag
	check project:7 $d_frag
	check user:1001 $d_a
	check group:2001 $d_a
	check project:8 $d_a
	check user:1002 $d_b
	check user:0 0
	check project:0 $d_b
	check group:0 $d_b

	e2undo "$BP_TMPDIR/u" "$img" >/dev/null || bp_fail "$mode: e2undo"
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "$mode: e2undo did not restore the image"
	rm -f "$BP_TMPDIR/u"
	unset q0 b0
done

# A quota file without the entry of an id that owns files is inconsistent
# already: refused before anything is written (a dry run too).
img=$BP_TMPDIR/quota-region.img
mkimg "$img"
debugfs -w -R "sif /fragged uid 4242" "$img" >/dev/null 2>&1 || bp_fail "debugfs sif"
rl_mktrace "$img" "$BP_TMPDIR/t" /fragged
s0=$(rl_sum "$img")
for n in -n ""; do
	bp_expect_exit 4 "$BOOTPACK" relayout $n --no-undo --trace "$BP_TMPDIR/t" "$img"
	bp_grep "user quota file has no entry for user id 4242" "$BP_TMPDIR/err"
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "refused run changed the image"
done
exit 0
