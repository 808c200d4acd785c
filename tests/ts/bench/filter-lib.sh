# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# filter-lib.sh --- what the filter-matches-* cases share (sourced, not a test):
# the nbdkit filter bootpack-delay (bench/boot/) and bootpack bench charging the
# same request stream of one real trace of an aged image.

# fl_setup: skip without root, nbdkit, the built filter or python3-libnbd; then
# $filter (the filter), $py (a python3 with nbd), $img (an aged ext4 fixture)
# and its trace $BP_TMPDIR/boot.trace, and $BP_TMPDIR/replay.py:
#   replay.py URI STREAM LAYOUT SPLIT_MIB: one pread per read of LAYOUT in
#   STREAM, in order, one at a time, split at SPLIT_MIB MiB (the case picks a
#   multiple of its models' command sizes); prints the wall time. With LAYOUT
#   "burst" (STREAM unused): 8 reads of 4 KiB sent at once.
fl_setup() {
	local p
	bp_require_root
	bp_require_cmd nbdkit losetup jq
	filter=$top_builddir/bench/boot/nbdkit-bootpack-delay-filter.so
	[ -f "$filter" ] || bp_skip "filter not built (configure did not find nbdkit-plugin-dev)"
	py=
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import nbd' 2>/dev/null; then py=$p; break; fi
	done
	[ -n "$py" ] || bp_skip "needs python3-libnbd"
	bp_tracefs >/dev/null

	img=$(bp_fixture --aged ext4)
	bp_trace_reads "$img" "$BP_TMPDIR/boot.trace" /etc/fstab /usr/bin/bash '/etc/bp-pkg*' \
		/boot/initrd.img-6.1.0-bootpack

	cat >"$BP_TMPDIR/replay.py" <<'PY'
import sys, time, nbd
h = nbd.NBD()
h.connect_uri(sys.argv[1])
t = time.monotonic()
if sys.argv[3] == "burst":
    bufs = [nbd.Buffer(4096) for _ in range(8)]
    step = h.get_size() // 8 // 4096 * 4096
    cookies = [h.aio_pread(bufs[i], i * step) for i in range(8)]
    while h.aio_in_flight() > 0:
        h.poll(-1)
else:
    split = int(sys.argv[4]) << 20
    for line in open(sys.argv[2]):
        layout, off, length = line.split()
        if layout != sys.argv[3]:
            continue
        off, length = int(off), int(length)
        while length:
            n = min(length, split)
            h.pread(n, off)
            off += n
            length -= n
print("%.6f" % (time.monotonic() - t))
h.shutdown()
PY
}

# fl_bench ARG...: bootpack bench --json ARG... of the trace on $img, and the
# boot bench's bp-strategies (the four strategies' streams, never installed)
# with the same ARG...; the streams they charge in $BP_TMPDIR/stream, their
# JSON in $BP_TMPDIR/bench.json and $BP_TMPDIR/strategies.json.
fl_bench() {
	bp_expect_exit 0 "$BOOTPACK" bench --json "$@" --stream-out "$BP_TMPDIR/stream" \
		--trace "$BP_TMPDIR/boot.trace" "$img"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/bench.json"
	bp_expect_exit 0 "$top_builddir/bench/boot/bp-strategies" --json "$@" \
		--stream-out "$BP_TMPDIR/strategies.stream" --trace "$BP_TMPDIR/boot.trace" "$img"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/strategies.json"
	cat "$BP_TMPDIR/strategies.stream" >>"$BP_TMPDIR/stream"
}

# fl_compare SPLIT_MIB "MODEL..." LAYOUT...: for every model and layout (a
# layout of the stream, or one of bp-strategies' strategies), replay the stream
# through nbdkit + the filter; the busy time in the filter's log must be
# within 2 % of bench's time for it, and the replay must take at least the
# busy time (the filter really sleeps).
fl_compare() {
	local split=$1 models=$2 model layout log bench reqs busy wall
	shift 2
	for model in $models; do
		for layout in "$@"; do
			log=$BP_TMPDIR/$model-$layout.log
			nbdkit -U - --filter="$filter" file "$img" model="$model" log="$log" \
				--run "$py $BP_TMPDIR/replay.py \"\$uri\" $BP_TMPDIR/stream $layout $split" \
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
