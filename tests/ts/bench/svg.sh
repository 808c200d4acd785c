#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bp-strategies --svg (bench/boot/, not installed) draws both layouts of a
# real trace (one disk-map mark per read of bootpack bench's streams, one
# seek-distance dot per read after the first, the modelled end of the reads
# marked with bootpack bench's own figure), before and after relayout; the
# installed bootpack has no --svg; bp-bootchart (bench/boot/) puts a filter
# log on the guest monitor's clock by the bytes read (a run made with a
# known offset) and marks done booting and the reader. Every SVG must parse
# as XML.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"
bp_require_root
bp_require_cmd debugfs python3

img=$(bp_fixture --aged ext4)
mapfile -t paths < <(debugfs -R "ls -p /usr/bin" "$img" 2>/dev/null |
	awk -F/ '$3 ~ /^100/ && $7 > 8192 { print "/usr/bin/" $6 }' | head -n 25)
[ ${#paths[@]} -ge 10 ] || bp_fail "fixture has too few files in /usr/bin"
rd_trace_text "$img" 7:0 "$BP_TMPDIR/t.txt" "${paths[@]}" /etc/fstab
"$BOOTPACK" trace --import "$BP_TMPDIR/t.txt" -o "$BP_TMPDIR/boot.trace" --device "$img" >/dev/null

# check_bench SVG STREAM: marks and dots match the streams, the end marks match bench.
check_bench() {
	python3 - "$1" "$2" "$BP_TMPDIR/bench.json" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
svg, stream, bench = sys.argv[1:4]
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(svg).getroot()
assert root.tag == ns + "svg", root.tag
n = {"traced": 0, "now": 0}
for line in open(stream):
    k = line.split()[0]
    n[k] += 1
marks = [r for r in root.iter(ns + "rect") if r.get("fill-opacity") == "0.7"]
dots = list(root.iter(ns + "circle"))
texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
assert len(marks) == n["traced"] + n["now"], (len(marks), n)
assert len(dots) == n["traced"] - 1 + n["now"] - 1, (len(dots), n)
m = [x for x in json.load(open(bench))["bench"]["models"] if x["model"] == "hdd-5k160"][0]
for layout in ("traced", "now"):
    want = "reads done %.1f s" % m[layout]["seconds"]
    assert want in texts, (want, [t for t in texts if "done" in t])
for t in ("traced layout", "layout now", "disk MB/s", "seek distance", "time (s)"):
    assert any(t in x for x in texts), t
print("%d + %d reads drawn" % (n["traced"], n["now"]))
EOF
}

bench() {
	bp_expect_exit 0 "$B/bp-strategies" -m hdd-5k160 --svg "$BP_TMPDIR/$1.svg" \
		--trace "$BP_TMPDIR/boot.trace" "$img"
	bp_expect_exit 0 "$BOOTPACK" bench --json -m hdd-5k160 \
		--stream-out "$BP_TMPDIR/$1.stream" --trace "$BP_TMPDIR/boot.trace" "$img"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/bench.json"
	check_bench "$BP_TMPDIR/$1.svg" "$BP_TMPDIR/$1.stream" || bp_fail "$1.svg"
}
B=$top_builddir/bench/boot
bench before
"$BOOTPACK" relayout --no-undo --trace "$BP_TMPDIR/boot.trace" "$img" >/dev/null
bench after
[ "$(grep -c '^now ' "$BP_TMPDIR/after.stream")" -lt "$(grep -c '^traced ' "$BP_TMPDIR/after.stream")" ] ||
	bp_fail "relayout did not make the stream shorter"
bp_expect_exit 2 "$B/bp-strategies" --svg "$BP_TMPDIR/x.svg" --trace "$BP_TMPDIR/boot.trace"
bp_expect_exit 2 "$BOOTPACK" bench --svg "$BP_TMPDIR/x.svg" --trace "$BP_TMPDIR/boot.trace" "$img"
[ ! -e "$BP_TMPDIR/x.svg" ] || bp_fail "an SVG written on bad usage"

# A made-up boot: requests complete on the filter's clock exactly 2.5 s after
# the guest sample that first counts them; a reader logs at 1.0 and 3.0 s.
run=$BP_TMPDIR/run
mkdir -p "$run"
python3 - "$run" <<'EOF'
import sys
run = sys.argv[1]
with open(run + "/disk.log", "w") as f:
    f.write("# bootpack-delay 1 model hdd-5k160 scale 2 open_realtime 0\n")
    f.write("# start_us offset length type service_us wait_us\n")
    for k in range(40):
        f.write("%d %d 4096 R 10000.000 0.000\n" % (3090000 + 100000 * k, (k * 7919 % 500) * 1048576))
    f.write("%d 0 0 F 600.000 0.000\n" % 7500000)
with open(run + "/results.log", "w") as f:
    f.write("=== BENCH-BEGIN summary\ndone_ms=5000.0\nreached=1\n=== BENCH-END summary\n")
    f.write("=== BENCH-BEGIN samples\n# t_ms cpu_busy cpu_all rd_ios rd_sect wr_ios wr_sect in_flight io_ms psi_some_us\n")
    for i in range(60):
        t = 500 + 100 * i            # guest ms; request k completes at guest 600 + 100 k
        done = max(0, min(40, (t - 600) // 100 + 1))
        f.write("%.1f %d %d %d %d 0 0 0 0 %d\n" % (t, 5 * i, 10 * i, done, done * 8, 20000 * i))
    f.write("=== BENCH-END samples\n=== BENCH-BEGIN kmsg\n")
    f.write("6,1,1000000,-;sreadahead-style: start: 3 files, 4 ranges\n")
    f.write("6,2,3000000,-;sreadahead-style: done: 3 files, 12288 bytes in 2000 ms\n")
    f.write("=== BENCH-END kmsg\n=== BENCH-DONE\n")
EOF
bp_expect_exit 0 "$B/bp-bootchart" -o "$BP_TMPDIR/boot.svg" -t "made up" "$run=made-up" "$run=again"
cat "$BP_TMPDIR/err"
bp_grep "made-up: filter clock \+ -2\.500 s = guest clock" "$BP_TMPDIR/err"
python3 - "$BP_TMPDIR/boot.svg" <<'EOF' || bp_fail "boot.svg"
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
marks = [r for r in root.iter(ns + "rect") if r.get("fill-opacity") == "0.7"]
assert texts.count("done booting 5.0 s") == 2, texts
assert texts.count("reader") == 2, texts
assert any("hdd-5k160 x2: done 5.0 s; 0.2 MB read, disk busy 0.4 s (0.20 s unscaled)" in t for t in texts), texts
# 40 reads per column, all inside the monitor's 0.5-6.4 s
assert len(marks) == 80, len(marks)
EOF
bp_expect_exit 2 "$B/bp-bootchart" "$run"
bp_expect_exit 1 "$B/bp-bootchart" -o "$BP_TMPDIR/x.svg" "$BP_TMPDIR/nothing"
bp_grep "nothing/disk.log: No such file" "$BP_TMPDIR/err"
exit 0
