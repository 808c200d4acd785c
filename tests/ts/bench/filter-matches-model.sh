#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The nbdkit filter bootpack-delay (bench/boot/) and bootpack bench charge
# the same request stream the same: a real trace of an aged image gives the
# two streams bench models (traced and current layout) and two of its
# strategies (stock, ureadahead: many small requests); each is replayed,
# one NBD request per read, through nbdkit + the filter, and the busy time
# in the filter's log must be within 2 % of bench's time, per model. The
# replay must also take at least that long (the filter really delays), and
# requests sent at once must queue (one at a time, QD1).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/bench/filter-lib.sh"
fl_setup

fl_bench
bp_info "stream: $(grep -c '^traced ' "$BP_TMPDIR/stream") traced reads," \
	"$(grep -c '^now ' "$BP_TMPDIR/stream") now"

# Reads split at 32 MiB, a multiple of every model's command size.
# The aged layout (scattered), two of the strategies, then after relayout (one region).
fl_compare 32 "eee-flash hdd-5k160 sata-ssd" traced stock ureadahead
"$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/boot.trace" "$img" >/dev/null
fl_bench
bp_info "after relayout: $(grep -c '^now ' "$BP_TMPDIR/stream") reads"
fl_compare 32 "eee-flash hdd-5k160 sata-ssd" now

# Eight reads at once on the hard disk, slowed 20 times (about 70 ms each, so
# that all have arrived while the first is served even on a busy machine):
# served one at a time, never overlapping.
log=$BP_TMPDIR/burst.log
nbdkit -U - --filter="$filter" file "$img" model=hdd-5k160 scale=20 log="$log" \
	--run "$py $BP_TMPDIR/replay.py \"\$uri\" - burst 0" >"$BP_TMPDIR/wall" 2>"$BP_TMPDIR/nbdkit.err" ||
	{ cat "$BP_TMPDIR/nbdkit.err"; bp_fail "nbdkit burst"; }
cat "$log"
bp_grep '^# bootpack-delay 1 model hdd-5k160 scale 20 ' "$log"
awk '!/^#/ {
	n++
	if (n > 1 && $1 + 1 < prev_end) bad = "overlap at line " NR
	if ($6 > 0) queued++
	prev_end = $1 + $5
	busy += $5
} END {
	if (n != 8) bad = n " requests"
	if (queued < 6) bad = "only " queued " requests waited"
	if (bad) { print bad; exit 1 }
	printf "%.6f\n", busy / 1e6
}' "$log" >"$BP_TMPDIR/burst" || bp_fail "burst: $(cat "$BP_TMPDIR/burst")"
awk -v w="$(cat "$BP_TMPDIR/wall")" -v b="$(cat "$BP_TMPDIR/burst")" 'BEGIN { exit !(w >= 0.98 * b) }' ||
	bp_fail "burst of 8 took $(cat "$BP_TMPDIR/wall") s, less than their summed service"

# Bad parameters are refused with a message naming the fix.
rc=0
nbdkit -U - --filter="$filter" file "$img" model=floppy --run true 2>"$BP_TMPDIR/err" || rc=$?
[ $rc -ne 0 ] || bp_fail "model=floppy accepted"
bp_grep "unknown model 'floppy' \(use one of eee-flash, hdd-5k160, sata-ssd, pi4-sd, pi4-sd-slow, usb2-stick, emmc, hdd-smr, cloud-gp3, cloud-cold\)" "$BP_TMPDIR/err"
rc=0
nbdkit -U - --filter="$filter" file "$img" model=eee-flash scale=-1 --run true 2>"$BP_TMPDIR/err" || rc=$?
[ $rc -ne 0 ] || bp_fail "scale=-1 accepted"
bp_grep "scale '-1' is not a positive number" "$BP_TMPDIR/err"
exit 0
