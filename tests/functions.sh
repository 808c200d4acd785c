# SPDX-License-Identifier: GPL-2.0-or-later
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
# 120 s, then goes ahead (never a hang).
BP_CACHE_LOCK=${BP_CACHE_LOCK:-/tmp/bootpack-tests-cache.lock}
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

# bp_loop_attach IMG VAR: attach IMG to a free loop device, store it in VAR.
bp_loop_attach() {
	local _bp_loopdev
	_bp_loopdev=$(losetup --find --show "$1") || bp_fail "losetup $1"
	bp_on_exit "losetup -d '$_bp_loopdev'"
	printf -v "$2" '%s' "$_bp_loopdev"
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

# bp_tracefs: print the tracefs mount point, mounting it if needed.
bp_tracefs() {
	if [ -d /sys/kernel/tracing/events ]; then echo /sys/kernel/tracing; return; fi
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && { echo /sys/kernel/tracing; return; }
	bp_skip "no tracefs"
}
