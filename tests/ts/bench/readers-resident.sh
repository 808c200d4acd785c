#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot bench's sreadahead-style and ureadahead-style readers (bench/boot/)
# on a loop-mounted aged fixture: a workload is traced, bp-readlist writes
# the list from the trace and the image, caches are dropped, and after each
# reader every listed range is resident (mincore); after ureadahead-style
# the inode tables it preloads are resident in the device's page cache too.
# Each reader also runs as PID 1 of a PID namespace and execs the init it is
# given at once, as PID 1; and as the init of a bare root (nothing mounted).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"
bp_require_root
bp_require_cmd losetup blockdev unshare
bp_tracefs >/dev/null
# As its siblings (tests/ts/reader/pid1-*): where PID and mount namespaces
# cannot be made (a container without CAP_SYS_ADMIN, a chroot's / that
# unshare cannot make private), the case says so instead of failing.
"${RD_UNSHARE[@]}" true 2>"$BP_TMPDIR/unshare.err" ||
	bp_skip "cannot create PID and mount namespaces: $(head -n 1 "$BP_TMPDIR/unshare.err")"
B=$top_builddir/bench/boot

img=$(bp_fixture --aged ext4)
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mnt=$BP_TMPDIR/mnt
echo 128 >"/sys/block/$(basename "$loop")/queue/read_ahead_kb"

