#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack probe keeps one hard deadline for the whole run (issue 37): an
# image behind nbdkit's delay filter, seen as a file through FUSE (nbdfuse:
# the kernel here has no nbd driver), answering each read in 100 ms, in
# 1 s, and never. Each probe must end within its --time + 1 s (on
# 12884de: 15 s for --time 1 at 500 ms a read, for ever with a read that
# never returns), exit 0 and say, in the text and in the JSON, that the
# result is partial and which phases it could not measure; with no far
# read or rate measured it names no model. A read that never returns is
# abandoned (its child process killed, "abandoned": true). The image is
# unchanged.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd nbdkit nbdfuse fusermount3 python3 sha256sum
[ -c /dev/fuse ] || bp_skip "no /dev/fuse"
nbdkit --dump-plugin file >/dev/null 2>&1 || bp_skip "nbdkit has no file plugin"
nbdkit --filter=delay null --run true >/dev/null 2>&1 || bp_skip "nbdkit has no delay filter"

img=$BP_TMPDIR/probe-deadline-c.img
dd if=/dev/urandom of="$img" bs=1M count=32 status=none
sum0=$(sha256sum <"$img")
mnt=$BP_TMPDIR/fuse
sock=$BP_TMPDIR/nbd.sock
mkdir -p "$mnt"

# serve DELAY: nbdkit (its own process, so that killing it ends a read it
# holds) with rdelay=DELAY, and nbdfuse on $mnt
serve() {
	rm -f "$sock" "$BP_TMPDIR/nbdkit.pid"
	nbdkit -U "$sock" -P "$BP_TMPDIR/nbdkit.pid" --filter=delay file "$img" rdelay="$1" ||
		bp_fail "nbdkit rdelay=$1"
	nbdfuse --readonly "$mnt" --unix "$sock" >"$BP_TMPDIR/nbdfuse.log" 2>&1 &
	fuse_pid=$!
	bp_on_exit "kill $(cat "$BP_TMPDIR/nbdkit.pid"); fusermount3 -uz '$mnt'; kill $fuse_pid"
	for i in $(seq 50); do [ -f "$mnt/nbd" ] && return 0; sleep 0.1; done
	bp_fail "nbdfuse: no $mnt/nbd: $(cat "$BP_TMPDIR/nbdfuse.log")"
}
# unserve: nbdkit first (a read it delays ends), then the FUSE mount
unserve() {
	kill "$(cat "$BP_TMPDIR/nbdkit.pid")" 2>/dev/null || :
	fusermount3 -uz "$mnt" 2>/dev/null || :
	wait "$fuse_pid" 2>/dev/null || :
}
# probe T JSON|TEXT: bootpack probe --time T of the export, exit 0 within
# T + 1 s; ms: its wall time. Waited for T + 5 s at most (a probe stuck in a
# read cannot be killed: the cleanup's end of nbdkit ends the read).
probe() {
	local t0 t1 json='' pid rc=0 i
	[ "$2" = JSON ] && json=--json
	t0=$(date +%s%N)
	"$BOOTPACK" probe --time "$1" $json "$mnt/nbd" >"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err" &
	pid=$!
	for ((i = 0; i < ($1 + 5) * 100; i++)); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.01
	done
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	kill -0 $pid 2>/dev/null && bp_fail "probe --time $1 still runs after $ms ms"
	wait $pid || rc=$?
	[ $rc = 0 ] || { cat "$BP_TMPDIR/err"; bp_fail "probe --time $1 exited $rc"; }
	[ "$ms" -le $((($1 + 1) * 1000)) ] ||
		bp_fail "probe --time $1 took $ms ms, more than $(($1 + 1)) s"
}
# field KEY: one field of the last JSON probe
field() {
	python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["probe"][sys.argv[2]]
print(",".join(v) if isinstance(v, list) else json.dumps(v))' "$BP_TMPDIR/out" "$1"
}

# 100 ms a read, --time 1: the first phases measured, the later ones not
serve 100ms
probe 1 JSON
bp_info "100 ms a read, --time 1: $ms ms, partial $(field partial), unmeasured $(field unmeasured)"
[ "$(field partial)" = true ] || bp_fail "100 ms: not marked partial"
[ "$(field abandoned)" = false ] || bp_fail "100 ms: a read was abandoned"
field unmeasured | grep -q whole || bp_fail "100 ms: the whole-request phase said measured"
field unmeasured | grep -q far && bp_fail "100 ms: not even the far reads were measured"
probe 1 TEXT
bp_grep '^Partial: the deadline of 1\.0 s came before these were measured: .*whole' "$BP_TMPDIR/out"
unserve

# 1 s a read, --time 3: one pair (2 s), no time left for a far read
serve 1
probe 3 JSON
bp_info "1 s a read, --time 3: $ms ms, unmeasured $(field unmeasured), model $(field model)"
[ "$(field partial)" = true ] || bp_fail "1 s: not marked partial"
[ "$(field unmeasured)" = "far,next,near,depth8,depth32,rate,whole" ] ||
	bp_fail "1 s: unmeasured is $(field unmeasured)"
[ "$(field model)" = null ] || bp_fail "1 s: a model named without far reads or a rate"
unserve

# a read that never returns, --time 1: abandoned at the deadline
serve 1000000
probe 1 JSON
bp_info "a read that never returns, --time 1: $ms ms, unmeasured $(field unmeasured)"
[ "$(field abandoned)" = true ] || bp_fail "never: the stuck read was not abandoned"
[ "$(field unmeasured)" = "first-again,far,next,near,depth8,depth32,rate,whole" ] ||
	bp_fail "never: unmeasured is $(field unmeasured)"
probe 1 TEXT
bp_grep '^Partial: .*; a read still under way then was abandoned$' "$BP_TMPDIR/out"
bp_grep '^Nearest model: none' "$BP_TMPDIR/out"
unserve
[ "$(sha256sum <"$img")" = "$sum0" ] || bp_fail "the image changed"
exit 0
