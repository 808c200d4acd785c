# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# rl-functions.sh --- helpers shared by the relayout cases (sourced after functions.sh)

# Under ASan: ignore the undo manager's own leak in libext2fs (see the file).
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/ts/relayout/lsan-undo.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# rl_mktrace IMG OUT SPEC...: write a bootpack trace (format v1) for IMG
# with tests/mktrace.sh, the one test trace writer. SPEC is PATH (the whole
# file), or PATH@OFF+LEN[,OFF+LEN...] (bytes), each range optionally
# suffixed /T (its first-access time, ns); ranges without /T are read in
# the order given.
rl_mktrace() {
	local img=$1 out=$2 spec path rl args=()
	shift 2
	for spec in "$@"; do
		path=${spec%%@*}
		if [ "$spec" = "$path" ]; then
			args+=("$path")
			continue
		fi
		rl=${spec#*@}
		rl=${rl//+/:}
		args+=("$path:${rl//\//:}")	# OFF+LEN/T -> OFF:LEN:T
	done
	"$top_srcdir/tests/mktrace.sh" "$img" "$out" "${args[@]}" >"$BP_TMPDIR/mktrace.log" 2>&1 ||
		bp_fail "mktrace: $(cat "$BP_TMPDIR/mktrace.log")"
}

# The boot set the cases use: kernel, initrd (partly), init and libraries.
# shellcheck disable=SC2054  # PATH:OFF:LEN,... entries: the commas are the format's
RL_BOOT_FILES=(
	/boot/vmlinuz-6.1.0-bootpack
	/boot/initrd.img-6.1.0-bootpack@0+1048576,4194304+2097152
	/boot/config-6.1.0-bootpack
	/usr/lib/systemd/systemd
	/usr/lib/systemd/libsystemd-shared-252.so@0+65536
	/usr/lib/x86_64-linux-gnu/libbp1.so.1
	/usr/lib/x86_64-linux-gnu/libbp2.so.1
	/usr/bin/bash
	/etc/fstab
	/etc/passwd
	/etc/ld.so.cache
)

# rl_fill_holes IMG [CMD]: fill IMG's free space with files of 32 blocks
# (debugfs) and delete every other one: the free space is then holes of 32
# blocks and no longer run, so relayout must evict. CMD, a debugfs command
# with %s for the path (e.g. "sif %s uid 3000"), runs on each file kept.
rl_fill_holes() {
	local img=$1 each=${2:-} bs free n i
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block size/ {print $2}')
	free=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Free blocks/ {print $2}')
	head -c $((32 * bs)) /dev/zero | tr '\0' 'x' >"$BP_TMPDIR/chunk"
	n=$((free / 32 - 2))
	{
		echo "mkdir /fill"
		for i in $(seq 1 $n); do echo "write $BP_TMPDIR/chunk /fill/$i"; done
		for i in $(seq 1 2 $n); do echo "rm /fill/$i"; done
		if [ -n "$each" ]; then
			# shellcheck disable=SC2059  # $each is the caller's debugfs command format
			for i in $(seq 2 2 $n); do printf "$each\n" "/fill/$i"; done
		fi
	} >"$BP_TMPDIR/fill.cmds"
	debugfs -w -f "$BP_TMPDIR/fill.cmds" "$img" >/dev/null 2>&1
}

# rl_verify_json IMG TRACE KEY: print one number from bootpack verify --json.
rl_verify_json() {
	"$BOOTPACK" verify --json --trace "$2" "$1" | awk -v k="\"$3\":" '$1 == k {gsub(/,/, "", $2); print $2}'
}

# rl_sum IMG: sha256 of the whole image.
rl_sum() { sha256sum <"$1" | cut -d' ' -f1; }

# rl_fsck_silent IMG: e2fsck -fn exits 0 and prints no problem at all.
# The exit status alone misses what e2fsck -n may leave unfixed and still
# exit 0 on (a wrong free blocks count in the superblock or a group, for
# one), which a run must not leave either.
rl_fsck_silent() {
	local extra
	bp_fsck_clean "$1"
	extra=$(e2fsck -fn "$1" 2>&1 | grep -v '^e2fsck [0-9]\|^Pass [1-5]: \|: [0-9]*/[0-9]* files ' || true)
	[ -z "$extra" ] || bp_fail "e2fsck -fn $1 reports: $(head -5 <<<"$extra" | tr '\n' '|')"
}

# rl_full_check [--aged] KIND: the end-to-end oracle on one fixture kind.
# Relayout with an undo file; then e2fsck -fn is clean, every file's SHA-256
# and the xattrs of the config file (own xattr block, moved) are unchanged,
# the boot set is one stream in first-access order with its directories and
# tree blocks (bp_layout_check: debugfs, not bootpack; bootpack verify says
# 0 discontiguities too), a second run moves nothing, and e2undo gives back
# the original image byte for byte.
rl_full_check() {
	local img t="$BP_TMPDIR/boot.trace" u="$BP_TMPDIR/relayout.e2undo" s0 before after
	img=$(bp_fixture "$@")
	rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
	bp_hash_files "$img" >"$BP_TMPDIR/hash.before"
	[ -s "$BP_TMPDIR/hash.before" ] || bp_fail "no files hashed"
	s0=$(rl_sum "$img")
	debugfs -R "ea_list /boot/config-6.1.0-bootpack" "$img" >"$BP_TMPDIR/xattr.before" 2>/dev/null
	before=$(rl_verify_json "$img" "$t" discontiguities)
	[ "$before" -gt 0 ] || bp_fail "fixture boot set already contiguous ($before)"
	! bp_layout_check "$img" "${RL_BOOT_FILES[@]}" >"$BP_TMPDIR/layout.before" ||
		bp_fail "the layout oracle finds the fixture's boot set laid out already"

	bp_expect_exit 0 "$BOOTPACK" relayout -z "$u" --trace "$t" "$img"
	bp_grep "e2undo $u $img" "$BP_TMPDIR/out"
	bp_grep "discontiguities:  $before -> 0" "$BP_TMPDIR/out"
	rl_fsck_silent "$img"
	bp_hash_files "$img" >"$BP_TMPDIR/hash.after"
	diff "$BP_TMPDIR/hash.before" "$BP_TMPDIR/hash.after" || bp_fail "file contents changed"
	# The config file's xattr block (refcount 1) moves into the stream too.
	debugfs -R "ea_list /boot/config-6.1.0-bootpack" "$img" >"$BP_TMPDIR/xattr.after" 2>/dev/null
	diff "$BP_TMPDIR/xattr.before" "$BP_TMPDIR/xattr.after" || bp_fail "xattrs changed"
	after=$(rl_verify_json "$img" "$t" discontiguities)
	[ "$after" = 0 ] || bp_fail "boot set has $after discontiguities after relayout"
	bp_layout_check "$img" "${RL_BOOT_FILES[@]}" || bp_fail "$*: the boot set is not laid out (debugfs)"
	bp_info "$*: discontiguities $before -> $after"

	# Idempotent: the second run writes nothing at all.
	cp "$img" "$BP_TMPDIR/relaid.img"
	bp_expect_exit 0 "$BOOTPACK" relayout --no-undo --trace "$t" "$img"
	bp_grep "nothing to do" "$BP_TMPDIR/out"
	cmp -s "$img" "$BP_TMPDIR/relaid.img" || bp_fail "second run changed the image"

	e2undo "$u" "$img" >/dev/null || bp_fail "e2undo failed"
	[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "e2undo did not restore the original image"
}

# rl_overgrown IMG: the plain ext4 fixture IMG (64 MiB, 16384 blocks of
# 4096, one group), its free space filled but for 256 blocks (a file
# /filler), grown to 128 MiB by resize2fs: every block in use lies in its
# first 64 MiB and the second half is one free run, where relayout puts its
# region (about 2900 blocks). Put its first 64 MiB in a 64 MiB partition or
# device and the filesystem claims 64 MiB past the end.
rl_overgrown() {
	local free
	free=$(dumpe2fs -h "$1" 2>/dev/null | awk -F': *' '/^Free blocks/ {print $2}')
	head -c $(((free - 256) * 4096)) /dev/zero | tr '\0' 'x' >"$BP_TMPDIR/filler"
	debugfs -w -R "write $BP_TMPDIR/filler /filler" "$1" >/dev/null 2>&1
	rm -f "$BP_TMPDIR/filler"
	resize2fs -f "$1" 128M >"$BP_TMPDIR/resize.log" 2>&1 ||
		bp_fail "resize2fs: $(cat "$BP_TMPDIR/resize.log")"
	[ "$(stat -c %s "$1")" = 134217728 ] || bp_fail "resize2fs did not grow $1 to 128 MiB"
}
