#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh --- the main job end to end on the embedded default: a generated,
# aged ext4 image standing in for a lived-in root filesystem.
#
#   trace a boot-like workload  ->  relayout (with an undo file; it writes
#   the pack)  ->  check nothing was lost  ->  bench  ->  bootpack-read with
#   cold caches  ->  e2undo  ->  one before/after summary table
#
# Needs root (loop devices, mount, tracefs). Everything it makes is under
# $BP_DEMO_DIR (default ./demo); loop devices and mounts are released on exit.
set -euo pipefail
top=$(cd "$(dirname "$0")" && pwd)
bin=${BUILDDIR:-$top}
out=${BP_DEMO_DIR:-$top/demo}
B=$bin/bootpack
export LC_ALL=C E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null

[ "$(id -u)" = 0 ] || { echo "demo.sh: needs root (loop devices, mount, tracefs)"; exit 1; }
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing

mkdir -p "$out"
img=$out/aged-ext4.img
mnt=$out/mnt
dev=
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	[ -n "$dev" ] && losetup -d "$dev" 2>/dev/null
	return 0
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

attach_ro() {
	dev=$(losetup --find --show --read-only "$img")
	mkdir -p "$mnt"
	mount -o ro "$dev" "$mnt"
	echo 128 >"/sys/block/${dev#/dev/}/queue/read_ahead_kb"	# the 2008 default
	sync
	echo 3 >/proc/sys/vm/drop_caches
}
detach() {
	umount "$mnt"
	losetup -d "$dev"
	dev=
}
hash_all() {
	local d
	d=$(mktemp -d "$out/rdump.XXXXXX")
	debugfs -R "rdump / $d" "$img" >/dev/null 2>&1
	(cd "$d" && find . -type f -print0 | sort -z | xargs -0r sha256sum)
	rm -rf "$d"
}

step "generating the aged ext4 image (deterministic: fixtures/mkfixture.sh)"
rm -f "$img"
"$top/fixtures/mkfixture.sh" --aged --bindir "$bin/fixtures" ext4 "$img"
"$bin/fixtures/bp-fragreport" "$img"

step "tracing a boot-like workload on the loop-mounted image (cold cache, read_ahead_kb=128)"
attach_ro
m=$mnt
"$B" trace -o "$out/boot.trace" --device "$dev" -- sh -c "
	cat $m/etc/fstab $m/etc/hostname $m/etc/passwd $m/etc/group $m/etc/ld.so.cache
	cat $m/usr/bin/bash $m/etc/bp-pkg*.conf
	find $m/usr/lib/x86_64-linux-gnu -type f -name "*.so*" -exec cat {} +
	cat $m/usr/bin/bp-tool* $m/usr/lib/firmware/regulatory.db
	head -c 2000000 $m/boot/initrd.img-6.1.0-bootpack
	ls -lR $m/etc $m/usr/share/doc" >/dev/null
detach
"$B" dump "$out/boot.trace" | tail -n 1

step "before: contiguity and modelled boot I/O"
"$B" verify --trace "$out/boot.trace" "$img"
"$B" bench --trace "$out/boot.trace" "$img"
"$B" verify --json --trace "$out/boot.trace" "$img" >"$out/verify-before.json"
"$B" bench --json --trace "$out/boot.trace" "$img" >"$out/bench-before.json"
fsck_before=$(e2fsck -fn "$img" >/dev/null 2>&1 && echo clean || echo "NOT CLEAN")

step "relayout (offline, crash safe, undoable)"
before=$(hash_all)
cp --sparse=always "$img" "$out/before.img"
"$B" relayout --trace "$out/boot.trace" -z "$out/relayout.e2undo" --pack "$out/pack" "$img"

step "nothing lost: e2fsck -fn and the SHA-256 of every file"
fsck_after=$(e2fsck -fn "$img" >/dev/null 2>&1 && echo clean || echo "NOT CLEAN")
echo "e2fsck -fn: $fsck_after"
after=$(hash_all)
nfiles=$(echo "$after" | wc -l)
if [ "$before" = "$after" ]; then
	echo "all $nfiles files unchanged"
