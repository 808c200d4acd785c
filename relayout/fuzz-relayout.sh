#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz-relayout.sh --- relayout's preflight against corrupted images (make fuzz-relayout)
#
# For each execution: a fixture image (ext4 metadata_csum, ext4 uninit_bg
# without checksums, ext3, aged ext4 with extent tree blocks, both ext4s
# with user/group/project quota, and nearly full ext4, quota ext4-uninit and
# ext3 whose free space is cut in 32-block holes so relayout must evict; in
# turn) gets
# 1-4 mutations from relayout/fuzz-mutate (bit flips and byte values in
# group descriptors, bitmaps, used inode tables, extent tree blocks; seed =
# FUZZ_SEED + execution number). Then relayout runs on it. The oracle,
# independent of the engine:
#   - a refusal (exit 1-4) must leave the image byte-identical (sha256);
#   - a success (exit 0) must leave 'e2fsck -fn' reporting nothing it did
#     not report before (messages compared with numbers masked), and every
#     file debugfs could dump before keeps its SHA-256, unless e2fsck named
#     its inode before the run (a file e2fsck could not vouch for);
#   - anything else (exit 8, a signal, a timeout: FUZZ_TIMEOUT, default
#     120 s, exit 124) is a failure.
# Failing images are kept under FUZZ_DIR/fail-<n>/ with the mutations and
# the logs; one line per execution goes to FUZZ_DIR/executions.log. Prints
# running totals; FUZZ_SECONDS bounds the run (default
# 3600), FUZZ_MAX the executions (default unlimited). TMPDIR=/dev/shm keeps
# the images and the dumped files in memory (several times faster).
. "${top_srcdir:?}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid e2fsck sha256sum timeout

MUTATE=${FUZZ_MUTATE:-$top_builddir/relayout/fuzz-mutate}
FUZZ_DIR=${FUZZ_DIR:-$top_builddir/fuzz-relayout}
FUZZ_SECONDS=${FUZZ_SECONDS:-3600}
FUZZ_SEED=${FUZZ_SEED:-1}
FUZZ_MAX=${FUZZ_MAX:-0}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-120}
read -ra KINDS <<<"${FUZZ_KINDS:-ext4 ext4-uninit ext3 ext4:aged ext4:quota ext4-uninit:quota ext4:full \
	ext4-uninit:quota:full ext3:full}"
[ -x "$MUTATE" ] || bp_fail "no $MUTATE (make relayout/fuzz-mutate)"
bp_require_cmd tune2fs
mkdir -p "$FUZZ_DIR"

# mkbase KIND: the clean image a kind names, in a file of its own. The
# fixture (":aged": its aged variant), then ":quota": user, group and
# project quota, four boot files given other owners (tune2fs creates the
# quota files, e2fsck charges the owners), and a boot set whose two files
# read alternately get a new extent leaf, so quota usage changes; ":full":
# the free space cut into 32-block holes, so no free run fits the boot set
# and relayout must evict.
mkbase() {
	local k=$1 fx=${1%%:*} img bs free i n
	case $k in *:aged*) img=$(bp_fixture --aged "$fx") ;; *) img=$(bp_fixture "$fx") ;; esac
	mv "$img" "$BP_TMPDIR/base-${k//:/-}.img"
	img=$BP_TMPDIR/base-${k//:/-}.img
	if [[ $k = *:quota* ]]; then
		tune2fs -O quota,project -Q usrquota,grpquota,prjquota "$img" >/dev/null 2>&1 ||
			bp_fail "$k: tune2fs -O quota,project"
		printf '%s\n' "sif /usr/lib/systemd/libsystemd-shared-252.so uid 1002" \
			"sif /usr/lib/systemd/libsystemd-shared-252.so projid 9" \
			"sif /usr/bin/bash uid 1000" "sif /usr/bin/bash gid 1000" \
			"sif /usr/bin/bash projid 7" "sif /boot/vmlinuz-6.1.0-bootpack projid 8" \
			"sif /usr/lib/systemd/systemd uid 1001" >"$BP_TMPDIR/cmds"
		debugfs -w -f "$BP_TMPDIR/cmds" "$img" >/dev/null 2>&1 || bp_fail "$k: debugfs sif"
		e2fsck -fy "$img" >/dev/null 2>&1 || true
	fi
	if [[ $k = *:full* ]]; then
		rl_fill_holes "$img" || bp_fail "$k: debugfs fill"
		e2fsck -fy "$img" >/dev/null 2>&1 || true	# debugfs does not charge quota
	fi
	echo "$img"
}

