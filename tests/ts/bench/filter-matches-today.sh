#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Today's slow disks (issue 24) in the nbdkit filter bootpack-delay and in
# bootpack bench: for each new model (pi4-sd, pi4-sd-slow, usb2-stick, emmc,
# hdd-smr, cloud-gp3, cloud-cold) the stream bench charges is replayed, one
# NBD request per read, through nbdkit + the filter, and the busy time in
# the filter's log must be within 2 % of bench's time: the traced (scattered)
# layout, two strategies (stock; ureadahead, many small requests, from the
# boot bench's bp-strategies) and the layout after relayout. The filter
# keeps one model state for the whole connection, as bench does for one
# stream, so cloud-cold's first-touch fetches must be charged once per
# 512 KiB chunk on both sides. The replay must take at least the busy time
# (the filter really sleeps).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd nbdkit losetup
filter=$top_builddir/bench/boot/nbdkit-bootpack-delay-filter.so
[ -f "$filter" ] || bp_skip "filter not built (configure did not find nbdkit-plugin-dev)"
py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import nbd' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || bp_skip "needs python3-libnbd"
bp_tracefs >/dev/null

MODELS="pi4-sd pi4-sd-slow usb2-stick emmc hdd-smr cloud-gp3 cloud-cold"
margs=()
for m in $MODELS; do margs+=(-m "$m"); done

img=$(bp_fixture --aged ext4)
bp_trace_reads "$img" "$BP_TMPDIR/boot.trace" /etc/fstab /usr/bin/bash '/etc/bp-pkg*' \
	/boot/initrd.img-6.1.0-bootpack

bench_json() {
	bp_expect_exit 0 "$BOOTPACK" bench --json "${margs[@]}" --stream-out "$BP_TMPDIR/stream" \
		--trace "$BP_TMPDIR/boot.trace" "$img"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/bench.json"
	bp_expect_exit 0 "$top_builddir/bench/boot/bp-strategies" --json "${margs[@]}" \
		--stream-out "$BP_TMPDIR/strategies.stream" --trace "$BP_TMPDIR/boot.trace" "$img"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/strategies.json"
	cat "$BP_TMPDIR/strategies.stream" >>"$BP_TMPDIR/stream"
}
bench_json
# Every new model, and only those, in the order asked.
[ "$(jq -r '[.bench.models[].model] | join(" ")' "$BP_TMPDIR/bench.json")" = "$MODELS" ] ||
	bp_fail "bench did not charge the models asked: $(jq -c '[.bench.models[].model]' "$BP_TMPDIR/bench.json")"
# A cold volume fetches some chunks; a warm one none.
[ "$(jq '.bench.models[] | select(.model == "cloud-cold") | .traced.fetches' "$BP_TMPDIR/bench.json")" -gt 0 ] ||
	bp_fail "cloud-cold fetched nothing"
[ "$(jq '.bench.models[] | select(.model == "cloud-gp3") | .traced.fetches' "$BP_TMPDIR/bench.json")" = 0 ] ||
	bp_fail "cloud-gp3 fetched"
bp_info "stream: $(grep -c '^traced ' "$BP_TMPDIR/stream") traced reads"

# replay.py URI STREAM LAYOUT: one pread per read of LAYOUT, in order, one at
# a time, split at 30 MiB (a multiple of every model's command size: 120,
# 128, 256 and 512 KiB); prints the wall time.
cat >"$BP_TMPDIR/replay.py" <<'EOF'
import sys, time, nbd
h = nbd.NBD()
h.connect_uri(sys.argv[1])
t = time.monotonic()
for line in open(sys.argv[2]):
    layout, off, length = line.split()
    if layout != sys.argv[3]:
        continue
    off, length = int(off), int(length)
    while length:
        n = min(length, 30 << 20)
        h.pread(n, off)
        off += n
        length -= n
print("%.6f" % (time.monotonic() - t))
h.shutdown()
EOF

compare() {
	local model layout log bench reqs busy wall
	for model in $MODELS; do
		for layout in "$@"; do
			log=$BP_TMPDIR/$model-$layout.log
			nbdkit -U - --filter="$filter" file "$img" model="$model" log="$log" \
				--run "$py $BP_TMPDIR/replay.py \"\$uri\" $BP_TMPDIR/stream $layout" \
				>"$BP_TMPDIR/wall" 2>"$BP_TMPDIR/nbdkit.err" ||
				{ cat "$BP_TMPDIR/nbdkit.err"; bp_fail "nbdkit $model $layout"; }
			bench=$(jq -r --arg m "$model" --arg l "$layout" \
				--slurpfile r "$BP_TMPDIR/strategies.json" '.bench.models[] |
				select(.model == $m) |
				if has($l) then .[$l].seconds
				else ($r[0].ranking.models[] | select(.model == $m) |
				      .strategies[] | select(.strategy == $l) | .seconds) end' \
				"$BP_TMPDIR/bench.json")
			read -r reqs busy < <(awk '!/^#/ { n++; s += $5 } END { printf "%d %.6f\n", n, s / 1e6 }' "$log")
			wall=$(cat "$BP_TMPDIR/wall")
			bp_info "$model $layout: bench $bench s, filter busy $busy s ($reqs requests)," \
				"replay wall $wall s"
			awk -v a="$busy" -v b="$bench" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.02 * b) }' ||
				bp_fail "$model $layout: filter busy $busy s vs bench $bench s (more than 2 % apart)"
			awk -v w="$wall" -v b="$busy" 'BEGIN { exit !(w >= 0.98 * b) }' ||
				bp_fail "$model $layout: replay took $wall s, less than the modelled $busy s"
			bp_grep "^# bootpack-delay 1 model $model scale 1 " "$log"
			bp_grep "^# end requests $reqs busy_us " "$log"
		done
	done
}
compare traced stock ureadahead
"$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/boot.trace" "$img" >/dev/null
bench_json
bp_info "after relayout: $(grep -c '^now ' "$BP_TMPDIR/stream") reads"
compare now

# `bootpack bench -m all` charges every model, the 2008 three first.
bp_expect_exit 0 "$BOOTPACK" bench --json -m all --trace "$BP_TMPDIR/boot.trace" "$img"
[ "$(jq -r '[.bench.models[].model] | join(" ")' "$BP_TMPDIR/out")" = "eee-flash hdd-5k160 sata-ssd $MODELS" ] ||
	bp_fail "-m all: $(jq -c '[.bench.models[].model]' "$BP_TMPDIR/out")"
exit 0