else
	echo "FILE CONTENT CHANGED"; exit 1
fi

step "after: contiguity and modelled boot I/O"
"$B" verify --trace "$out/boot.trace" "$img"
"$B" bench --trace "$out/boot.trace" "$img"
"$B" verify --json --trace "$out/boot.trace" "$img" >"$out/verify-after.json"
"$B" bench --json --trace "$out/boot.trace" "$img" >"$out/bench-after.json"

step "the pack relayout wrote for the new layout"
"$B" verify --pack "$out/pack" "$img"

step "bootpack-read with cold caches, then what is resident"
attach_ro
read_before=$(awk '{print $3}' "/sys/block/${dev#/dev/}/stat")
"$bin/bootpack-read" --no-exec --root "$mnt" --pack "$out/pack" --log stderr
read_after=$(awk '{print $3}' "/sys/block/${dev#/dev/}/stat")
echo "bootpack-read read $(( (read_after - read_before) / 2 )) KiB from $dev"
if command -v fincore >/dev/null; then
	fincore "$mnt/usr/bin/bash" "$mnt/etc/fstab" "$mnt/usr/lib/firmware/regulatory.db"
fi
detach

step "undo: e2undo restores the original image byte for byte"
cp --sparse=always "$img" "$out/undo-check.img"
e2undo "$out/relayout.e2undo" "$out/undo-check.img" >/dev/null
if cmp -s "$out/undo-check.img" "$out/before.img"; then
	echo "e2undo: identical to the image before relayout"
else
	echo "e2undo: IMAGE DIFFERS"; exit 1
fi
rm -f "$out/undo-check.img" "$out/before.img"

step "summary: before and after relayout"
python3 - "$out" "$fsck_before" "$fsck_after" "$nfiles" <<'PY'
import json, sys
out, fsck_before, fsck_after, nfiles = sys.argv[1:]
def load(name):
    with open(f"{out}/{name}.json") as f:
        return json.load(f)
vb, va = load("verify-before")["verify"], load("verify-after")["verify"]
bb, ba = load("bench-before")["bench"], load("bench-after")["bench"]
models = [m["model"] for m in bb["models"]]
now = lambda b, m: next(x for x in b["models"] if x["model"] == m)["now"]
head = ["", "DISCONT"] + models + ["E2FSCK", "SHA-256", "UNDO"]
rows = [
    ["before", str(vb["discontiguities"])] + ["%.3f s" % now(bb, m)["seconds"] for m in models]
    + [fsck_before, "%s files" % nfiles, "-"],
    ["after", str(va["discontiguities"])] + ["%.3f s" % now(ba, m)["seconds"] for m in models]
    + [fsck_after, "all unchanged", "byte for byte"],
    ["physical limit", "0"] + ["%.3f s" % now(ba, m)["t_phys"] for m in models] + ["", "", ""],
]
w = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
for r in [head] + rows:
    print("  ".join(c.ljust(w[i]) if i in (0, len(head) - 3, len(head) - 2, len(head) - 1)
                    else c.rjust(w[i]) for i, c in enumerate(r)).rstrip())
print()
print("DISCONT   breaks in the boot stream read in first-access order (verify --trace;")
print("          counted as in bootpack(8)); 0 is one sequential read")
print(", ".join(models) + ":")
print("          seconds to read the boot set on that disk model, as bootpack bench charges it")
print("          (positioning, transfer, command overhead); 'bootpack bench --help' describes them")
print("physical limit: the boot set's bytes / the model's sequential rate; no layout is faster")
print("E2FSCK    e2fsck -fn of the image")
print("SHA-256   every file's SHA-256 (read through libext2fs), compared after against before")
print("UNDO      e2undo of relayout's undo file gives back the image before relayout")
PY
echo
echo "demo: done (files in $out)"
