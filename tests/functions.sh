# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# functions.sh --- sourced by every shell test case
#
# A case exits 0 (pass), 77 (skip, with a reason) or anything else (fail).
# Everything it creates lives under $BP_TMPDIR; loop devices and mounts are
# registered with bp_on_exit and released in reverse order even on failure.
#
# Cases run under "set -e": a failing command fails the case. To look at an
# exit status, write "rc=0; cmd || rc=$?" or use bp_expect_exit. Helpers that
# register cleanups (bp_loop_attach, bp_mount) must not run in $(...): they
# return their result in a variable named by the caller.

set -eEu
set -o pipefail

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
export LC_ALL=C TZ=UTC E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null E2FSPROGS_SKIP_PROGRESS=yes
BOOTPACK=${BOOTPACK:-$top_builddir/bootpack}
BP_CACHE=${BP_CACHE:-$top_builddir/tests/cache}

bp_skip() { echo "SKIP: $*"; exit 77; }
bp_fail() { echo "FAIL: $*" >&2; exit 1; }
bp_info() { echo "# $*"; }

bp_require_root() { [ "$(id -u)" = 0 ] || bp_skip "needs root"; }
bp_require_cmd() {
	local c
	for c in "$@"; do command -v "$c" >/dev/null 2>&1 || bp_skip "needs $c"; done
}