QRA="" QRB=""
for i in $(seq 0 11); do
	QRA="$QRA${QRA:+,}$((i * 65536))+4096/$((i * 2000 + 1000))"
	QRB="$QRB${QRB:+,}$((i * 8192))+4096/$((i * 2000 + 2000))"
done
declare -A BASE TRACE
for k in "${KINDS[@]}"; do
	BASE[$k]=$(mkbase "$k")
	TRACE[$k]=$BP_TMPDIR/${k//:/-}.trace
	if [[ $k = *:quota* ]]; then
		# Two files read alternately get a new extent leaf: quota usage changes.
		rl_mktrace "${BASE[$k]}" "${TRACE[$k]}" "/usr/lib/systemd/libsystemd-shared-252.so@$QRA" \
			"/usr/bin/python3.11@$QRB" /usr/bin/bash /boot/vmlinuz-6.1.0-bootpack
	elif [[ $k = *:full* ]]; then
		# Half the free space is left in holes: the boot set of the eviction case.
		rl_mktrace "${BASE[$k]}" "${TRACE[$k]}" /boot/vmlinuz-6.1.0-bootpack /usr/bin/bash \
			/etc/fstab /usr/lib/x86_64-linux-gnu/libbp2.so.1
	else
		rl_mktrace "${BASE[$k]}" "${TRACE[$k]}" "${RL_BOOT_FILES[@]}"
	fi
	bp_fsck_clean "${BASE[$k]}"
done

work=$BP_TMPDIR/work.img
pre=$BP_TMPDIR/pre.img

# fsck_msgs IMG OUT: e2fsck -fn messages, numbers masked, sorted unique. A
# bitmap-differences line becomes one line per sign: "-" (marked in use,
# owned by nobody: a leak) and "+" (owned but marked free) are different
# problems, the number of ranges is not.
fsck_msgs() {
	e2fsck -fn "$1" 2>&1 | tail -n +2 | sed -E 's/[0-9]+/N/g; s/0xN[a-fN]*/N/g' |
		awk '/^(Block|Inode) bitmap differences:/ {
				p = $1 " " $2 " differences:"
				if ($0 ~ / -/) print p " -"
				if ($0 ~ / \+/) print p " +"
				next }
			!/^(Pass N|$)/' | sort -u >"$2" || true
}

fsck_inodes() {	# fsck_inodes IMG: inode numbers e2fsck -fn names
	e2fsck -fn "$1" 2>&1 | grep -oiE 'inode #?[0-9]+|<[0-9]+>' | grep -oE '[0-9]+' | sort -un
}

hash_files() {	# hash_files IMG OUT: "sha256  /path" of what debugfs can dump
	local d
	d=$(mktemp -d "$BP_TMPDIR/rdump.XXXXXX")
	# a mutated inode can claim terabytes: no file dumped beyond 1 GiB (the
	# fixtures' largest is a few MiB), or a tmpfs TMPDIR fills the memory
	(ulimit -f 1048576; timeout 120 debugfs -R "rdump / $d" "$1") >/dev/null 2>&1 || true
	(cd "$d" && find . -type f -print0 | sort -z | xargs -0r sha256sum | sed 's|  \./|  /|') >"$2"
	rm -rf "$d"
}

n=0 refused=0 succeeded=0 wrote=0 failed=0 nothing=0
declare -A exits=()
t_start=$(date +%s)
log=$FUZZ_DIR/fuzz.log
echo "# fuzz-relayout start $(date -u +%FT%TZ) seed $FUZZ_SEED kinds ${KINDS[*]}" >>"$log"

fail() {	# fail REASON: keep the evidence
	local dir=$FUZZ_DIR/fail-$n
	failed=$((failed + 1))
	mkdir -p "$dir"
	cp "$BP_TMPDIR/mut" "$BP_TMPDIR/rl.out" "$BP_TMPDIR/rl.err" "$dir/" 2>/dev/null || true
	cp "$BP_TMPDIR"/fsck.* "$BP_TMPDIR"/hash.* "$dir/" 2>/dev/null || true
	cp --sparse=always "${BASE[$kind]}" "$pre"
	"$MUTATE" "$pre" "$seed" >/dev/null
	gzip -c "$pre" >"$dir/pre.img.gz"
	echo "$1" >"$dir/reason"
	echo "FAIL $n kind=$kind seed=$seed: $1" | tee -a "$log"
}

