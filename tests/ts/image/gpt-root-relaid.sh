#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack image on a GPT disk image (an empty ESP and an aged ext4 root of
# the x86-64 root type): the root is found, relaid out at its offset in the
# file with no loop device, the pack is inside it and the reader's unit is
# enabled there; e2fsck -fn is clean, every file is unchanged, the bytes
# outside the root partition are unchanged, the boot set is one stream, and
# the two undo files give back the original image byte for byte.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs e2fsck e2undo dumpe2fs sfdisk

root=$BP_TMPDIR/root-a.img
disk=$BP_TMPDIR/disk-a.img
img_root "$root"
t=$root.trace
size=$(stat -c %s "$root")
off=$(img_gpt "$disk" "$root")
s0=$(rl_sum "$disk")
bp_hash_files "$root" >"$BP_TMPDIR/hash.before"
before=$(rl_verify_json "$root" "$t" discontiguities)
[ "$before" -gt 0 ] || bp_fail "fixture boot set already contiguous ($before)"
outside() { { head -c "$off" "$1"; tail -c +$((off + size + 1)) "$1"; } | sha256sum; }
o0=$(outside "$disk")

bp_expect_exit 0 "$BOOTPACK" image --json --trace "$t" "$disk"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/image.json"
bp_grep '"partition": 2,' "$BP_TMPDIR/image.json"
bp_grep "\"offset\": $off," "$BP_TMPDIR/image.json"
bp_grep '"found_by": "gpt-root-type",' "$BP_TMPDIR/image.json"
bp_grep "\"before\": $before," "$BP_TMPDIR/image.json"
bp_grep '"after": 0' "$BP_TMPDIR/image.json"
bp_grep '"model": "cloud-cold",' "$BP_TMPDIR/image.json"
bp_grep "\"undo\": \"$disk.bootpack-undo\"" "$BP_TMPDIR/image.json"

# The oracles read the partition as a file of its own.
part=$BP_TMPDIR/part.img
img_part "$disk" "$off" "$size" "$part"
rl_fsck_silent "$part"
bp_hash_files "$part" | grep -v '  /var/lib/bootpack/pack$' >"$BP_TMPDIR/hash.after"
diff "$BP_TMPDIR/hash.before" "$BP_TMPDIR/hash.after" || bp_fail "file contents changed"
[ "$(outside "$disk")" = "$o0" ] || bp_fail "bytes outside the root partition changed"
after=$(rl_verify_json "$part" "$t" discontiguities)
[ "$after" = 0 ] || bp_fail "boot set has $after discontiguities after bootpack image"
bp_layout_check "$part" "${RL_BOOT_FILES[@]}" || bp_fail "the boot set is not laid out (debugfs)"
bp_info "discontiguities $before -> $after"

# The pack inside, of this filesystem and its new layout.
debugfs -R "dump /var/lib/bootpack/pack $BP_TMPDIR/pack" "$part" >/dev/null 2>&1
[ "$(head -c 8 "$BP_TMPDIR/pack")" = BOOTPACK ] || bp_fail "no pack at /var/lib/bootpack/pack"
bp_expect_exit 0 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/pack" "$part"
bp_grep '"stale_entries": 0' "$BP_TMPDIR/out"

# The reader's unit enabled as bootpack setup enables it.
debugfs -R "stat /etc/systemd/system/sysinit.target.wants/bootpack-read.service" "$part" \
	>"$BP_TMPDIR/link" 2>&1
bp_grep 'Type: symlink' "$BP_TMPDIR/link"
bp_grep 'Fast link dest: "/etc/systemd/system/bootpack-read.service"' "$BP_TMPDIR/link"
# No loop state: no traced boot is scheduled.
debugfs -R "stat /var/lib/bootpack/loop" "$part" 2>&1 | grep -q 'File not found' ||
	bp_fail "a loop state was written"

# Undo: the pack and unit first, then the relayout.
e2undo "$disk.bootpack-undo.install" "$disk" >/dev/null || bp_fail "e2undo (install) failed"
e2undo "$disk.bootpack-undo" "$disk" >/dev/null || bp_fail "e2undo (relayout) failed"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "e2undo did not restore the original image"
exit 0
