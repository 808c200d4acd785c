#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Today's slow disks (issue 24) in the nbdkit filter bootpack-delay and in
# bootpack bench: for each new model (pi4-sd, pi4-sd-slow, usb2-stick, emmc,
# hdd-smr, cloud-gp3, cloud-cold) the stream bench charges is replayed, one
# NBD request per read, through nbdkit + the filter, and the busy time in
# the filter's log must be within 2 % of bench's time: the traced (scattered)
# layout, two strategies (stock; ureadahead, many small requests) and the
# layout after relayout. The filter keeps one model state for the whole
# connection, as bench does for one stream, so cloud-cold's first-touch
# fetches must be charged once per 512 KiB chunk on both sides. The replay
# must take at least the busy time (the filter really sleeps).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/bench/filter-lib.sh"
fl_setup

MODELS="pi4-sd pi4-sd-slow usb2-stick emmc hdd-smr cloud-gp3 cloud-cold"
margs=()
for m in $MODELS; do margs+=(-m "$m"); done

fl_bench "${margs[@]}"
# Every new model, and only those, in the order asked.
[ "$(jq -r '[.bench.models[].model] | join(" ")' "$BP_TMPDIR/bench.json")" = "$MODELS" ] ||
	bp_fail "bench did not charge the models asked: $(jq -c '[.bench.models[].model]' "$BP_TMPDIR/bench.json")"
# A cold volume fetches some chunks; a warm one none.
[ "$(jq '.bench.models[] | select(.model == "cloud-cold") | .traced.fetches' "$BP_TMPDIR/bench.json")" -gt 0 ] ||
	bp_fail "cloud-cold fetched nothing"
[ "$(jq '.bench.models[] | select(.model == "cloud-gp3") | .traced.fetches' "$BP_TMPDIR/bench.json")" = 0 ] ||
	bp_fail "cloud-gp3 fetched"
bp_info "stream: $(grep -c '^traced ' "$BP_TMPDIR/stream") traced reads"

# Reads split at 30 MiB, a multiple of every model's command size: 120, 128,
# 256 and 512 KiB.
fl_compare 30 "$MODELS" traced stock ureadahead
"$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/boot.trace" "$img" >/dev/null
fl_bench "${margs[@]}"
bp_info "after relayout: $(grep -c '^now ' "$BP_TMPDIR/stream") reads"
fl_compare 30 "$MODELS" now

# `bootpack bench -m all` charges every model, the 2008 three first.
bp_expect_exit 0 "$BOOTPACK" bench --json -m all --trace "$BP_TMPDIR/boot.trace" "$img"
[ "$(jq -r '[.bench.models[].model] | join(" ")' "$BP_TMPDIR/out")" = "eee-flash hdd-5k160 sata-ssd $MODELS" ] ||
	bp_fail "-m all: $(jq -c '[.bench.models[].model]' "$BP_TMPDIR/out")"
exit 0
