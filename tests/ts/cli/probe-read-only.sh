#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack probe on a regular file, on a loop device over it, and by LABEL=
# and UUID= (libblkid): exits 0 within its --time (plus a second), prints
# JSON that python's parser takes, with figures that make sense (latencies
# and rates above 0, the nearest model one of those bench lists), and leaves
# every byte of the device as it was (sha256 before and after).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd python3 losetup mkfs.ext4 blkid sha256sum

img=$BP_TMPDIR/probe-b.img
dd if=/dev/urandom of="$img" bs=1M count=48 status=none
# a filesystem at the start, so that LABEL= and UUID= find it; random bytes after
mkfs.ext4 -q -F -L "bpprobe$$" -U random "$img" 16M
uuid=$(blkid -p -o value -s UUID "$img")
sum0=$(sha256sum <"$img")
models=$("$BOOTPACK" bench --help | sed -n "/^Models:/,/^$/s/^ \([a-z0-9-]*\) .*/\1/p" | tr "\n" " ")

# check NAME JSON: the figures of one run
check() {
	python3 -m json.tool "$2" >/dev/null || bp_fail "$1: not valid JSON"
	python3 - "$2" "$1" <<'PY' || bp_fail "$1: figures out of range"
import json, sys
d = json.load(open(sys.argv[1]))["probe"]
bad = []
for k in ("next", "near", "far"):
    if not d["latency"][k]["ms"] > 0: bad.append("latency %s %r" % (k, d["latency"][k]["ms"]))
if not d["rate_mbs"] > 0: bad.append("rate %r" % d["rate_mbs"])
for q in d["depths"]:
    if not (q["iops"] > 0 and q["ms"] > 0): bad.append("depth %r" % q)
if [q["depth"] for q in d["depths"]] != [1, 8, 32]: bad.append("depths")
if d["size"] != 48 << 20: bad.append("size %d" % d["size"])
if not d["models"] or d["model"] != d["models"][0]["model"]: bad.append("model")
if sorted(m["distance"] for m in d["models"]) != [m["distance"] for m in d["models"]]:
    bad.append("models not nearest first")
if not d["reader"]["in_flight"] >= 4 << 20: bad.append("in_flight")
print("# %s: far %.4f ms, %.0f MB/s, max_request %s, %s (%.2f)" % (sys.argv[2],
      d["latency"]["far"]["ms"], d["rate_mbs"], d["max_request"], d["model"], d["distance"]))
if bad:
    print("bad: " + ", ".join(bad)); sys.exit(1)
PY
	m=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["probe"]["model"])' "$2")
	case " $models " in *" $m "*) ;; *) bp_fail "$1: model '$m' not among $models" ;; esac
}

# run NAME SPEC: probe for 2 s, in JSON, timed
run() {
	local t0 t1
	t0=$(date +%s%N)
	bp_expect_exit 0 "$BOOTPACK" -v probe --time 2 --json "$2"
	t1=$(date +%s%N)
	(( (t1 - t0) / 1000000 <= 3000 )) || bp_fail "$1: took $(( (t1 - t0) / 1000000 )) ms for --time 2"
	cp "$BP_TMPDIR/out" "$BP_TMPDIR/$1.json"
	check "$1" "$BP_TMPDIR/$1.json"
}

run file "$img"
bp_grep '"block_device": false' "$BP_TMPDIR/file.json"
bp_loop_attach "$img" dev
run loop "$dev"
bp_grep '"block_device": true' "$BP_TMPDIR/loop.json"
bp_grep '"max_sectors_kb": [1-9]' "$BP_TMPDIR/loop.json"
run label "LABEL=bpprobe$$"
bp_grep "LABEL=bpprobe$$ resolves to $dev" "$BP_TMPDIR/err"
run uuid "UUID=$uuid"

# the text form names the model too
bp_expect_exit 0 "$BOOTPACK" probe -t 1 "$dev"
bp_grep '^Nearest model: [a-z0-9-]+ \(distance [0-9.]+\)' "$BP_TMPDIR/out"
bp_grep '^Sequential: [0-9.]+ MB/s' "$BP_TMPDIR/out"

[ "$(sha256sum <"$img")" = "$sum0" ] || bp_fail "the device's content changed"
exit 0
