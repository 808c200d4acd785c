#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The static reader's own ELF entry point (x86-64): it asks for its whole
# image (madvise MADV_WILLNEED) before static glibc's start-up faults the
# image in one page fault at a time. The static copy the tests build
# (tests/ts/reader/bootpack-read-static, or the reader itself when
# configured --enable-static-reader) starts at bp_read_entry; run from a
# loop-mounted fixture with a 16 KiB readahead window and its pages
# dropped, it reads its image in a few requests (the loop device's own
# count, /sys/block/loopN/stat) where the same binary with the ELF entry
# set back to _start takes several times as many. (Residency is
# prefetch-self's check: pages read ahead and never touched may be
# reclaimed at once on a machine with proactive reclaim.) As PID 1 of a PID namespace it
# execs init with its arguments (the stub leaves argc, argv and %rdx as
# the kernel set them).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup readelf nm python3 unshare timeout
[ "$(uname -m)" = x86_64 ] || bp_skip "the reader's own entry point is x86-64 only"
rd_sanitized && bp_skip "a sanitizer build links nothing statically (the reader is checked in the plain build)"
rd_static_reader
bin=$RD_STATIC

entry=$(readelf -hW "$bin" | awk '/Entry point address/ { print $4 }')
sym=$(nm "$bin" | awk '$3 == "bp_read_entry" { print $1 }')
start=$(nm "$bin" | awk '$3 == "_start" { print $1 }')
[ -n "$sym" ] && [ -n "$start" ] || bp_fail "$bin: no bp_read_entry or _start symbol"
[ $((entry)) = $((16#$sym)) ] || bp_fail "$bin starts at $entry, not at bp_read_entry (0x$sym)"

img=$(bp_fixture ext4)
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt"
cp "$bin" "$BP_TMPDIR/mnt/stub"
cp "$bin" "$BP_TMPDIR/mnt/faults"
python3 - "$BP_TMPDIR/mnt/faults" "$start" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:	# e_entry of an ELF64 header: offset 24
    f.seek(24)
    f.write(struct.pack("<Q", int(sys.argv[2], 16)))
PY
sync
echo 16 >"/sys/block/$(basename "$loop")/queue/read_ahead_kb"
run() {	# NAME: read requests of one cold run of --version
	local ios0 ios
	rd_cold "$loop"
	ios0=$(awk '{print $1}' "/sys/block/$(basename "$loop")/stat")
	"$BP_TMPDIR/mnt/$1" --version >/dev/null || bp_fail "$1 --version failed"
	sleep 1	# the hint is asynchronous
	ios=$(($(awk '{print $1}' "/sys/block/$(basename "$loop")/stat") - ios0))
	echo "$ios"
}
for _ in 1 2 3; do
	rd_canary_set
	s=$(run stub)
	f=$(run faults)
	rd_canary_lost || break
done
bp_info "image read in $s requests from bp_read_entry, $f from _start"
[ "$f" -ge 10 ] || bp_fail "from _start only $f requests: the check would prove nothing"
[ $((s * 3)) -le "$f" ] || bp_fail "from bp_read_entry $s requests, from _start $f: the image was not asked for at once"

# As PID 1: init is exec'd with its arguments, the reader's child ends.
mark=$BP_TMPDIR/mark
rd_standin "$BP_TMPDIR/standin" "$mark"
timeout 30 "${RD_UNSHARE[@]}" "$bin" --log=stderr --config=none --pack "$BP_TMPDIR/none" \
	--init "$BP_TMPDIR/standin" -- one two >/dev/null 2>"$BP_TMPDIR/pid1.log" || true
[ "$(head -n 1 "$mark" 2>/dev/null)" = 1 ] || { cat "$BP_TMPDIR/pid1.log"; bp_fail "init not exec'd as PID 1"; }
bp_grep '^args:one two$' "$mark"
bp_grep '^others-done$' "$mark"
