# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# trace-lib.sh --- helpers shared by the tests/ts/trace cases (sourced, not a test)

BP_TRACE_HELPERS=$top_builddir/tests/ts/trace

# tr_image VAR: a private ext4 fixture plus the test files, path in VAR.
# Their mtime is the fixture's epoch (a file modified after the boot or the
# start of a trace is left out of it).
#   /data/plain.bin   1 MiB, read with dd
#   /data/mapped.bin  1 MiB, read through mmap
#   /data/untouched.bin, never read
#   /usr/bin/bp-hello a static program, executed
tr_image() {
	local _img
	_img=$(bp_fixture ext4)
	head -c 1048576 /dev/urandom >"$BP_TMPDIR/plain.bin"
	head -c 1048576 /dev/urandom >"$BP_TMPDIR/mapped.bin"
	head -c 65536 /dev/urandom >"$BP_TMPDIR/untouched.bin"
	debugfs -w "$_img" >/dev/null 2>&1 <<-DEBUGFS
	mkdir /data
	write $BP_TMPDIR/plain.bin /data/plain.bin
	write $BP_TMPDIR/mapped.bin /data/mapped.bin
	write $BP_TMPDIR/untouched.bin /data/untouched.bin
	write $BP_TRACE_HELPERS/bp-hello /usr/bin/bp-hello
	sif /usr/bin/bp-hello mode 0100755
	sif /data/plain.bin mtime @1700000000
	sif /data/mapped.bin mtime @1700000000
	sif /data/untouched.bin mtime @1700000000
	sif /usr/bin/bp-hello mtime @1700000000
	DEBUGFS
	debugfs -R "stat /usr/bin/bp-hello" "$_img" 2>/dev/null | grep -q "Mode:  0755" ||
		bp_fail "debugfs could not add the test files"
	bp_fsck_clean "$_img"
	printf -v "$1" '%s' "$_img"
}

# tr_cold LOOP KB: set read_ahead_kb and drop every cache of the device.
tr_cold() {
	echo "$2" >"/sys/block/$(basename "$1")/queue/read_ahead_kb"
	sync
	blockdev --flushbufs "$1"
	bp_drop_caches
	bp_cache_hold
}

# tr_ranges TRACE: "path offset length" per R line, in file order.
tr_ranges() {
	awk '/^F /{p=$6} /^R /{print p, $2, $3}' "$1"
}

# tr_files TRACE: the files in first-access order.
tr_files() {
	awk '/^F /{print $6}' "$1"
}

# tr_meta_covers TRACE OFFSET: true if an M range holds the byte OFFSET.
tr_meta_covers() {
	awk -v o="$2" '/^M /{ if (o >= $2 && o < $2 + $3) f = 1 } END { exit !f }' "$1"
}

# tr_owned TRACE KIND ID INDEX: an O line of TRACE names block INDEX of owner
# KIND ID (tracefile.h: a directory's inode and logical block, a group's
# inode-table block, ...).
tr_owned() {
	awk -v k="$2" -v id="$3" -v x="$4" \
		'$1 == "O" && $2 == k && $3 == id && x >= $5 && x < $5 + $6 { f = 1 }
		 END { exit !f }' "$1"
}

# tr_ino IMG PATH: the inode number of PATH (debugfs).
tr_ino() {
	debugfs -R "stat \"$2\"" "$1" 2>/dev/null | awk '/^Inode:/{print $2; exit}'
}

# tr_dir_blocks IMG DIR: the physical byte offsets of DIR's blocks.
tr_dir_blocks() {
	local bs
	bs=$(dumpe2fs -h "$1" 2>/dev/null | awk -F: '/^Block size/{gsub(/ /, "", $2); print $2}')
	debugfs -R "blocks $2" "$1" 2>/dev/null | tr ' ' '\n' | awk -v bs="$bs" 'NF{print $1 * bs}'
}

# Instances a case leaves behind on purpose (it SIGKILLs the tracer), one
# empty file per PID, machine-wide: cases of a run with -j2, or of a
# sanitizer run beside a plain one, see each other's instances.
TR_ORPHANS=${TMPDIR:-/tmp}/bootpack-test-orphans

# tr_orphan PID: the instance of PID is orphaned on purpose until this case ends.
tr_orphan() {
	mkdir -p "$TR_ORPHANS" && : >"$TR_ORPHANS/$1" || bp_fail "cannot mark $1 in $TR_ORPHANS"
	bp_on_exit "rm -f '$TR_ORPHANS/$1'"
}

# tr_no_instance: fail if a bootpack tracefs instance was left behind by a
# process that is gone (instances of live processes belong to other tests
# running at the same time; those tr_orphan marked are left on purpose).
tr_no_instance() {
	local tfs d pid
	tfs=$(bp_tracefs)
	for d in "$tfs"/instances/bootpack-*; do
		[ -d "$d" ] || continue
		pid=${d##*/bootpack-}
		[ -e "$TR_ORPHANS/$pid" ] && continue
		if ! kill -0 "$pid" 2>/dev/null; then
			bp_fail "tracefs instance $d was left behind"
		fi
	done
}

# tr_render TEMPLATE IMG OUT: replace @INO:/path@ by the path's inode number
# in IMG, in hex (as the filemap events print it).
tr_render() {
	local p ino script=
	# shellcheck disable=SC2013  # the fixtures' paths have no spaces
	for p in $(grep -o '@INO:[^@]*@' "$1" | sort -u | sed 's/^@INO://; s/@$//'); do
		ino=$(debugfs -R "stat $p" "$2" 2>/dev/null | awk '/^Inode:/{print $2; exit}')
		[ -n "$ino" ] || bp_fail "tr_render: $p not in $2"
		script+="s|@INO:$p@|$(printf %x "$ino")|g;"
	done
	sed "$script" "$1" >"$3"
}

# tr_ranges_merged TRACE: "path offset length" with ranges that touch joined
# (R lines are also split where the file is split on disk).
tr_ranges_merged() {
	awk '/^F /{ if (n) print p, s, e - s; p = $6; n = 0 }
	     /^R /{ if (n && $2 == e) { e = $2 + $3 } else { if (n) print p, s, e - s; s = $2; e = $2 + $3; n = 1 } }
	     END { if (n) print p, s, e - s }' "$1"
}
