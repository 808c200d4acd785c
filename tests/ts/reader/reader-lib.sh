# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# reader-lib.sh --- helpers shared by the tests/ts/reader cases (sourced, not a test)

READER=${READER:-$top_builddir/bootpack-read}
RD_HELPERS=$top_builddir/tests/ts/reader

# rd_sanitized: true in a sanitizer build (configure --enable-sanitizers),
# which links nothing statically.
rd_sanitized() {
	grep -q '^SAN_CFLAGS = -fsanitize' "$top_builddir/Makefile" 2>/dev/null
}

# rd_static_reader: RD_STATIC, a statically linked reader (with its own ELF
# entry point on x86-64 and aarch64): the reader itself when configured
# --enable-static-reader, else the tests' static copy of it, the check
# program tests/ts/reader/bootpack-read-static (readahead-pack/Makemodule.am,
# built when configure can link statically: CAN_STATIC). Fails when there is
# none; a sanitizer build has none (rd_sanitized), the caller checks first.
rd_static_reader() {
	RD_STATIC=$RD_HELPERS/bootpack-read-static
	readelf -lW "$READER" | grep -q INTERP || RD_STATIC=$READER
	[ -x "$RD_STATIC" ] || bp_fail "no static reader: $RD_STATIC (libc6-dev and zlib1g-dev give one)"
	if readelf -lW "$RD_STATIC" | grep -q INTERP; then
		bp_fail "$RD_STATIC is not static"
	fi
}

# rd_trace_text IMG DEV OUT PATH...: a text trace in the ftrace layout of an
# older kernel (page-add events only: every page added counts) reading every
# page of each PATH of IMG, in argument order; DEV is "MAJ:MIN".
rd_trace_text() {
	local img=$1 dev=$2 out=$3 p ino size pages i t=0
	shift 3
	: >"$out"
	for p in "$@"; do
		read -r ino size < <(debugfs -R "stat $p" "$img" 2>/dev/null |
			awk '/^Inode:/{i=$2} /^User:.*Size: /{s=$NF} END{print i, s}')
		[ -n "$ino" ] || bp_fail "rd_trace_text: $p not in $img"
		pages=$(( (size + 4095) / 4096 ))
		for ((i = 0; i < pages; i++)); do
			t=$((t + 1))
			printf '  cat-7 [000] ..... %d.%06d: mm_filemap_add_to_page_cache: dev %s ino %x pfn=0x1 ofs=%d order=0\n' \
				$((t / 1000000 + 1)) $((t % 1000000)) "$dev" "$ino" $((i * 4096)) >>"$out"
		done
	done
}

# rd_make_pack IMG OUT PATH...: trace (imported text) then bootpack pack, uncompressed.
rd_make_pack() {
	local img=$1 out=$2
	shift 2
	rd_trace_text "$img" 7:0 "$BP_TMPDIR/rd.txt" "$@"
	"$BOOTPACK" trace --import "$BP_TMPDIR/rd.txt" -o "$BP_TMPDIR/rd.trace" --device "$img" \
		>/dev/null 2>"$BP_TMPDIR/rd.err" || { cat "$BP_TMPDIR/rd.err"; bp_fail "trace --import"; }
	"$BOOTPACK" pack --trace "$BP_TMPDIR/rd.trace" -o "$out" --compress=never "$img" \
		>/dev/null 2>"$BP_TMPDIR/rd.err" || { cat "$BP_TMPDIR/rd.err"; bp_fail "bootpack pack"; }
	chmod 0644 "$out"
}

# rd_boot_files IMG VAR: the first 40 files under /usr and /boot of the
# fixture IMG (its .files list), into the array VAR.
rd_boot_files() {
	mapfile -t "$2" < <(awk '$2 ~ /^\/(usr|boot)\// {print $2}' "$1.files" | head -n 40)
}

# rd_not_resident MNT PATH...: how many of the files MNT/PATH are not
# wholly in the page cache (mincore, one bp-mincore run a file).
rd_not_resident() {
	local _rd_mnt=$1 _rd_f _rd_n=0
	shift
	for _rd_f in "$@"; do
		[ "$("$RD_HELPERS/bp-mincore" -m "$_rd_mnt$_rd_f" 0 "$(stat -c %s "$_rd_mnt$_rd_f")")" = 0 ] ||
			_rd_n=$((_rd_n + 1))
	done
	echo "$_rd_n"
}

