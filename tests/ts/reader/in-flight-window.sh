#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --in-flight: the reader keeps at most SIZE of file reads queued or in
# flight, so a read the boot issues itself waits behind that much at most.
# The disk is a loop device slowed to 4 MiB/s for the processes of a cgroup
# of our own (block throttling, cgroup v1 blkio or v2 io.max, queues their
# reads first come, first served, as a disk does). While bootpack-read
# streams a 36 MiB pack there, a 4 KiB read of a file outside the pack is
# issued from the same cgroup; what of the pack became resident (mincore,
# from outside) while it waited is what was queued ahead of it: at most
# the window and a read or two with --in-flight=2M (also where the disk's
# request size cannot be read: no /sys), most of the pack with
# --in-flight=64M.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup debugfs mke2fs dd unshare
rd_require_blkio

d=$BP_TMPDIR/tree
mkdir -p "$d"
big=()
for i in 1 2 3 4 5 6; do
	head -c $((6 << 20)) /dev/urandom >"$d/big$i"
	big+=("/big$i")
done
head -c $((2 << 20)) /dev/urandom >"$d/other"
img=$BP_TMPDIR/win.img
mke2fs -q -F -t ext4 -b 4096 -d "$d" "$img" 64M || bp_fail "mke2fs -d"
rm -rf "$d"
pack=$BP_TMPDIR/pack
rd_make_pack "$img" "$pack" "${big[@]}"
bp_loop_attach "$img" loop
mnt=$BP_TMPDIR/mnt
bp_mount "$loop" "$mnt" ro

rd_slow_cgroup "$loop" $((4 << 20)) grp

# ranges: the pack's files as bp-mincore -l reads them; resident: their
# pages in the page cache, counted in one bp-mincore process (one a file
# took 0.3 s in a sanitizer build, while the reader streamed 1.3 MiB more)
ranges() {
	local f
	for f in "${big[@]}"; do
		printf '%s\t0\t%d\n' "$mnt$f" $((6 << 20))
	done
}
resident() {
	ranges | "$RD_HELPERS/bp-mincore" -l | awk -v all=$((${#big[@]} * 1536)) '{ m += $1 } END { print all - m }'
}

# ahead WINDOW [nosys]: bytes of the pack that became resident while the
# read of another file waited, the reader streaming with --in-flight WINDOW
# (nosys: in a mount namespace without /sys, where the disk's request size
# cannot be read)
ahead() {
	local m0 m1 n pre=()
	# (/sys made private by hand and hidden under an empty tmpfs, not by
	# unshare: where / is not a mount point, a chroot, unshare cannot
	# change /'s propagation)
	[ "${2:-}" = nosys ] &&
		pre=(unshare --mount --propagation unchanged sh -c \
			'mount --make-rprivate /sys && mount -t tmpfs none /sys && exec "$@"' sh)
	rd_cold "$loop"
	(
		echo $BASHPID >"$grp/cgroup.procs"
		"${pre[@]}" "$READER" --no-exec --config=none --log=stderr --method=uring --root "$mnt" \
			--pack "$pack" --in-flight "$1" >"$BP_TMPDIR/rd.log" 2>&1 &
		rpid=$!
		# let it stream: 2 MiB resident
		for ((n = 0; n < 400; n++)); do
			[ "$(resident)" -ge 512 ] && break
			sleep 0.05
		done
		# the pages missing before and after a 4 KiB read of another file,
		# in one process: nothing but that read between the two counts (two
		# processes and a dd, slow to start in a sanitizer build on a loaded
		# machine, once let the 2M window measure 10 MiB)
		read -r m0 m1 < <(ranges | "$RD_HELPERS/bp-mincore" -a "$mnt/other") ||
			{ echo "bp-mincore -a failed" >&2; exit 1; }
		wait $rpid || { cat "$BP_TMPDIR/rd.log" >&2; exit 1; }
		echo $(((m0 - m1) * 4096))
	) || bp_fail "bootpack-read --in-flight $1 failed"
}

small=$(ahead 2M)
nosys=$(ahead 2M nosys)
large=$(ahead 64M)
bp_info "resident while the other read waited: $small bytes (--in-flight 2M), $nosys (2M, no sysfs), $large (64M)"
# 2 MiB window + 1 MiB read being filled + the other read's own readahead
[ "$small" -le $((4 << 20)) ] || bp_fail "--in-flight 2M: $small bytes were read ahead of the other read"
[ "$nosys" -le $((4 << 20)) ] ||
	bp_fail "--in-flight 2M without sysfs: $nosys bytes were read ahead of the other read"
[ "$large" -ge $((12 << 20)) ] ||
	bp_fail "--in-flight 64M: only $large bytes ahead of the other read (the test cannot tell)"
bp_grep ' 6 files, 0 skipped' "$BP_TMPDIR/rd.log"
