#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The metadata ranges are read in a bare init. The fixture, loop-mounted,
# is the root (chroot) of bootpack-read as PID 1 of a new PID and mount
# namespace: an empty /dev, no /proc, no /sys, no udev; a C stand-in init
# (no shell in there). The reader finds no node for the root's device and
# makes a private one; with devtmpfs on /dev (still no /sys) it finds the
# node there. Afterwards the pack's metadata ranges are resident in the
# block device's page cache (mincore on the loop device, from outside),
# which they are not after the same boot with --no-meta; init ran as PID 1,
# the reader ended, and the root's /dev is still empty.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd unshare timeout debugfs losetup chroot python3 ldd
# (--propagation unchanged: rd_bare_boot makes the root it mounts under
# private itself, and where / is not a mount point, a chroot, unshare cannot
# change /'s propagation)
unshare --pid --fork --mount --propagation unchanged true 2>"$BP_TMPDIR/unshare.err" ||
	bp_skip "cannot create PID and mount namespaces: $(head -n 1 "$BP_TMPDIR/unshare.err")"

img=$(bp_fixture ext4)
pack=$BP_TMPDIR/pack
mapfile -t files < <(awk '$2 ~ /^\/(etc|usr\/bin|usr\/lib|var)\// {print $2}' "$img.files" | head -n 60)
[ ${#files[@]} -ge 20 ] || bp_fail "fixture has too few files"
# (the files' directories, inode table blocks and mapping blocks as metadata)
rd_trace_text "$img" 7:0 "$BP_TMPDIR/rd.txt" "${files[@]}"
"$BOOTPACK" trace --import "$BP_TMPDIR/rd.txt" -o "$BP_TMPDIR/rd.trace" --device "$img" >/dev/null 2>&1
"$BOOTPACK" pack --trace "$BP_TMPDIR/rd.trace" -o "$pack" --meta=files "$img" >/dev/null
"$BOOTPACK" dump "$pack" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d.get("pack", {})
for m in d.get("meta", p.get("meta", [])):
    print(m["offset"], m["length"])
' >"$BP_TMPDIR/meta"
nm=$(wc -l <"$BP_TMPDIR/meta")
[ "$nm" -ge 3 ] || bp_fail "the pack has $nm metadata ranges; the test needs some"

bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt"
root=$BP_TMPDIR/mnt
[ ! -e "$root/proc" ] && [ ! -e "$root/sys" ] || bp_fail "the fixture has /proc or /sys"
rd_bare_root "$root"
install -m 0644 "$pack" "$root/bare/pack"
sync

# bare MODE [reader options]: one boot; MODE empty (nothing on /dev) or devtmpfs.
bare() {
	local mode=$1
	shift
	rd_cold "$loop"
	rd_canary_set
	rd_bare_boot "$root" "$mode" -- --pack /bare/pack "$@"
	bp_grep '^args:single$' "$root/bare/mark"
}

# meta_missing: pages of the pack's metadata ranges not in the device's page
# cache. (mincore(2) counts up-to-date folios: what a read of the device
# filled. ext4's own buffer-head reads leave the folio not up to date, so
# they do not count: the check sees what the reader read, not what the boot
# read by itself.)
meta_missing() {
	local off len n=0
	while read -r off len; do
		n=$((n + $("$RD_HELPERS/bp-mincore" -m "$loop" "$off" "$len")))
	done <"$BP_TMPDIR/meta"
	echo "$n"
}
total=0
while read -r off len; do total=$((total + (off % 4096 + len + 4095) / 4096)); done <"$BP_TMPDIR/meta"

# The same boot without the metadata: the oracle sees them missing.
bare empty --log=stderr --no-meta -- single
bp_grep 'metadata ranges not read: --no-meta' "$BP_TMPDIR/pid1.log"
without=$(meta_missing)
bp_info "--no-meta: $without of $total metadata pages not resident after the boot"
[ "$without" -ge $((total / 2)) ] || bp_fail "only $without of $total metadata pages missing without the reader: the check would prove nothing"

# Empty /dev, no /sys: a private node. (Each round again if another test
# dropped every cache meanwhile: the canary of rd_canary_set says so.)
for _ in 1 2 3; do
	bare empty --log=stderr -- single
	with=$(meta_missing)
	rd_canary_lost || break
done
bp_grep '^bootpack-read: metadata ranges read through a private node$' "$BP_TMPDIR/pid1.log"
bp_grep "^bootpack-read: [0-9]+ bytes \\([1-9][0-9]* metadata\\), [1-9][0-9]* files, 0 skipped" \
	"$BP_TMPDIR/pid1.log"
bp_info "empty /dev: $with of $total metadata pages not resident after the boot"
[ "$with" = 0 ] || bp_fail "$with of $total metadata pages not resident after bootpack-read"

# devtmpfs on /dev, no /sys: found by its number in /dev.
for _ in 1 2 3; do
	bare devtmpfs --log=stderr -- single
	with=$(meta_missing)
	rd_canary_lost || break
done
bp_grep "^bootpack-read: metadata ranges read through /dev/$(basename "$loop")\$" "$BP_TMPDIR/pid1.log"
bp_info "devtmpfs: $with of $total metadata pages not resident after the boot"
[ "$with" = 0 ] || bp_fail "$with of $total metadata pages not resident after bootpack-read"

# Logging to the kernel log with no /dev/kmsg: a private node again.
bp_kmsg_mark
bare empty --log=kmsg -- single
bp_kmsg_grep 'bootpack-read\[[0-9]+\]: metadata ranges read through a private node' ||
	bp_fail "nothing in the kernel log"
