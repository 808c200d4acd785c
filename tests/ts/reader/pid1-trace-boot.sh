#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack=trace: a boot traced for what it uses, not what readahead guessed.
# bootpack-read as PID 1 turns the root disk's readahead off (read_ahead_kb
# 0, read from sysfs outside), reads nothing of its pack (the packed files'
# pages are not resident afterwards, while the same boot without
# bootpack=trace makes them resident) and execs init. Twice: in a bare init
# (chroot into the loop-mounted fixture, new PID and mount namespaces, no
# /proc, no /sys), where bootpack= comes from the environment as the kernel
# hands it over and the queue is reached through a sysfs mounted nowhere;
# and with /proc (a file bound over /proc/cmdline). Then
# 'bootpack trace --from-boot' after such a boot puts the kernel's default
# back (128 KiB for a loop device), and leaves a 0 alone after any other boot.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd unshare timeout debugfs losetup chroot ldd
# (--propagation unchanged: rd_bare_boot makes the root it mounts under
# private itself, and where / is not a mount point, a chroot, unshare cannot
# change /'s propagation)
unshare --pid --fork --mount --propagation unchanged true 2>"$BP_TMPDIR/unshare.err" ||
	bp_skip "cannot create PID and mount namespaces: $(head -n 1 "$BP_TMPDIR/unshare.err")"

img=$(bp_fixture ext4)
mapfile -t files < <(awk '$2 ~ /^\/(etc|usr\/bin|usr\/lib)\// {print $2}' "$img.files" | head -n 40)
[ ${#files[@]} -ge 10 ] || bp_fail "fixture has too few files"
rd_make_pack "$img" "$BP_TMPDIR/pack" "${files[@]}"

bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt"
root=$BP_TMPDIR/mnt
ra=/sys/block/$(basename "$loop")/queue/read_ahead_kb
dev=$(cat "/sys/block/$(basename "$loop")/dev")
orig=$(cat "$ra")
bp_on_exit "echo $orig > $ra"
[ "$orig" != 0 ] || bp_fail "$loop has readahead off already"
rd_bare_root "$root"
install -m 0644 "$BP_TMPDIR/pack" "$root/bare/pack"
sync

resident() {	# pages of the packed files in the page cache
	local f n=0
	for f in "${files[@]}"; do n=$((n + $("$RD_HELPERS/bp-mincore" "$root$f"))); done
	echo "$n"
}

# Without bootpack=trace the pack is read and readahead stays on: the
# oracle sees the difference.
rd_cold "$loop"
rd_bare_boot "$root" empty -- --pack /bare/pack --log=stderr -- single
with=$(resident)
[ "$with" -gt 0 ] || bp_fail "the reader read nothing: the check would prove nothing"
[ "$(cat "$ra")" = "$orig" ] || bp_fail "readahead changed without bootpack=trace"

# Bare init: bootpack=trace from the environment.
rd_cold "$loop"
rd_bare_boot "$root" empty bootpack=trace -- --pack /bare/pack --log=stderr -- single
bp_grep "^bootpack-read: bootpack=trace: readahead of the root's disk \\($dev\\) off \\(read_ahead_kb was $orig\\)" \
	"$BP_TMPDIR/pid1.log"
[ "$(cat "$ra")" = 0 ] || bp_fail "bootpack=trace: read_ahead_kb is $(cat "$ra"), not 0"
n=$(resident)
[ "$n" = 0 ] || bp_fail "bootpack=trace: $n pages of the pack read (without it: $with)"
bp_info "bare init: readahead off, 0 pages read (without bootpack=trace: $with)"

# With /proc: bootpack=trace from /proc/cmdline.
echo "$orig" >"$ra"
printf 'root=/dev/vda1 ro bootpack=trace quiet\n' >"$BP_TMPDIR/cmdline"
rd_cold "$loop"
rm -f "$BP_TMPDIR/mark"
rd_standin "$BP_TMPDIR/standin" "$BP_TMPDIR/mark"
timeout 30 "${RD_UNSHARE[@]}" bash -c 'mount --bind "$0" /proc/cmdline && exec "$@"' \
	"$BP_TMPDIR/cmdline" "$READER" --log=stderr --config=none --root "$root" \
	--pack "$root/bare/pack" --init "$BP_TMPDIR/standin" >/dev/null 2>"$BP_TMPDIR/pid1.log"
[ "$(head -n 1 "$BP_TMPDIR/mark")" = 1 ] || bp_fail "bootpack=trace: init not exec'd as PID 1"
bp_grep "bootpack=trace: readahead of the root's disk \\($dev\\) off" "$BP_TMPDIR/pid1.log"
[ "$(cat "$ra")" = 0 ] || bp_fail "bootpack=trace (/proc/cmdline): read_ahead_kb is $(cat "$ra")"
n=$(resident)
[ "$n" = 0 ] || bp_fail "bootpack=trace (/proc/cmdline): $n pages of the pack read"

# bootpack trace --from-boot: readahead back on after a bootpack=trace boot
# only. (The trace buffer holds no boot trace here: it fails after that.)
from_boot() {	# CMDLINE
	printf '%s\n' "$1" >"$BP_TMPDIR/cmdline2"
	timeout 60 "${RD_UNSHARE[@]}" bash -c 'mount --bind "$0" /proc/cmdline && exec "$@"' \
		"$BP_TMPDIR/cmdline2" "$BOOTPACK" trace --from-boot -o "$BP_TMPDIR/t" --device "$loop" \
		>"$BP_TMPDIR/fb.out" 2>"$BP_TMPDIR/fb.err" || true
}
from_boot "root=/dev/vda1 ro quiet"
[ "$(cat "$ra")" = 0 ] || bp_fail "--from-boot changed readahead after a boot without bootpack=trace"
from_boot "root=/dev/vda1 ro bootpack=trace quiet"
bp_grep "^Readahead of $dev back on after the bootpack=trace boot \\(read_ahead_kb 128\\)" "$BP_TMPDIR/fb.out"
[ "$(cat "$ra")" = 128 ] || bp_fail "--from-boot: read_ahead_kb is $(cat "$ra"), not 128"