while :; do
	now=$(date +%s)
	[ $((now - t_start)) -lt "$FUZZ_SECONDS" ] || break
	[ "$FUZZ_MAX" = 0 ] || [ "$n" -lt "$FUZZ_MAX" ] || break
	kind=${KINDS[n % ${#KINDS[@]}]}
	seed=$((FUZZ_SEED + n))
	cp --sparse=always "${BASE[$kind]}" "$work"
	"$MUTATE" "$work" "$seed" >"$BP_TMPDIR/mut" || bp_fail "fuzz-mutate failed"
	rm -f "$BP_TMPDIR"/fsck.* "$BP_TMPDIR"/hash.*
	h0=$(rl_sum "$work")

	rc=0
	timeout "$FUZZ_TIMEOUT" "$BOOTPACK" relayout --no-undo --trace "${TRACE[$kind]}" "$work" \
		>"$BP_TMPDIR/rl.out" 2>"$BP_TMPDIR/rl.err" || rc=$?
	exits[$rc]=$((${exits[$rc]:-0} + 1))
	h1=$(rl_sum "$work")
	case $rc in
	0)
		succeeded=$((succeeded + 1))
		if [ "$h0" = "$h1" ]; then
			nothing=$((nothing + 1))
		else
			wrote=$((wrote + 1))
			# The mutated image before the run, made again (the mutator is deterministic).
			cp --sparse=always "${BASE[$kind]}" "$pre"
			"$MUTATE" "$pre" "$seed" >/dev/null || bp_fail "fuzz-mutate failed"
			[ "$(rl_sum "$pre")" = "$h0" ] || bp_fail "fuzz-mutate is not deterministic"
			fsck_msgs "$pre" "$BP_TMPDIR/fsck.before"
			fsck_msgs "$work" "$BP_TMPDIR/fsck.after"
			new=$(comm -13 "$BP_TMPDIR/fsck.before" "$BP_TMPDIR/fsck.after")
			hash_files "$pre" "$BP_TMPDIR/hash.before"
			hash_files "$work" "$BP_TMPDIR/hash.after"
			# Files dumped before whose hash changed or that vanished.
			changed=$(comm -23 "$BP_TMPDIR/hash.before" "$BP_TMPDIR/hash.after" |
				sed 's/^[0-9a-f]*  //')
			bad=""
			if [ -n "$changed" ]; then
				named=" $(fsck_inodes "$pre" | tr '\n' ' ') "
				while read -r p; do
					ino=$(debugfs -R "stat \"$p\"" "$pre" 2>/dev/null |
						awk '/^Inode:/ {print $2; exit}')
					case $named in *" $ino "*) continue ;; esac
					bad="$bad $p(inode ${ino:-?})"
				done <<<"$changed"
			fi
			if [ -n "$new" ]; then
				fail "success, but e2fsck -fn reports new problems: $(echo "$new" | head -3 | tr '\n' '|')"
			elif [ -n "$bad" ]; then
				fail "success, but file contents changed:$bad"
			fi
		fi
		;;
	1 | 2 | 3 | 4)
		refused=$((refused + 1))
		[ "$h0" = "$h1" ] || fail "refused (exit $rc) but the image changed"
		;;
	124)
		fail "timeout: relayout ran longer than ${FUZZ_TIMEOUT} s"
		;;
	*)
		fail "exit $rc: $(tail -2 "$BP_TMPDIR/rl.err" | tr '\n' '|')"
		;;
	esac
	echo "$n $kind seed=$seed exit=$rc $([ "$h0" = "$h1" ] && echo unchanged || echo written) $(tr '\n' ';' <"$BP_TMPDIR/mut") $(grep -o "evicted: *[0-9]* blocks" "$BP_TMPDIR/rl.out" | tr -s " ")$([ "$rc" = 0 ] || head -c 300 "$BP_TMPDIR/rl.err" | tr '\n' ' ')" >>"$FUZZ_DIR/executions.log"
	n=$((n + 1))
	if [ $((n % 50)) = 0 ]; then
		echo "# $n executions in $(($(date +%s) - t_start)) s: $refused refused, $succeeded succeeded ($wrote wrote, $nothing nothing to do), $failed failed" | tee -a "$log"
	fi
done
secs=$(($(date +%s) - t_start))
ex=""
for k in $(printf '%s\n' "${!exits[@]}" | sort -n); do ex="$ex exit$k=${exits[$k]}"; done
echo "fuzz-relayout: $n executions in $secs s (seed $FUZZ_SEED..$((FUZZ_SEED + n - 1))): $refused refused unchanged, $succeeded succeeded ($wrote wrote, $nothing nothing to do), $failed failed;$ex" | tee -a "$log"
[ "$failed" = 0 ]
