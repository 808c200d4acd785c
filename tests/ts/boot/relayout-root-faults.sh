#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot 2 never hangs and never fails the boot (issue 23): the generated
# relayout-root.sh runs, with /bin/sh, in a mount namespace of its own (a
# tmpfs on /run, the kernel command line, /dev/console and /dev/kmsg bound
# to files, no battery) on a loop device of a small image, with tools that
# misbehave in front of PATH:
#  - a bootpack that hangs ignoring SIGTERM (in the relayout, in the dry
#    run), one that stops on SIGTERM as relayout does before a write (32),
#    one that exits with each documented code, one that fills the tmpfs
#    (ENOSPC) and exits 8, a debugfs and an e2fsck that hang;
#  - the real bootpack: a relayout that completes, one whose undo file
#    would not fit in the tmpfs (skipped before any write, not exit 8), and
#    one on a device shorter than the root (refused, exit 4).
# Every run must exit 0 within the limit + grace (+4 s), leave one status
# line in /run/bootpack/relayout.status (and on the console), and with the
# real bootpack leave the image e2fsck-clean.
#
# BP_FUZZ_RUNS=N (make fuzz-boot2) adds N runs with a random fault, limit
# and tmpfs size each; it prints the count of each outcome.
# FUZZ (da3bd5a, dash, beside other test runs): 60 random runs + the 15
# fixed ones, 0 failures. Outcomes of the 60: skipped undo file would not
# fit 12 (every real run: the fuzz tmpfs is at most 4 MiB), skipped at the
# time limit 22 (before any write 11, checking 8, planning 3), skipped
# time limit reached before a step 5, debugfs killed 1, killed (SIGKILL) 1,
# by exit code 19 (no pack 5, refused 4, 137 4, after writes 4, 1 2).
# Earlier runs found two bugs, fixed in da3bd5a and the in_time() steps.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd unshare mke2fs losetup debugfs e2fsck mkfifo df dash
# The script mounts on /run, a directory of /: where / is not a mount point
# (a chroot) no namespace can make that mount private, and it would reach
# the host's namespace through /'s propagation.
mountpoint -q / ||
	bp_skip "/ is not a mount point (a chroot): the boot script's mounts on /run cannot be kept private"
unshare -m true 2>"$BP_TMPDIR/unshare.err" ||
	bp_skip "cannot create a mount namespace: $(head -n 1 "$BP_TMPDIR/unshare.err")"

script=$top_builddir/boot/relayout-root.sh
[ -f "$script" ] || bp_fail "$script is not built"
statedir=$(sed -n 's/^STATEDIR=//p' "$script")

# the image: a few files, the loop state in phase relayout and a real trace
img=$BP_TMPDIR/root.img
truncate -s 64M "$img"
mke2fs -q -F -t ext4 "$img"
mnt=$BP_TMPDIR/mnt
bp_mount "$img" "$mnt" loop
mkdir -p "$mnt$statedir" "$mnt/usr/lib/x"
for i in 1 2 3 4 5 6; do
	head -c $((512 * 1024)) /dev/urandom >"$mnt/usr/lib/x/f$i"
	head -c $((256 * 1024)) /dev/urandom >"$mnt/usr/lib/x/pad$i"	# interleaved: fragments
done
rm -f "$mnt"/usr/lib/x/pad*
for i in 1 2 3 4 5 6; do cat "$mnt/usr/lib/x/f$i" >>"$mnt/usr/lib/x/f$i.2"; done
printf 'phase=relayout\ndevice=UUID=x\n' >"$mnt$statedir/loop"
umount "$mnt"
bash "$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/trace" \
	/usr/lib/x/f1 /usr/lib/x/f3.2 /usr/lib/x/f5 /usr/lib/x/f2.2 /usr/lib/x/f4 /usr/lib/x/f6.2
debugfs -w -R "write $BP_TMPDIR/trace $statedir/trace" "$img" >/dev/null 2>&1
e2fsck -fy "$img" >/dev/null 2>&1 || true
bp_fsck_clean "$img"
cp --sparse=always "$img" "$BP_TMPDIR/pristine.img"
bp_loop_attach "$img" dev

# the misbehaving tools, chosen by FAKE_BOOTPACK, FAKE_DEBUGFS, FAKE_E2FSCK
fake=$BP_TMPDIR/fake
mkdir -p "$fake"
cat >"$fake/bootpack" <<'EOF'
#!/bin/sh
# a bootpack relayout that misbehaves as FAKE_BOOTPACK says
dry=0
for a; do [ "$a" = --dry-run ] && dry=1; done
hang() { trap '' TERM; exec sleep 100000; }
mode=${FAKE_BOOTPACK:-real}
if [ $dry = 1 ]; then
	case $mode in
	dry-hang) hang ;;
	dry-huge) printf '{\n  "relayout": {\n    "plan": {\n      "block_size": 4096,\n      "bytes_to_move": 1099511627776,\n      "evicted_blocks": 0\n    }\n  }\n}\n'; exit 0 ;;
	real*) exec "$REAL_BOOTPACK" "$@" ;;
	*) printf '{\n  "relayout": {\n    "plan": {\n      "block_size": 4096,\n      "bytes_to_move": 4096,\n      "evicted_blocks": 0\n    }\n  }\n}\n'; exit 0 ;;
	esac