files=()
while read -r f; do files+=("$f"); done < <(cd "$mnt" && find etc usr -type f -size +2k 2>/dev/null | sort | head -n 60)
[ ${#files[@]} -ge 20 ] || bp_fail "fixture has too few files"
# Also one file read whole, larger than what one readahead(2) call reads on
# this kernel (max_sectors_kb of the loop device): the readers must ask in pieces.
big=$(cd "$mnt" && find usr boot -type f -size +3000k 2>/dev/null | sort | head -n 1)
[ -n "$big" ] || bp_fail "fixture has no file over 3 MB"
# shellcheck disable=SC2317  # run by bash -c through declare -f, not called here
workload() {
	local f
	for f in "${files[@]}"; do head -c 20000 "$mnt/$f" >/dev/null; done
	cat "$mnt/$big" >/dev/null
}
rd_cold "$loop"
"$BOOTPACK" trace -o "$BP_TMPDIR/trace" --device "$loop" -- bash -c \
	"$(declare -p mnt files big; declare -f workload); workload" >/dev/null 2>"$BP_TMPDIR/trace.err" ||
	{ cat "$BP_TMPDIR/trace.err"; bp_fail "bootpack trace"; }

bp_expect_exit 0 "$B/bp-readlist" --trace "$BP_TMPDIR/trace" --device "$loop" -o "$BP_TMPDIR/list" "$loop"
cat "$BP_TMPDIR/err"
nr=$(grep -c '^/' "$BP_TMPDIR/list" || true)
ni=$(awk -F '\t' '$1 == "I" && $4 > 8' "$BP_TMPDIR/list" | wc -l)
bp_info "list: $nr ranges of $(grep '^/' "$BP_TMPDIR/list" | cut -f1 | sort -u | wc -l) files, $ni inode tables over 8 files"
[ "$nr" -ge 20 ] || bp_fail "list has $nr ranges"
[ "$ni" -ge 1 ] || bp_fail "no block group holds more than 8 listed files"
# The list's physical positions are the image's own (debugfs, an oracle of its own).
read -r p off len phys _ < <(grep '^/' "$BP_TMPDIR/list" | head -n 1)
blk=$(debugfs -R "bmap $p $((off / 4096))" "$loop" 2>/dev/null)
[ "$((blk * 4096))" = "$phys" ] || bp_fail "$p: list says byte $phys, debugfs block $blk"

# Other tests on a shared machine drop every cache at any time, and proactive
# reclaim (DAMON's pageout on this VM) takes back page cache that was never
# accessed, as pages only read ahead are, within seconds: a check that finds
# pages missing sets $short, and the run is tried again (5 times at most).
# The check runs at once after the reader and asks about every range in one
# bp-mincore process: milliseconds. One process a range took 6 s in a
# sanitizer build (109 ranges, 55 ms to start each), time enough for reclaim
# to take 40 pages on every try.
short=
# ranges: the listed ranges as bp-mincore -l reads them, then counts: the
# pages of each not resident.
grep '^/' "$BP_TMPDIR/list" | awk -F '\t' -v m="$mnt" '{ print m $1 "\t" $2 "\t" $3 }' >"$BP_TMPDIR/ranges"
counts() {
	"$RD_HELPERS/bp-mincore" -l <"$BP_TMPDIR/ranges" >"$BP_TMPDIR/missing" ||
		bp_fail "bp-mincore -l"
	[ "$(wc -l <"$BP_TMPDIR/missing")" = "$(wc -l <"$BP_TMPDIR/ranges")" ] ||
		bp_fail "bp-mincore -l: one count a range expected"
}
# resident LABEL: every listed range resident (1 % slack for reclaim on a busy machine).
resident() {
	local path off len r missing=0 total=0
	counts
	while IFS=$'\t' read -r path off len r; do
		[ "$r" = 0 ] || bp_info "$1: ${path#"$mnt"} at $off, $len bytes: $r pages not resident"
		missing=$((missing + r)) total=$((total + (len + 4095) / 4096))
	done < <(paste "$BP_TMPDIR/ranges" "$BP_TMPDIR/missing")
	bp_info "$1: $((total - missing)) of $total listed pages resident"
	[ "$missing" -le $((total / 100)) ] || short="$1: $missing of $total pages not resident"
}
# attempt N: after a short check, whether to try again: it fails on the 5th
# short try whose canary (rd_canary_set after the drop) is still resident.
# A try whose canary is gone too, every cache dropped meanwhile by something
# that shares this page cache but not the tests' lock (another version of
# the suite on the host of a chroot), does not count; after 8 tries in all
# the case skips, saying so. $lost: such tries, reset for each loop. (Three
# tries were not enough in CI once: whole ranges of the initrd gone on each,
# 1368 of 2223 pages; the same case passed alone three times in a row.)
attempt() {
	[ -n "$short" ] || return 1
	if rd_canary_lost; then
		lost=$((lost + 1))
		short="$short, every cache dropped meanwhile (canary gone)"
	elif [ $(($1 - lost)) -ge 5 ]; then
		bp_fail "$short ($(($1 - lost)) tries)"
	fi
	[ "$1" -lt 8 ] || bp_skip "the page cache was dropped from outside on $lost of 8 tries" \
		"(canary gone): residency cannot be checked here"
	bp_info "$short: trying again"
	short=
}
# not_resident: after dropping caches, (almost) nothing listed is resident.
not_resident() {
	local path off len r missing=0 total=0
	counts
	while IFS=$'\t' read -r path off len r; do
		missing=$((missing + r)) total=$((total + (len + 4095) / 4096))
	done < <(paste "$BP_TMPDIR/ranges" "$BP_TMPDIR/missing")
	[ "$missing" -ge $((total * 9 / 10)) ] || bp_fail "caches were not dropped ($missing of $total missing)"
}

# itables_resident LABEL: the inode tables of the groups over ureadahead's
# threshold are in the device's page cache. Checked at once: pages of the
# shared machine's page cache were seen to go within seconds (2 % slack).
itables_resident() {
	local kind off len n r
	while IFS=$'\t' read -r kind off len n; do
		[ "$kind" = I ] && [ "$n" -gt 8 ] || continue
		r=$("$RD_HELPERS/bp-mincore" -m "$loop" "$off" "$len")
		bp_info "$1: inode table at $off: $((len / 4096 - r)) of $((len / 4096)) pages resident"
		[ "$r" -le $(((len / 4096) / 50)) ] || short="$1: inode table at $off: $r pages not resident"
	done <"$BP_TMPDIR/list"
}

for reader in sreadahead-style ureadahead-style; do
	lost=0
	for try in 1 2 3 4 5 6 7 8; do
		rd_cold "$loop"
		not_resident
		rd_canary_set
		bp_expect_exit 0 "$B/$reader" --no-exec --root "$mnt" --list "$BP_TMPDIR/list"
		[ $reader = sreadahead-style ] || itables_resident $reader
		cat "$BP_TMPDIR/err"
		bp_grep "^$reader: done: " "$BP_TMPDIR/err"
		resident "$reader"
		attempt $try || break
	done
done
bp_grep "^ureadahead-style: done: [1-9][0-9]* inode tables" "$BP_TMPDIR/err"

# As PID 1: the given init is exec'd at once, as PID 1, and the reader finishes.
for reader in sreadahead-style ureadahead-style; do
	lost=0
	for try in 1 2 3 4 5 6 7 8; do
		rd_cold "$loop"
		rd_canary_set
		rm -f "$BP_TMPDIR/mark"
		rd_standin "$BP_TMPDIR/standin" "$BP_TMPDIR/mark"
		rc=0
		timeout 30 "${RD_UNSHARE[@]}" "$B/$reader" --init "$BP_TMPDIR/standin" \
			--root "$mnt" --list "$BP_TMPDIR/list" -- one two >"$BP_TMPDIR/pid1.out" 2>"$BP_TMPDIR/pid1.log" || rc=$?
		[ $rc -ne 124 ] || bp_fail "$reader as PID 1 hung"
		[ $rc -eq 0 ] || { cat "$BP_TMPDIR/pid1.log"; bp_fail "$reader as PID 1: init exited $rc"; }
		[ "$(head -n 1 "$BP_TMPDIR/mark")" = 1 ] || bp_fail "$reader: init did not run as PID 1"
		bp_grep '^args:one two$' "$BP_TMPDIR/mark"
		bp_grep '^others-done$' "$BP_TMPDIR/mark"
		bp_grep "^$reader: done: " "$BP_TMPDIR/pid1.log"
		resident "$reader as PID 1"
		attempt $try || break
	done
done

# A bare init, as the bench guest boots: the fixture is the root (chroot) of
# a new PID and mount namespace with an empty /dev, no /proc, no /sys. The
# readers mount what they need in a private namespace: the kernel log gets
# their lines, ureadahead-style reaches the root's disk, the root's /dev
# stays empty.
umount "$mnt"
mount "$loop" "$mnt"
mkdir -p "$mnt/dev" "$mnt/bare/lib" "$mnt/bare/out" "$BP_TMPDIR/marks"
[ -z "$(ls -A "$mnt/dev")" ] && [ ! -e "$mnt/proc/self" ] && [ ! -e "$mnt/sys/dev" ] ||
	bp_fail "the fixture's /dev, /proc or /sys is not bare"
cp "$B/sreadahead-style" "$B/ureadahead-style" "$RD_HELPERS/bp-standin" "$mnt/bare/"
grep -v '^D' "$BP_TMPDIR/list" >"$mnt/bare/list"	# no device named: find it
interp=
while read -r lib; do
	cp -L "$lib" "$mnt/bare/lib/"
	case $lib in */ld-linux*) interp=$lib ;; esac
done < <(ldd "$RD_HELPERS/bp-standin" | grep -o '/[^ ]*' | sort -u)
[ -n "$interp" ] || bp_fail "no ELF interpreter for bp-standin"
mkdir -p "$mnt$(dirname "$interp")"
[ -e "$mnt$interp" ] || cp -L "$interp" "$mnt$interp"
sync
mount -o remount,ro "$mnt"	# as the guest boots: nothing written behind our back
for reader in sreadahead-style ureadahead-style; do
	lost=0
	for try in 1 2 3 4 5 6 7 8; do
		rd_cold "$loop"
		rd_canary_set
		rm -f "$BP_TMPDIR/marks/mark"
		bp_kmsg_mark
		rc=0
		timeout 60 unshare --pid --fork --mount --propagation unchanged bash -c '
			mount --make-rprivate "$1" || exit 1
			mount --bind "$3" "$1/bare/out" || exit 1	# the root is read-only
			# (a sanitizer build of the stand-in turns its leak check off
			# there itself: no /proc, see bp-standin.c)
			exec env -i LD_LIBRARY_PATH=/bare/lib BP_MARK=/bare/out/mark \
				"$(command -v chroot)" "$1" \
				"/bare/$2" --init /bare/bp-standin --list /bare/list -- single
		' bare "$mnt" "$reader" "$BP_TMPDIR/marks" >"$BP_TMPDIR/pid1.out" 2>"$BP_TMPDIR/pid1.log" || rc=$?
		[ $reader = sreadahead-style ] || itables_resident "$reader in a bare root"
		resident "$reader in a bare root"
		cat "$BP_TMPDIR/pid1.log"
		[ $rc -ne 124 ] || bp_fail "$reader in a bare root hung"
		[ $rc -eq 0 ] || bp_fail "$reader in a bare root: init exited $rc"
		[ "$(head -n 1 "$BP_TMPDIR/marks/mark")" = 1 ] || bp_fail "$reader: init did not run as PID 1"
		bp_grep '^args:single$' "$BP_TMPDIR/marks/mark"
		bp_grep '^others-done$' "$BP_TMPDIR/marks/mark"
		bp_kmsg_grep "$reader: done: " ||
			bp_fail "$reader: nothing in the kernel log"
		[ -z "$(ls -A "$mnt/dev")" ] || bp_fail "the root's /dev was written to: $(ls -A "$mnt/dev")"
		attempt $try || break
	done
done
bp_grep "^ureadahead-style: done: [1-9][0-9]* inode tables" "$BP_TMPDIR/pid1.log"

# A broken list: the reader says where, init still runs.
printf 'D\t/dev/null\n/etc/passwd\tx\t1\t2\t3\n' >"$BP_TMPDIR/bad.list"
bp_expect_exit 1 "$B/sreadahead-style" --no-exec --list "$BP_TMPDIR/bad.list"
bp_grep "bad.list:2: Invalid argument" "$BP_TMPDIR/err"
exit 0
