#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-relayout.sh --- relayout throughput vs a raw copy, and planning time vs fs size
#
# Makes aged fixture images (1, 2, 4 and 16 GiB; cached under
# $top_builddir/bench), a trace of a ~75 MiB boot set (kernel, initrd, then
# programs and libraries in list order), and measures on the 4 GiB image:
# the relayout (no undo, caches dropped first when root) against dd copying
# the same number of bytes between two files on the same device with fsync;
# then relayout -n planning time on each size. Prints a table; writes
# nothing into the source tree.
. "${top_srcdir:?}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"

BENCH=${BENCH_DIR:-$top_builddir/bench}
TARGET_MIB=${BENCH_BOOTSET_MIB:-75}
mkdir -p "$BENCH"

fixture() {	# fixture SIZE SCALE: print the cached image path
	local img=$BENCH/relayout-aged-$1.img
	if [ ! -s "$img" ]; then
		"$top_srcdir/fixtures/mkfixture.sh" --aged --size "$1" --scale "$2" \
			--bindir "$top_builddir/fixtures" ext4 "$img.tmp" >"$img.log" 2>&1 ||
			{ cat "$img.log" >&2; bp_fail "mkfixture $1"; }
		mv "$img.tmp.files" "$img.files"
		mv "$img.tmp" "$img"
	fi
	echo "$img"
}

drop_caches() {
	sync
	[ "$(id -u)" = 0 ] && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
}

now() { date +%s.%N; }

# The boot set: files in the fixture's list, boot files first, until TARGET_MIB.
bootset() {	# bootset IMG OUT
	local img=$1 out=$2
	awk '{print $2}' "$img.files" | grep -E '^/(boot|usr/lib|usr/bin|usr/sbin|etc)/' |
		awk '{ print (/^\/boot\// ? 0 : 1), NR, $0 }' | sort -k1,1n -k2,2n | cut -d' ' -f3- \
		>"$BP_TMPDIR/candidates"
	while read -r p; do printf 'stat "%s"\n' "$p"; done <"$BP_TMPDIR/candidates" >"$BP_TMPDIR/stat.cmd"
	debugfs -f "$BP_TMPDIR/stat.cmd" "$img" 2>/dev/null | awk -v max=$((TARGET_MIB << 20)) '
		/^debugfs: stat "/ { p = substr($0, 16, length($0) - 16); next }
		/Size:/ && p != "" { for (i = 1; i < NF; i++) if ($i == "Size:") s = $(i + 1)
			if (tot < max) { print p; tot += s }
			p = "" }' >"$out"
}

big=$(fixture 4G 8)
bootset "$big" "$BP_TMPDIR/list"
mapfile -t files <"$BP_TMPDIR/list"
rl_mktrace "$big" "$BP_TMPDIR/trace" "${files[@]}"

work=$BENCH/relayout-work.img
cp --sparse=always "$big" "$work"
rl_mktrace "$work" "$BP_TMPDIR/trace" "${files[@]}"
drop_caches
t0=$(now)
"$BOOTPACK" relayout -J --no-undo --trace "$BP_TMPDIR/trace" "$work" >"$BP_TMPDIR/rl.json" ||
	bp_fail "relayout failed"
t1=$(now)
read -r bytes plan apply before after < <(python3 - "$BP_TMPDIR/rl.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["relayout"]
p, r = d["plan"], d["result"]
print(p["bytes_to_move"], p["plan_seconds"], r["apply_seconds"], p["discontiguities_before"], r["discontiguities"])
PY
)
e2fsck -fn "$work" >/dev/null 2>&1 || bp_fail "e2fsck -fn failed after the benchmark relayout"

# The raw copy: the same number of bytes, read from the image, written to a
# new file on the same device, fsync'ed.
drop_caches
mib=$(((bytes + (1 << 20) - 1) >> 20))
t2=$(now)
dd if="$big" of="$BENCH/relayout-dd.bin" bs=1M count=$mib skip=64 conv=fsync status=none
t3=$(now)
rm -f "$BENCH/relayout-dd.bin"

# Same run with the default undo file.
cp --sparse=always "$big" "$work"
drop_caches
t4=$(now)
"$BOOTPACK" relayout -z "$BENCH/relayout.e2undo" --trace "$BP_TMPDIR/trace" "$work" >/dev/null ||
	bp_fail "relayout with undo failed"
t5=$(now)
rm -f "$work" "$BENCH/relayout.e2undo"

python3 - "$bytes" "$plan" "$apply" "$t0" "$t1" "$t2" "$t3" "$t4" "$t5" "$before" "$after" "${#files[@]}" <<'PY'
import sys
b, plan, apply, t0, t1, t2, t3, t4, t5 = map(float, sys.argv[1:10])
before, after, nfiles = sys.argv[10:13]
mib = b / 2**20
print(f"boot set: {nfiles} files, {mib:.1f} MiB moved, discontiguities {before} -> {after}")
print(f"relayout (no undo): {t1 - t0:.2f} s wall, {plan:.3f} s planning, {apply:.2f} s moving "
      f"= {mib / apply:.1f} MiB/s")
print(f"dd of the same bytes: {t3 - t2:.2f} s = {mib / (t3 - t2):.1f} MiB/s")
print(f"relayout / dd throughput: {(t3 - t2) / apply:.2f}")
print(f"relayout with undo file: {t5 - t4:.2f} s wall")
PY

echo "planning time (relayout -n) vs filesystem size:"
for spec in 1G:2 2G:4 4G:8 16G:8; do
	img=$(fixture "${spec%:*}" "${spec#*:}")
	bootset "$img" "$BP_TMPDIR/list2"
	mapfile -t l2 <"$BP_TMPDIR/list2"
	rl_mktrace "$img" "$BP_TMPDIR/t.$$" "${l2[@]}"
	drop_caches
	"$BOOTPACK" relayout -n -J --trace "$BP_TMPDIR/t.$$" "$img" >"$BP_TMPDIR/n.json" || bp_fail "dry run"
	python3 - "$BP_TMPDIR/n.json" "${spec%:*}" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["relayout"]["plan"]
print(f"  {sys.argv[2]:>3}: {p['fs_blocks']} blocks, {p['bytes_to_move'] / 2**20:.1f} MiB boot set, plan {p['plan_seconds']:.4f} s "
      f"({p['plan_seconds'] / p['fs_blocks'] * 1e9:.1f} ns/block)")
PY
done