fi
case $mode in
real) exec "$REAL_BOOTPACK" "$@" ;;
hang) echo "writing" >&2; hang ;;
term32) trap 'echo "stopped: nothing written" >&2; exit 32' TERM; while :; do sleep 1; done ;;
term-slow) trap 'sleep 2; echo "stopped after the write" >&2; exit 8' TERM; while :; do sleep 1; done ;;
enospc) dd if=/dev/zero of=/run/bootpack/relayout.e2undo bs=64k 2>/dev/null
	echo "undo file: No space left on device" >&2; exit 8 ;;
exit*) echo "fake failure ${mode#exit}" >&2; exit "${mode#exit}" ;;
esac
exit 99
EOF
for t in debugfs e2fsck; do
	real=$(command -v $t)
	cat >"$fake/$t" <<EOF
#!/bin/sh
case \${FAKE_${t^^}:-} in
hang) trap '' TERM; exec sleep 100000 ;;
esac
exec $real "\$@"
EOF
done
chmod 755 "$fake"/*
export REAL_BOOTPACK=$BOOTPACK

# boot2 LIMIT TMPFS_SIZE: run the script in its sandbox; sets rc, ms, status
boot2() {
	local t0 t1
	echo "quiet bootpack.relayout_limit=$1" >"$BP_TMPDIR/cmdline"
	: >"$BP_TMPDIR/console"
	: >"$BP_TMPDIR/kmsg"
	rm -f "$BP_TMPDIR/status"
	t0=$(date +%s%N)
	rc=0
	# the test's own bound: a script that hangs fails the case, not the suite
	PATH=$fake:$PATH timeout -s KILL $(($1 + 40)) unshare -m --propagation private bash -c '
		set -e
		T=$1 size=$2 script=$3 dev=$4
		mount -t tmpfs -o size=1m none /run
		mkdir /run/bootpack
		mount -t tmpfs -o size=$size,mode=0700 bootpack /run/bootpack
		mount --bind "$T/cmdline" /proc/cmdline
		mount --bind "$T/console" /dev/console
		mount --bind "$T/kmsg" /dev/kmsg
		if [ -d /sys/class/power_supply ]; then
			mount -t tmpfs -o size=64k none /sys/class/power_supply || true
		fi
		rc=0
		dash "$script" "$dev" </dev/null >"$T/script.out" 2>&1 || rc=$?
		cp /run/bootpack/relayout.status "$T/status" 2>/dev/null || true
		exit $rc
	' sh "$BP_TMPDIR" "$2" "$script" "$dev" || rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	status=$(cat "$BP_TMPDIR/status" 2>/dev/null || true)
}

# check LIMIT TMPFS_SIZE ERE: one run, its status must match ERE
runs=0
check() {
	local limit=$1 grace=$(($1 / 10))
	[ $grace -ge 5 ] || grace=5
	boot2 "$1" "$2"
	runs=$((runs + 1))
	local what="FAKE_BOOTPACK=${FAKE_BOOTPACK:-real} FAKE_DEBUGFS=${FAKE_DEBUGFS:-} FAKE_E2FSCK=${FAKE_E2FSCK:-} limit $1 tmpfs $2"
	[ $rc = 0 ] || { cat "$BP_TMPDIR/script.out"; bp_fail "$what: the script exited $rc"; }
	# + 4 s: whole seconds of /proc/uptime, the namespace's set-up, a busy machine
	[ $ms -le $(((limit + grace + 4) * 1000)) ] ||
		bp_fail "$what: took $ms ms, more than the limit $limit s + grace $grace s"
	[ -n "$status" ] || { cat "$BP_TMPDIR/script.out"; bp_fail "$what: no status line"; }
	[ "$(wc -l <"$BP_TMPDIR/status")" = 1 ] || bp_fail "$what: more than one status line"
	grep -qF "relayout of $dev: $status" "$BP_TMPDIR/console" ||
		bp_fail "$what: the status is not on the console"
	[[ $status =~ $3 ]] || { cat "$BP_TMPDIR/console"; bp_fail "$what: status '$status' does not match /$3/"; }
	outcome=${status%%:*}
	outcome=${outcome%% (*}
	bp_info "$what: $status ($ms ms)"
}

fresh() {
	bp_loop_detach "$dev" "$img"
	cp --sparse=always "$BP_TMPDIR/pristine.img" "$img"
	bp_loop_attach "$img" dev
}

# hangs: killed (SIGKILL) after the limit and the grace, the boot goes on
FAKE_BOOTPACK=hang check 5 8m '^failed killed after the time limit of 5 s and 5 s of grace \(SIGKILL\)'
FAKE_BOOTPACK=dry-hang check 5 8m '^skipped time limit of 5 s reached planning'
FAKE_DEBUGFS=hang check 2 8m '^skipped time limit of 2 s reached reading /.*/loop \(debugfs killed\)$'
FAKE_E2FSCK=hang check 5 8m '^skipped time limit of 5 s reached checking \(e2fsck -fn killed\)$'
# stops on SIGTERM: before a write (32), or within the grace after one (8)
# (a limit of 5 s: the checks before the relayout must fit in it on a busy machine)
FAKE_BOOTPACK=term32 check 5 8m '^stopped at the time limit of 5 s, the root consistent \(exit 32\): stopped: nothing written; next boot tries again$'
FAKE_BOOTPACK=term-slow check 5 8m '^failed after writes began \(exit 8\): stopped after the write'
# every exit code
FAKE_BOOTPACK=exit1 check 5 8m '^skipped exit 1: fake failure 1$'
FAKE_BOOTPACK=exit3 check 5 8m '^skipped no pack written \(exit 3\)'
FAKE_BOOTPACK=exit4 check 5 8m '^skipped refused \(exit 4\)'
FAKE_BOOTPACK=exit8 check 5 8m '^failed after writes began \(exit 8\)'
FAKE_BOOTPACK=exit137 check 5 8m '^skipped exit 137'
# the undo file fills the tmpfs: the status still gets written
FAKE_BOOTPACK=enospc check 5 2m '^failed after writes began \(exit 8\): .*the tmpfs on /run/bootpack is full'
# a plan whose undo file cannot fit: skipped before any write
FAKE_BOOTPACK=dry-huge check 5 8m '^skipped undo file would not fit: about [0-9]+ MiB, [0-9]+ MiB free'