# The slow disks of the throttled cases: the kernel's block throttling
# (blk-throttle) of a loop device for the processes of a cgroup of the case's
# own, with cgroup v1 (blkio.throttle.read_bps_device in the blkio hierarchy)
# or cgroup v2 (io.max, rbps=, a default Debian 12 mounts nothing else).
# rd_require_blkio finds the hierarchy, mounting one where none is mounted
# (a chroot), and skips, saying why, where none can be had. RD_BLKIO: the
# v1 blkio hierarchy, else empty; RD_CG2: the v2 hierarchy used, else empty.
RD_BLKIO=/sys/fs/cgroup/blkio
RD_CG2=
# _rd_cg_mount TYPE OPTIONS: mount a cgroup hierarchy on a directory of this
# case's own (outside $BP_TMPDIR, whose removal must never reach into a
# cgroup file system), unmounted at exit; the directory on stdout.
_rd_cg_mount() {
	local _rd_dir=/run/bootpack-test-$$-$1
	mkdir -p "$_rd_dir" && mount -t "$1" -o "$2" "bootpack-test" "$_rd_dir" 2>/dev/null ||
		{ rmdir "$_rd_dir" 2>/dev/null; return 1; }
	echo "$_rd_dir"
}
rd_require_blkio() {
	local _rd_v2 _rd_v1
	[ -w "$RD_BLKIO/blkio.throttle.read_bps_device" ] && return 0
	RD_BLKIO=
	# (findmnt exits 1 when nothing matches: a chroot sees no cgroup2 mount)
	_rd_v2=$(findmnt -rn -t cgroup2 -o TARGET | head -n 1) || _rd_v2=
	if [ -z "$_rd_v2" ] && _rd_v2=$(_rd_cg_mount cgroup2 rw); then
		bp_on_exit "umount '$_rd_v2' && rmdir '$_rd_v2'"
	fi
	if [ -n "$_rd_v2" ] && grep -qw io "$_rd_v2/cgroup.controllers"; then
		# The io controller for the root's children (the root itself may hold
		# processes: a cgroup namespace's root may not, then this fails).
		grep -qw io "$_rd_v2/cgroup.subtree_control" ||
			echo +io 2>"$BP_TMPDIR/cg.err" >"$_rd_v2/cgroup.subtree_control" ||
			bp_skip "cgroup v2 at $_rd_v2: cannot enable the io controller for its children" \
				"($(head -n 1 "$BP_TMPDIR/cg.err"))"
		RD_CG2=$_rd_v2
		bp_info "slow disk: cgroup v2 io.max under $RD_CG2"
		return 0
	fi
	# No io controller in v2: it is bound to a v1 blkio hierarchy that is not
	# mounted here (a chroot on a host of cgroup v1); mounting blkio again
	# reaches that same hierarchy.
	if _rd_v1=$(_rd_cg_mount cgroup blkio); then
		bp_on_exit "umount '$_rd_v1' && rmdir '$_rd_v1'"
		if [ -w "$_rd_v1/blkio.throttle.read_bps_device" ]; then
			RD_BLKIO=$_rd_v1
			bp_info "slow disk: cgroup v1 blkio mounted at $RD_BLKIO"
			return 0
		fi
	fi
	bp_skip "no block throttling: neither a cgroup v1 blkio hierarchy nor cgroup v2 with the" \
		"io controller${_rd_v2:+ (v2 at $_rd_v2 has: $(cat "$_rd_v2/cgroup.controllers"))}"
}