BP_TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/bootpack-test.XXXXXX")
export BP_TMPDIR
_bp_cleanups=()
bp_on_exit() { _bp_cleanups+=("$*"); }
_bp_cleanup() {
	local i
	for ((i = ${#_bp_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_bp_cleanups[i]}" >/dev/null 2>&1 || true
	done
	rm -rf "$BP_TMPDIR"
}
trap _bp_cleanup EXIT
trap 'exit 130' INT TERM HUP

# Page-cache drops. A case that checks what is resident (mincore) or what a
# command reads (a trace) holds a shared lock from its own drop to its end
# (bp_cache_hold); every drop takes the lock exclusively (bp_drop_caches),
# dropping the caller's shared hold first. So no case's drop_caches lands in
# another case's window, however many cases run at once. A drop waits at most
# 120 s, then goes ahead (never a hang). The lock is the file every drop
# writes to, /proc/sys/vm/drop_caches (flock(2) on it, nothing written): it
# is shared by whoever shares this kernel's page cache and /proc, a chroot
# and its host included, whose /tmp differ (a lock file in /tmp let the
# host's cases drop the cache inside a chroot's windows). Where it cannot
# be opened for writing (not root, a read-only /proc/sys), a file in /tmp.
if [ -z "${BP_CACHE_LOCK:-}" ]; then
	BP_CACHE_LOCK=/tmp/bootpack-tests-cache.lock
	{ : >>/proc/sys/vm/drop_caches; } 2>/dev/null && BP_CACHE_LOCK=/proc/sys/vm/drop_caches
fi
_bp_cache_fd=
bp_drop_caches() {
	local fd
	if [ -n "$_bp_cache_fd" ]; then
		exec {_bp_cache_fd}>&-
		_bp_cache_fd=
	fi
	sync
	exec {fd}>>"$BP_CACHE_LOCK"
	flock -w 120 -x "$fd" || bp_info "cache lock busy for 120 s: dropping anyway"
	echo 3 >/proc/sys/vm/drop_caches
	exec {fd}>&-
}
bp_cache_hold() {
	[ -n "$_bp_cache_fd" ] && return 0
	exec {_bp_cache_fd}>>"$BP_CACHE_LOCK"
	flock -w 120 -s "$_bp_cache_fd" || bp_info "cache lock busy for 120 s: going on without it"
}

# bp_kmsg_mark / bp_kmsg_grep: the kernel log written after a mark. (Counting
# dmesg lines fails once the ring buffer is full: old lines drop as new ones
# come, so the count stays the same.)
bp_kmsg_mark() {
	_bp_kmsg_mark="bootpack-test-mark-$$-$RANDOM$RANDOM"
	echo "$_bp_kmsg_mark" >/dev/kmsg
}
# bp_kmsg_grep ERE: does the kernel log since the mark hold a line matching ERE?
bp_kmsg_grep() {
	dmesg | sed -n "/$_bp_kmsg_mark/,\$p" >"$BP_TMPDIR/kmsg.since"
	grep -qE -- "$1" "$BP_TMPDIR/kmsg.since"
}

# bp_loop_attach IMG VAR [OPTION...]: attach IMG to a free loop device
# (losetup OPTIONs, e.g. --sizelimit 64M, -P), store it in VAR.
bp_loop_attach() {
	local _bp_loopdev
	_bp_loopdev=$(losetup --find --show "${@:3}" "$1") || bp_fail "losetup $1"
	# At exit, detach it only if it is still ours: the case may have
	# detached it already, and a case running beside it may have been given
	# the same device since (its mount then fails: "can't read superblock").
	bp_on_exit "losetup -j '$1' | grep -q '^$_bp_loopdev:' && losetup -d '$_bp_loopdev'"
	printf -v "$2" '%s' "$_bp_loopdev"
}

# bp_loop_detach DEV IMG: detach DEV and wait (up to 10 s) until IMG is no
# longer attached to it. losetup -d only marks a device that someone still
# holds (udev's blkid probe after the umount) for autoclear; a relayout run
# right after would refuse the image as attached.
bp_loop_detach() {
	local i
	losetup -d "$1" 2>/dev/null || :
	for i in $(seq 100); do
		losetup -j "$2" | grep -q "^$1:" || return 0
		[ "$i" != 10 ] || udevadm settle 2>/dev/null || :
		sleep 0.1
	done
	bp_fail "$2 still attached to $1 10 s after losetup -d"
}

# bp_mount DEV DIR [mount options]
bp_mount() {
	mkdir -p "$2"
	mount ${3:+-o "$3"} "$1" "$2" || bp_fail "mount $1 $2"
	bp_on_exit "umount -l '$2'"
}

# bp_fixture [--aged] KIND: print the path of a private copy of a fixture
# image. Images are generated once per build tree into $BP_CACHE.
bp_fixture() {
	local aged="" kind name cached
	if [ "$1" = "--aged" ]; then aged=--aged; shift; fi
	kind=$1
	name=$kind${aged:+-aged}
	cached=$BP_CACHE/$name.img
	mkdir -p "$BP_CACHE"
	(
		flock 9
		if [ ! -s "$cached" ]; then
			"$top_srcdir/fixtures/mkfixture.sh" $aged --bindir "$top_builddir/fixtures" \
				"$kind" "$cached.tmp" >"$cached.log" 2>&1 ||
				{ cat "$cached.log" >&2; exit 1; }
			[ -f "$cached.tmp.files" ] && mv "$cached.tmp.files" "$cached.files"
			mv "$cached.tmp" "$cached"
		fi
	) 9>"$cached.lock" || bp_fail "cannot generate fixture $name"
	cp --sparse=always "$cached" "$BP_TMPDIR/$name.img"
	[ -f "$cached.files" ] && cp "$cached.files" "$BP_TMPDIR/$name.img.files"
	echo "$BP_TMPDIR/$name.img"
}

# bp_fsck_clean IMG: e2fsck -fn must exit 0.
bp_fsck_clean() {
	local out rc=0
	out=$(e2fsck -fn "$1" 2>&1) || rc=$?
	[ $rc -eq 0 ] || { echo "$out" >&2; bp_fail "e2fsck -fn $1 exited $rc"; }
}

# bp_hash_files IMG: "sha256  /path" for every regular file, sorted by path,
# read through libext2fs (debugfs rdump), so no mount is needed.
bp_hash_files() {
	local d
	d=$(mktemp -d "$BP_TMPDIR/rdump.XXXXXX")
	debugfs -R "rdump / $d" "$1" >/dev/null 2>&1 || bp_fail "debugfs rdump $1"
	(cd "$d" && find . -type f -print0 | sort -z | xargs -0r sha256sum | sed 's|  \./|  /|')
	rm -rf "$d"
}

# bp_expect_exit CODE CMD...: run CMD, fail unless it exits CODE. Output is
# kept in $BP_TMPDIR/out and $BP_TMPDIR/err.
bp_expect_exit() {
	local want=$1 rc=0
	shift
	"$@" >"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "--- stdout"; cat "$BP_TMPDIR/out"; echo "--- stderr"; cat "$BP_TMPDIR/err"
		bp_fail "'$*' exited $rc, expected $want"
	fi
}

# bp_grep PATTERN FILE: fail unless FILE matches.
bp_grep() {
	grep -qE -- "$1" "$2" || { echo "--- $2:"; cat "$2"; bp_fail "no match for /$1/ in $2"; }
}

# bp_nobody_bootpack VAR: a copy of $BOOTPACK that nobody (uid 65534) can
# run, its path in VAR. The build tree may lie where nobody cannot reach: a
# clone under /root (mode 0700). The copy, in $BP_TMPDIR/nobody-bin, is the
# same bytes; $BP_TMPDIR is made 0755. Skips, saying why, if nobody cannot
# reach $BP_TMPDIR (a TMPDIR under such a directory).
bp_nobody_bootpack() {
	local _bp_bin=$BP_TMPDIR/nobody-bin
	chmod 0755 "$BP_TMPDIR"
	mkdir -m 0755 "$_bp_bin"
	install -m 0755 "$BOOTPACK" "$_bp_bin/bootpack"
	cmp -s "$BOOTPACK" "$_bp_bin/bootpack" || bp_fail "cannot copy $BOOTPACK to $_bp_bin"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$_bp_bin/bootpack" ||
		bp_skip "nobody cannot reach $BP_TMPDIR (TMPDIR=${TMPDIR:-/tmp}): set TMPDIR to" \
			"a directory every user can enter"
	# a sanitizer build reads LSAN_OPTIONS' suppressions file as nobody too
	local _bp_supp=${LSAN_OPTIONS:-}
	case $_bp_supp in
	*suppressions=*)
		_bp_supp=${_bp_supp#*suppressions=}
		_bp_supp=${_bp_supp%%:*}
		if [ -f "$_bp_supp" ]; then
			install -m 0644 "$_bp_supp" "$_bp_bin/lsan.supp"
			export LSAN_OPTIONS=${LSAN_OPTIONS//"$_bp_supp"/"$_bp_bin/lsan.supp"}
		fi ;;
	esac
	printf -v "$1" '%s' "$_bp_bin/bootpack"
}

# bp_tracefs: print the tracefs mount point, mounting it if needed.
bp_tracefs() {
	if [ -d /sys/kernel/tracing/events ]; then echo /sys/kernel/tracing; return; fi
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && { echo /sys/kernel/tracing; return; }
	bp_skip "no tracefs"
}

# bp_layout_check [--any-order] IMG SPEC...: the layout oracle of the relayout and bench
# cases. It shares nothing with bootpack: only debugfs reads IMG. SPEC is
# what rl_mktrace takes, in first-access order: PATH (the whole file) or
# PATH@OFF+LEN[,OFF+LEN...] (bytes), a range optionally suffixed /T (its
# first-access time; else ranges get increasing times in the order given).
# It holds (returns 0) when
#  1. metadata first: the directories on the traced paths, walked whole in
#     the order the files first meet them, lie one after another and all
#     before the first data block; then, walking the traced ranges by
#     first-access time, every data block lies after the one before it: the
#     boot set is in first-access order, and its directories were moved
#     with it;
#  2. every extent-tree block of a traced file (debugfs ETB) and every
#     IND/DIND/TIND block whose first mapped block is traced lies between
#     the lowest and the highest of those blocks: the tree was moved too;
#  3. every block of that region belongs (debugfs icheck) to a traced file
#     or to a directory on a traced path: the boot set is one contiguous
#     stream with nothing foreign in it.
# Otherwise it prints what does not hold and returns 1. --any-order drops
# the order of 1 (ranges below the minimum piece are merged with their
# neighbours: the order is then not the trace's); 2 and 3 still hold.
# --holes lets the region of 3 hold fixed group metadata too (superblock
# backups, group descriptors, reserved GDT blocks, bitmaps, inode tables, as
# dumpe2fs lists them): a region spanning block groups steps over it; the
# "# layout:" line then says how many such holes the region has.
# Holes and files with inline data hold no blocks and count for nothing; a
# hard link counts once. On success it prints one "# layout: ..." line and
# sets BP_LAYOUT_FIRST and BP_LAYOUT_LAST, the region's first and last block.
bp_layout_check() {
	local img spec path rl r t=0 first p d bs rc=0 lo hi owners anyorder=0 holes=0 nholes=0
	local -A seen=()
	while :; do
		case $1 in
		--any-order) anyorder=1 ;;
		--holes) holes=1 ;;
		*) break ;;
		esac
		shift
	done
	img=$1
	shift
	BP_LAYOUT_FIRST='' BP_LAYOUT_LAST=''
	bs=$(dumpe2fs -h "$img" 2>/dev/null | awk -F': *' '/^Block size/ {print $2}')
	[ -n "$bs" ] || { echo "layout: dumpe2fs cannot read $img"; return 1; }
	# "T PATH OFF LEN" per range (LEN -1: the whole file), sorted by time.
	for spec in "$@"; do
		path=${spec%%@*}
		if [ "$spec" = "$path" ]; then rl="0+-1"; else rl=${spec#*@}; fi
		IFS=, read -ra rs <<<"$rl"
		for r in "${rs[@]}"; do
			if [[ $r == */* ]]; then first=${r#*/}; r=${r%/*}; else t=$((t + 1000)); first=$t; fi
			echo "$first $path ${r%+*} ${r#*+}"
		done
	done | sort -s -n -k1,1 >"$BP_TMPDIR/layout.ranges"
	# One debugfs session: stat every traced path and every directory above one.
	for spec in "$@"; do
		p=${spec%%@*}
		d=$p
		while [ "$d" != / ] && [ -n "$d" ]; do
			d=${d%/*}
			[ -n "$d" ] || d=/
			seen[$d]=1
		done
		seen[$p]=1
	done
	for p in "${!seen[@]}"; do printf 'stat "%s"\n' "$p"; done >"$BP_TMPDIR/layout.cmd"
	debugfs -f "$BP_TMPDIR/layout.cmd" "$img" >"$BP_TMPDIR/layout.stat" 2>/dev/null
	awk -v bs="$bs" -v anyorder=$anyorder '
		# pass 1: debugfs stat output; pass 2: the sorted ranges
		FNR == NR && /^debugfs: stat "/ { p = substr($0, 16, length($0) - 16); inblk = 0; next }
		FNR == NR && /^Inode:/ { ino[p] = $2; h = tolower($NF); sub(/^0x/, "", h)
			# EXT4_INLINE_DATA_FL 0x10000000: bit 0 of the 8th hex digit from the right
			if (length(h) >= 8 && index("13579bdf", substr(h, length(h) - 7, 1))) inl[p] = 1
			next }
		FNR == NR && /^(EXTENTS|BLOCKS):/ { inblk = 1; nm = 0; next }
		FNR == NR && inblk && /^TOTAL:/ { inblk = 0; next }
		FNR == NR && inblk {
			n = split($0, e, /, */)
			for (i = 1; i <= n; i++) {
				if (e[i] !~ /^\(/) continue
				split(e[i], kv, /:/)
				k = kv[1]; gsub(/[()]/, "", k); v = kv[2]
				if (k ~ /^(ETB[0-9]+|IND|DIND|TIND)$/) {
					meta[p, ++nmeta[p]] = v + 0; metapend[p, ++npend[p]] = nmeta[p]
					if (k ~ /^ETB/) etb[p, nmeta[p]] = 1
					continue
				}
				split(k, l, /-/); if (l[2] == "") l[2] = l[1]
				split(v, b, /-/)
				for (j = l[1]; j <= l[2]; j++) {
					map[p, j] = b[1] + (j - l[1])
					order[p, ++nblk[p]] = j
				}
				# an indirect block maps the next data block listed after it
				for (j = 1; j <= npend[p]; j++) metafirst[p, metapend[p, j]] = l[1]
				npend[p] = 0
			}
			next
		}
		function put(blk, what) {
			if (!anyorder && last != "" && blk <= last) {
				printf "layout: %s at block %d, not after block %d (%s)\n", what, blk, last, lastwhat
				bad = 1
			}
			if (lo == "" || blk < lo) lo = blk
			if (hi == "" || blk > hi) hi = blk
			if (dlo == "" || blk < dlo) dlo = blk
			last = blk; lastwhat = what; nput++
		}
		function putdir(blk, what) {
			if (!anyorder && dlast != "" && blk <= dlast) {
				printf "layout: %s at block %d, not after block %d (%s)\n", what, blk, dlast, dlastwhat
				bad = 1
			}
			if (lo == "" || blk < lo) lo = blk
			if (hi == "" || blk > hi) hi = blk
			if (dhi == "" || blk > dhi) { dhi = blk; dhiwhat = what }
			dlast = blk; dlastwhat = what; nput++
		}
		function walk_dirs(path,   q, i, n, parts, j) {
			n = split(path, parts, "/"); q = ""
			for (i = 1; i < n; i++) {
				q = (i == 1) ? "/" : (q == "/" ? "" : q) "/" parts[i]
				if (done[q]++) continue
				owner[ino[q]] = 1; ndirs++
				for (j = 1; j <= nblk[q]; j++) { putdir(map[q, order[q, j]], "directory " q); ndirblk++ }
			}
		}
		FNR != NR {
			p = $2; off = $3; len = $4
			if (!(p in ino)) { printf "layout: %s not found\n", p; bad = 1; next }
			if (inl[p]) next
			if (!started[p]++) {
				if (seenino[ino[p]]++) { alias[p] = 1; next }
				walk_dirs(p); owner[ino[p]] = 1; files[++nfiles] = p
			}
			if (alias[p]) next
			a = int(off / bs); z = (len < 0) ? -1 : int((off + len - 1) / bs)
			for (i = 1; i <= nblk[p]; i++) {
				j = order[p, i]
				if (j < a || (z >= 0 && j > z) || traced[p, j]++) continue
				put(map[p, j], p " block " j); ndata++
			}
			next
		}
		END {
			for (f = 1; f <= nfiles; f++) {
				p = files[f]
				for (i = 1; i <= nmeta[p]; i++) {
					if (!etb[p, i] && !traced[p, metafirst[p, i]]) continue
					ntree++
					if (meta[p, i] < lo || meta[p, i] > hi) {
						printf "layout: %s: tree block %d outside the boot region %d..%d\n", p, meta[p, i], lo, hi
						bad = 1
					}
				}
			}
			if (!anyorder && dhi != "" && dlo != "" && dhi >= dlo) {
				printf "layout: %s at block %d, not before the first data block %d\n", dhiwhat, dhi, dlo
				bad = 1
			}
			for (o in owner) own = own " " o
			printf "REGION %d %d%s\n", lo, hi, own
			printf "SUMMARY %d files, %d directories (%d blocks), %d data blocks, %d tree blocks\n", nfiles, ndirs, ndirblk, ndata, ntree
			exit bad
		}' "$BP_TMPDIR/layout.stat" "$BP_TMPDIR/layout.ranges" >"$BP_TMPDIR/layout.out" || rc=1
	grep '^layout:' "$BP_TMPDIR/layout.out" | head -n 20 || true
	read -r _ lo hi owners < <(grep '^REGION ' "$BP_TMPDIR/layout.out")
	[ -n "$lo" ] || { echo "layout: no traced block"; return 1; }
	# --holes: the fixed metadata blocks dumpe2fs lists ("Block bitmap at 97 (+97)",
	# "Inode table at 99-226", ...), one a line, left out of 3.
	: >"$BP_TMPDIR/layout.holes"
	if [ $holes = 1 ]; then
		dumpe2fs "$img" 2>/dev/null | awk '
			/^Group [0-9]+:/ { grp = 1 }
			grp { n = split($0, part, /,/)
				for (i = 1; i <= n; i++) {
					q = part[i]
					if (q !~ /(superblock|descriptors|GDT blocks|Block bitmap|Inode bitmap|Inode table) at [0-9]/) continue
					sub(/.* at /, "", q); sub(/[^0-9-].*/, "", q)
					m = split(q, b, /-/); if (m < 2) b[2] = b[1]
					for (x = b[1]; x <= b[2]; x++) print x
				} }' >"$BP_TMPDIR/layout.holes"
	fi
	# 3. icheck: "block inode" lines; a block of no one says "<block not found>".
	seq "$lo" "$hi" | awk -v hf="$BP_TMPDIR/layout.holes" '
		BEGIN { while ((getline x < hf) > 0) hole[x] = 1 }
		$1 in hole { if (!inhole) nh++; inhole = 1; next }
		{ inhole = 0; printf "%s%s", (n++ % 512 == 0) ? (n > 1 ? "\nicheck " : "icheck ") : " ", $1 }
		END { print ""; print nh + 0 > (hf ".n") }' >"$BP_TMPDIR/layout.icmd"
	nholes=$(cat "$BP_TMPDIR/layout.holes.n")
	debugfs -f "$BP_TMPDIR/layout.icmd" "$img" 2>/dev/null | awk -v own=" $owners " '
		/^debugfs:|^Block/ { next }
		index(own, " " $2 " ") == 0 { if (n++ < 10) print "layout: block " $1 " in the boot region belongs to " $2 " " $3 " " $4; bad = 1 }
		END { exit bad }' || rc=1
	[ $rc = 0 ] || return 1
	# shellcheck disable=SC2034  # read by the cases (region-option.sh)
	BP_LAYOUT_FIRST=$lo BP_LAYOUT_LAST=$hi
	echo "# layout: one run $lo..$hi$([ $holes = 0 ] || echo " over $nholes holes of fixed metadata")$([ $anyorder = 1 ] || echo " in first-access order");" \
		"$(sed -n 's/^SUMMARY //p' "$BP_TMPDIR/layout.out")"
	return 0
}

# bp_trace_reads IMG OUT PATH...: record with bootpack trace (tracefs) a
# cold "cat" of PATHs of IMG (globs allowed), IMG loop-mounted read-only
# with 128 KiB readahead; the trace goes to OUT, the paths cat read, in
# order, to OUT.paths. Unmounts and detaches before returning.
bp_trace_reads() {
	local img=$1 out=$2 dev m p
	shift 2
	bp_loop_attach "$img" dev
	m=$BP_TMPDIR/trace-mnt
	bp_mount "$dev" "$m" ro
	echo 128 >"/sys/block/${dev#/dev/}/queue/read_ahead_kb"
	(cd "$m" && for p in "$@"; do eval "printf '/%s\n' ${p#/}"; done) >"$out.paths"
	sync
	bp_drop_caches
	"$BOOTPACK" trace -o "$out" --device "$dev" -- sh -c "cd '$m' && cat $(sed 's/^\///' "$out.paths" | tr '\n' ' ') >/dev/null" ||
		bp_fail "bootpack trace"
	umount "$m"
	bp_loop_detach "$dev" "$img"
}

# bp_trace_specs TRACE: the ranges of a bootpack trace (text format) as
# bp_layout_check SPECs, "PATH@OFF+LEN/T,...", one a file record.
bp_trace_specs() {
	awk '
		function out() { if (p != "" && r != "") print p "@" r }
		$1 == "F" { out(); p = $6; gsub(/%20/, " ", p); gsub(/%25/, "%", p); r = ""; next }
		$1 == "R" && p != "" { r = r (r == "" ? "" : ",") $2 "+" $3 "/" $4; next }
		$1 != "R" { out(); p = ""; r = "" }
		END { out() }' "$1"
}

# bp_golden NAME FILE: compare FILE, after the usual filter, with the golden
# output tests/expected/NAME (e2fsprogs' "expect" files): fail with the diff
# if they differ. The filter replaces this case's temporary directory with
# @TMP@ and the pack's creation time with @TIME@. With BP_GOLDEN_UPDATE=1
# the golden file is written instead (review the diff before committing).
bp_golden() {
	local want=$top_srcdir/tests/expected/$1
	sed -e "s|$BP_TMPDIR|@TMP@|g" -e 's/^Created: .*/Created:       @TIME@/' "$2" >"$BP_TMPDIR/golden.$1"
	if [ "${BP_GOLDEN_UPDATE:-0}" = 1 ]; then
		mkdir -p "$(dirname "$want")"
		cp "$BP_TMPDIR/golden.$1" "$want"
		bp_info "wrote $want"
		return 0
	fi
	[ -f "$want" ] || bp_fail "no golden output $want (BP_GOLDEN_UPDATE=1 writes it)"
	diff -u "$want" "$BP_TMPDIR/golden.$1" ||
		bp_fail "$1: output differs from tests/expected/$1 (BP_GOLDEN_UPDATE=1 rewrites it)"
}