# the real bootpack on a device shorter than the root (issue 37: e2fsck -fn
# exits 0 there, "Abort? no"): refused before any write, nothing written
bp_loop_detach "$dev" "$img"
bp_loop_attach "$img" dev --sizelimit 32M
check 60 64m '^skipped refused \(exit 4\): .*: the filesystem is 67108864 bytes \([0-9]+ blocks of [0-9]+\) but the device holds only 33554432: grow the partition or resize2fs the filesystem first$'
cmp -s "$img" "$BP_TMPDIR/pristine.img" || bp_fail "the refused relayout wrote to the image"
fresh

# the real bootpack: the undo file (about 3 MiB) does not fit in 1 MiB: skipped, nothing written
bp_hash_files "$img" >"$BP_TMPDIR/files.before"
check 60 1m '^skipped undo file would not fit: about [0-9]+ MiB, [01] MiB free in the tmpfs'
cmp -s "$img" "$BP_TMPDIR/pristine.img" || bp_fail "the skipped relayout wrote to the image"
# room for it: done, the image clean, its files the same
check 60 64m '^done in [0-9]+ s$'
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/files.after"
diff -u "$BP_TMPDIR/files.before" "$BP_TMPDIR/files.after" || bp_fail "the relayout changed file contents"
cmp -s "$img" "$BP_TMPDIR/pristine.img" && bp_fail "the relayout did not write"

# make fuzz-boot2: random faults
declare -A outcomes=()
modes=(real real hang dry-hang term32 term-slow enospc dry-huge exit1 exit3 exit4 exit8 exit32 exit137)
for ((n = 0; n < ${BP_FUZZ_RUNS:-0}; n++)); do
	m=${modes[RANDOM % ${#modes[@]}]}
	d='' e=''
	((RANDOM % 10)) || d=hang
	((RANDOM % 10)) || e=hang
	limit=$((1 + RANDOM % 4))
	size=$(((RANDOM % 8) * 512 + 256))k
	[ "$m" = real ] && { limit=$((limit + 30)); fresh; }
	FAKE_BOOTPACK=$m FAKE_DEBUGFS=$d FAKE_E2FSCK=$e check $limit $size '^(done|skipped|failed) '
	outcomes[$outcome]=$((${outcomes[$outcome]:-0} + 1))
	if [ "$m" = real ] && [ -z "$d$e" ]; then
		# killed or not, the image is clean, or the boot's e2fsck -p repairs it
		rc=0
		e2fsck -fn "$img" >/dev/null 2>&1 || rc=$?
		if [ $rc != 0 ]; then
			[[ $status == failed* ]] || bp_fail "not clean after '$status'"
			rc=0
			e2fsck -p "$img" >/dev/null 2>&1 || rc=$?
			[ $rc -le 1 ] || bp_fail "e2fsck -p exit $rc after '$status'"
		fi
	fi
done
if [ "${BP_FUZZ_RUNS:-0}" -gt 0 ]; then
	for o in "${!outcomes[@]}"; do echo "FUZZ outcome: ${outcomes[$o]} x $o"; done
fi
bp_info "$runs runs, all within limit + grace, every one with its status line"
exit 0
