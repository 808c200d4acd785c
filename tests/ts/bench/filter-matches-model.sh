#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The nbdkit filter bootpack-delay (bench/boot/) and bootpack bench charge
# the same request stream the same: a real trace of an aged image gives the
# two streams bench models (traced and current layout) and two of the boot
# bench's strategies (stock, ureadahead: many small requests; bp-strategies,
# the same model code); each is replayed,
# one NBD request per read, through nbdkit + the filter, and the busy time
# in the filter's log must be within 2 % of bench's time, per model. The
# replay must also take at least that long (the filter really delays), and
# requests sent at once must queue (one at a time, QD1).
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

img=$(bp_fixture --aged ext4)
bp_trace_reads "$img" "$BP_TMPDIR/boot.trace" /etc/fstab /usr/bin/bash '/etc/bp-pkg*' \
	/boot/initrd.img-6.1.0-bootpack

bp_expect_exit 0 "$BOOTPACK" bench --json --stream-out "$BP_TMPDIR/stream" \
	--trace "$BP_TMPDIR/boot.trace" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/bench.json"
bp_expect_exit 0 "$top_builddir/bench/boot/bp-strategies" --json \
	--stream-out "$BP_TMPDIR/strategies.stream" --trace "$BP_TMPDIR/boot.trace" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/strategies.json"
cat "$BP_TMPDIR/strategies.stream" >>"$BP_TMPDIR/stream"
bp_info "stream: $(grep -c '^traced ' "$BP_TMPDIR/stream") traced reads," \
	"$(grep -c '^now ' "$BP_TMPDIR/stream") now"

# replay.py URI STREAM LAYOUT: one pread per read of LAYOUT, in order, one at
# a time (split at 32 MiB, a multiple of every model's command size);
# prints the wall time. With LAYOUT "burst": 8 reads sent at once.
cat >"$BP_TMPDIR/replay.py" <<'EOF'
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
    for line in open(sys.argv[2]):
        layout, off, length = line.split()
        if layout != sys.argv[3]:
            continue
        off, length = int(off), int(length)
        while length:
            n = min(length, 32 << 20)
            h.pread(n, off)
            off += n
            length -= n
print("%.6f" % (time.monotonic() - t))
h.shutdown()
EOF

# compare LAYOUT...: replay and compare every model's busy time.
compare() {
	local model layout log bench reqs busy wall
	for model in eee-flash hdd-5k160 sata-ssd; do
		for layout in "$@"; do
			log=$BP_TMPDIR/$model-$layout.log
			nbdkit -U - --filter="$filter" file "$img" model=$model log="$log" \
				--run "$py $BP_TMPDIR/replay.py \"\$uri\" $BP_TMPDIR/stream $layout" \
				>"$BP_TMPDIR/wall" 2>"$BP_TMPDIR/nbdkit.err" ||
				{ cat "$BP_TMPDIR/nbdkit.err"; bp_fail "nbdkit $model $layout"; }
			bench=$("$py" -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["bench"]["models"] if m["model"] == sys.argv[2]][0]
r = json.load(open(sys.argv[4]))	# bp-strategies: the strategies (strategy.h)
r = [x for x in r["ranking"]["models"] if x["model"] == sys.argv[2]][0]
s = {x["strategy"]: x for x in r["strategies"]}
print((m[sys.argv[3]] if sys.argv[3] in m else s[sys.argv[3]])["seconds"])
' "$BP_TMPDIR/bench.json" "$model" "$layout" "$BP_TMPDIR/strategies.json")
			read -r reqs busy < <(awk '!/^#/ { n++; s += $5 } END { printf "%d %.6f\n", n, s / 1e6 }' "$log")
			wall=$(cat "$BP_TMPDIR/wall")
			bp_info "$model $layout: bench $bench s, filter busy $busy s ($reqs requests)," \
				"replay wall $wall s"
			awk -v a="$busy" -v b="$bench" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.02 * b) }' ||
				bp_fail "$model $layout: filter busy $busy s vs bench $bench s (more than 2 % apart)"
			awk -v w="$wall" -v b="$busy" 'BEGIN { exit !(w >= 0.98 * b) }' ||
				bp_fail "$model $layout: replay took $wall s, less than the modelled $busy s"
			bp_grep "^# end requests $reqs busy_us " "$log"
		done
	done
}
# The aged layout (scattered), two of the strategies, then after relayout (one region).
compare traced stock ureadahead
"$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/boot.trace" "$img" >/dev/null
bp_expect_exit 0 "$BOOTPACK" bench --json --stream-out "$BP_TMPDIR/stream" \
	--trace "$BP_TMPDIR/boot.trace" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/bench.json"
bp_info "after relayout: $(grep -c '^now ' "$BP_TMPDIR/stream") reads"
compare now

# Eight reads at once on the hard disk, slowed 20 times (about 70 ms each, so
# that all have arrived while the first is served even on a busy machine):
# served one at a time, never overlapping.
log=$BP_TMPDIR/burst.log
nbdkit -U - --filter="$filter" file "$img" model=hdd-5k160 scale=20 log="$log" \
	--run "$py $BP_TMPDIR/replay.py \"\$uri\" - burst" >"$BP_TMPDIR/wall" 2>"$BP_TMPDIR/nbdkit.err" ||
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