# rd_slow_cgroup LOOP BPS VAR: a cgroup of this case's own, removed at exit,
# whose processes read LOOP at BPS bytes per second at most (blk-throttle
# queues their reads first come, first served, as a disk does); its
# directory in VAR (a process joins with: echo PID >"$VAR/cgroup.procs").
# After rd_require_blkio.
rd_slow_cgroup() {
	local _rd_grp _rd_maj _rd_min
	read -r _rd_maj _rd_min < <(stat -c '%t %T' "$1")
	_rd_maj=$((16#$_rd_maj)) _rd_min=$((16#$_rd_min))
	if [ -n "$RD_CG2" ]; then
		_rd_grp=$RD_CG2/bp-test-$$-$3
		mkdir "$_rd_grp" || bp_fail "cannot make the cgroup $_rd_grp"
		bp_on_exit "rmdir '$_rd_grp'"
		echo "$_rd_maj:$_rd_min rbps=$2" >"$_rd_grp/io.max" ||
			bp_fail "cannot limit $1 in $_rd_grp/io.max"
		grep -q "^$_rd_maj:$_rd_min rbps=$2 " "$_rd_grp/io.max" ||
			bp_fail "$_rd_grp/io.max: $(cat "$_rd_grp/io.max")"
	else
		_rd_grp=$RD_BLKIO/bp-test-$$-$3
		mkdir "$_rd_grp" || bp_fail "cannot make the cgroup $_rd_grp"
		bp_on_exit "rmdir '$_rd_grp'"
		echo "$_rd_maj:$_rd_min $2" >"$_rd_grp/blkio.throttle.read_bps_device" ||
			bp_fail "cannot limit $1 in $_rd_grp"
	fi
	printf -v "$3" '%s' "$_rd_grp"
}

# rd_cold LOOP: drop every cache of the device.
rd_cold() {
	sync
	blockdev --flushbufs "$1"
	bp_drop_caches
	bp_cache_hold
}

# rd_issued LOOP OUT CMD...: the page cache dropped, CMD run (exit 0 expected)
# while a tracefs instance of this case's own records the block_rq_issue
# events of LOOP (the device's own request trace, shared with nothing of
# bootpack); the trace into OUT.
rd_issued() {
	local _rd_loop=$1 _rd_out=$2 _rd_maj _rd_min _rd_inst _rd_ev
	shift 2
	read -r _rd_maj _rd_min < <(stat -c '%t %T' "$_rd_loop")
	_rd_inst=$(bp_tracefs)/instances/bp-test-$$
	mkdir "$_rd_inst" || bp_fail "cannot make a tracefs instance"
	bp_on_exit "rmdir '$_rd_inst'"
	_rd_ev=$_rd_inst/events/block/block_rq_issue
	echo "dev == $(((16#$_rd_maj << 20) | 16#$_rd_min))" >"$_rd_ev/filter"
	echo 1 >"$_rd_ev/enable"
	rd_cold "$_rd_loop"
	bp_expect_exit 0 "$@"
	echo 0 >"$_rd_ev/enable"
	cat "$_rd_inst/trace" >"$_rd_out"
	rmdir "$_rd_inst" 2>/dev/null || true	# a case may call it again
}

# rd_read_sectors LOOP: sectors read so far (field 3 of /sys/block/X/stat).
rd_read_sectors() {
	awk '{print $3}' "/sys/block/$(basename "$1")/stat"
}

# rd_standin PATH MARK: a stand-in init. It records in MARK its PID, its
# arguments, "at-start:1" if another process of its PID namespace (the
# reader) was running when it started, else "at-start:0", then waits
# (at most 20 s) until every other process of its PID namespace has ended or
# is a zombie, then appends "others-done" or "others-running" to MARK.
rd_standin() {
	cat >"$1" <<-STANDIN
	#!/bin/bash
	echo "\$\$" >"$2"
	echo "args:\$*" >>"$2"
	others=0
	for d in /proc/[0-9]*; do
		p=\${d#/proc/}
		[ "\$p" = "\$\$" ] && continue
		st=
		read -r st 2>/dev/null <"\$d/stat" || continue
		st=\${st##*) }
		[ "\${st%% *}" = Z ] || others=1
	done
	echo "at-start:\$others" >>"$2"
	for ((n = 0; n < 400; n++)); do
		others=0
		for d in /proc/[0-9]*; do
			p=\${d#/proc/}
			[ "\$p" = "\$\$" ] && continue
			st=
			read -r st 2>/dev/null <"\$d/stat" || continue
			st=\${st##*) }
			[ "\${st%% *}" = Z ] || others=1
		done
		[ \$others = 0 ] && { echo others-done >>"$2"; exit 0; }
		sleep 0.05
	done
	echo others-running >>"$2"
	STANDIN
	chmod 0755 "$1"
}

# RD_UNSHARE: the command for a new PID namespace with its own /proc. Where
# / is not a mount point (a chroot), unshare cannot make / private: then
# only /proc (a mount point, made private by --mount-proc) is.
RD_UNSHARE=(unshare --pid --fork --mount-proc --propagation private)
mountpoint -q / || RD_UNSHARE=(unshare --pid --fork --mount-proc --propagation unchanged)

# rd_pid1 MARK ARGS...: run bootpack-read as PID 1 of a new PID namespace
# with a stand-in init (stderr log in $BP_TMPDIR/pid1.log); fails if it
# takes more than 30 s, if the stand-in did not run as PID 1, or if the
# reading child was still running after 20 s.
rd_pid1() {
	local mark=$1 rc=0
	shift
	rm -f "$mark"
	rd_standin "$BP_TMPDIR/standin" "$mark"
	timeout 30 "${RD_UNSHARE[@]}" "$READER" --log=stderr --config=none \
		--init "$BP_TMPDIR/standin" "$@" >"$BP_TMPDIR/pid1.out" 2>"$BP_TMPDIR/pid1.log" || rc=$?
	[ $rc -ne 124 ] || bp_fail "bootpack-read as PID 1 hung ($*)"
	[ -s "$mark" ] || { cat "$BP_TMPDIR/pid1.log"; bp_fail "init was not exec'd ($*)"; }
	[ "$(head -n 1 "$mark")" = 1 ] || bp_fail "init ran as PID $(head -n 1 "$mark"), not 1"
	bp_grep '^others-done$' "$mark"
}

# rd_canary_set / rd_canary_lost: other tests on this machine drop every
# cache at any time (drop_caches). A canary file read into the cache before
# a residency check and gone after it says that happened: the check is
# then retried rather than failed.
rd_canary_set() {
	[ -f "$BP_TMPDIR/canary" ] || head -c 4194304 /dev/urandom >"$BP_TMPDIR/canary"
	cat "$BP_TMPDIR/canary" >/dev/null
}
rd_canary_lost() {
	[ "$("$RD_HELPERS/bp-mincore" -m "$BP_TMPDIR/canary" 0 4194304)" != 0 ]
}

# rd_bare_root ROOT: a root with no shell for a bare init: the reader and
# the C stand-in init under ROOT/bare with their shared libraries, the ELF
# interpreter at its usual path, an empty ROOT/dev. (A static reader, of
# --enable-static-reader, has none: ldd fails on it.)
rd_bare_root() {
	local root=$1 lib interp=
	mkdir -p "$root/dev" "$root/bare/lib"
	cp "$READER" "$root/bare/bootpack-read"
	cp "$RD_HELPERS/bp-standin" "$root/bare/standin"
	while read -r lib; do
		cp -L "$lib" "$root/bare/lib/"
		case $lib in */ld-linux*|*/ld-musl*|*/ld.so*) interp=$lib ;; esac
	done < <(for b in "$READER" "$RD_HELPERS/bp-standin"; do ldd "$b" || :; done | grep -o '/[^ ]*' | sort -u)
	[ -n "$interp" ] || bp_fail "no ELF interpreter found for $READER"
	mkdir -p "$root$(dirname "$interp")"
	cp -L "$interp" "$root$interp"
}

# rd_bare_boot ROOT MODE [VAR=VALUE...] -- [READER-OPTIONS] [-- INIT-ARGS]:
# bootpack-read as PID 1 of new PID and mount namespaces, chrooted into ROOT
# (made by rd_bare_root): no /proc, no /sys, nothing mounted on /dev (MODE
# empty) or devtmpfs (MODE devtmpfs); its environment VAR=VALUE only, as
# the kernel gives init its arguments without a dot. Init must have run as
# PID 1 and the root's /dev must still be empty. Log in $BP_TMPDIR/pid1.log.
rd_bare_boot() {
	local root=$1 mode=$2 rc=0 envs=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	rm -f "$root/bare/mark"
	timeout 60 unshare --pid --fork --mount --propagation unchanged bash -c '
		root=$1 mode=$2 n=$3
		shift 3
		mount --make-rprivate "$root" || exit 1
		if [ "$mode" = devtmpfs ]; then mount -t devtmpfs none "$root/dev" || exit 1; fi
		exec env -i LD_LIBRARY_PATH=/bare/lib BP_MARK=/bare/mark "${@:1:n}" \
			"$(command -v chroot)" "$root" \
			/bare/bootpack-read --config=none --init /bare/standin "${@:n+1}"
	' bare "$root" "$mode" "${#envs[@]}" "${envs[@]}" "$@" \
		>"$BP_TMPDIR/pid1.out" 2>"$BP_TMPDIR/pid1.log" || rc=$?
	cat "$BP_TMPDIR/pid1.log"
	[ $rc -ne 124 ] || bp_fail "bootpack-read as PID 1 hung ($mode $*)"
	[ -s "$root/bare/mark" ] || bp_fail "init was not exec'd ($mode $*)"
	[ "$(head -n 1 "$root/bare/mark")" = 1 ] ||
		bp_fail "init ran as PID $(head -n 1 "$root/bare/mark"), not 1"
	bp_grep '^others-done$' "$root/bare/mark"
	[ -z "$(ls -A "$root/dev")" ] || bp_fail "the root's /dev was written to: $(ls -A "$root/dev")"
}
