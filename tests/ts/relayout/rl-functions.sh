# SPDX-License-Identifier: GPL-2.0-or-later
# rl-functions.sh --- helpers shared by the relayout cases (sourced after functions.sh)

# Under ASan: ignore the undo manager's own leak in libext2fs (see the file).
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/ts/relayout/lsan-undo.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# rl_mktrace IMG OUT SPEC...: write a bootpack trace (format v1) for IMG.
# SPEC is PATH (the whole file), or PATH@OFF+LEN[,OFF+LEN...] (bytes), each
# range optionally suffixed /T (its first-access time, ns). Without /T,
# ranges get increasing times in the order given. Inode, generation, size
# and mtime come from debugfs; phys is left as "-" (relayout re-resolves).
rl_mktrace() {
	local img=$1 out=$2 spec path rl r off len t=0 first nrec=0 uuid bs i
	local -A st=() seen=()
	shift 2
	uuid=$(blkid -p -o value -s UUID "$img")
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block size/ {print $2}')
	# One debugfs session for every path: "path ino gen size mtime" lines.
	for spec in "$@"; do printf 'stat "%s"\n' "${spec%%@*}"; done >"$BP_TMPDIR/mktrace.cmd"
	while read -r path r; do
		st[$path]=$r
	done < <(debugfs -f "$BP_TMPDIR/mktrace.cmd" "$img" 2>/dev/null | awk '
		function out() { if (p != "") print p, ino, gen, size, mtime }
		/^debugfs: stat "/ { out(); p = substr($0, 16, length($0) - 16)
			ino = gen = size = mtime = "-"; next }
		/^Inode:/ { ino = $2 }
		/^Generation:/ { gen = $2 }
		/^User:/ { for (i = 1; i < NF; i++) if ($i == "Size:") size = $(i + 1) }
		$1 == "mtime:" { split($2, m, ":"); mtime = m[1] }
		END { out() }')
	{
		echo "bootpack-trace 1"
		echo "uuid $uuid"
		echo "block-size $bs"
		echo "device $img"
		echo "dev 0:0"
		echo "kernel test"
		echo "source import"
		echo "created 1700000000"
		echo "events $# $# 0"
		for spec in "$@"; do
			path=${spec%%@*}
			read -r i gen size mtime <<<"${st[$path]:-}"
			[ -n "${i:-}" ] && [ "$i" != - ] && [ "$size" != - ] || bp_fail "cannot stat $path in $img"
			mtime=$((mtime))
			[ "$size" -gt 0 ] || continue	# nothing to read: no F without an R line
			[ -z "${seen[$i]:-}" ] || continue	# a hard link: one F per inode
			seen[$i]=1
			echo "F $i $gen $size $mtime $(sed 's/%/%25/g; s/ /%20/g' <<<"$path")"
			nrec=$((nrec + 1))
			if [ "$spec" = "$path" ]; then rl="0+$size"; else rl=${spec#*@}; fi
			IFS=, read -ra rs <<<"$rl"
			for r in "${rs[@]}"; do
				if [[ $r == */* ]]; then first=${r#*/}; r=${r%/*}; else t=$((t + 1000)); first=$t; fi
				off=${r%+*}
				len=${r#*+}
				echo "R $off $len $first -"
				nrec=$((nrec + 1))
			done
		done
		echo "end $nrec"
	} >"$out"
}

# The boot set the cases use: kernel, initrd (partly), init and libraries.
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

# rl_verify_json IMG TRACE KEY: print one number from bootpack verify --json.
rl_verify_json() {
	"$BOOTPACK" verify --json --trace "$2" "$1" | awk -v k="\"$3\":" '$1 == k {gsub(/,/, "", $2); print $2}'
}

# rl_sum IMG: sha256 of the whole image.
rl_sum() { sha256sum <"$1" | cut -d' ' -f1; }

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
	bp_fsck_clean "$img"
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
