#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without --trace, bootpack image imports what the boot driver leaves: a
# tracefs text trace of the guest (here a stub driver writes one for files
# of the image, inode numbers from debugfs, root device 254:2) and
# TEXTFILE.env. The trace is resolved against the root at its offset in the
# image, and the image is laid out with it: the boot set's files are one
# stream (bootpack verify with a trace of the same files made by the test's
# own trace writer). The guest's memory the driver reports (mem_mb=) is the
# target's memory of the pack's automatic budget.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs e2fsck sfdisk jq

img_root "$BP_TMPDIR/root-a.img"
disk=$BP_TMPDIR/disk-a.img
size=$(stat -c %s "$BP_TMPDIR/root-a.img")
off=$(img_gpt "$disk" "$BP_TMPDIR/root-a.img")
files=(/boot/vmlinuz-6.1.0-bootpack /usr/lib/systemd/systemd /usr/bin/bash /etc/passwd
	/usr/lib/x86_64-linux-gnu/libbp1.so.1)
rl_mktrace "$BP_TMPDIR/root-a.img" "$BP_TMPDIR/oracle.trace" "${files[@]}"
before=$(rl_verify_json "$BP_TMPDIR/root-a.img" "$BP_TMPDIR/oracle.trace" discontiguities)
[ "$before" -gt 0 ] || bp_fail "these files are one stream already"

# The guest's trace: every 64 KiB of each file, in order.
text=$BP_TMPDIR/guest.txt
: >"$text"
ts=1000
for f in "${files[@]}"; do
	st=$(debugfs -R "stat $f" "$BP_TMPDIR/root-a.img" 2>/dev/null)
	ino=$(awk '/^Inode:/ {print $2; exit}' <<<"$st")
	fsize=$(awk '/Size: / {for (i = 1; i < NF; i++) if ($i == "Size:") print $(i + 1); exit}' <<<"$st")
	for ((o = 0; o < fsize; o += 65536)); do
		ts=$((ts + 1))
		printf '         systemd-1       [000] .....     2.%06d: mm_filemap_add_to_page_cache: dev 254:2 ino %x pfn=0x10000 ofs=%d order=4\n' \
			"$ts" "$ino" "$o" >>"$text"
	done
done
# bootpack trace --import takes the same text for the root at its offset
# (and refuses the disk image without it: no filesystem at its start).
bp_expect_exit 0 "$BOOTPACK" trace --import "$text" --device "$disk" --offset "$off" \
	-o "$BP_TMPDIR/imported.trace"
[ "$(grep -c '^F ' "$BP_TMPDIR/imported.trace")" = ${#files[@]} ] ||
	bp_fail "trace --import --offset: not ${#files[@]} files"
bp_expect_exit 4 "$BOOTPACK" trace --import "$text" --device "$disk" -o "$BP_TMPDIR/no.trace"

stub=$BP_TMPDIR/image-boot-a
cat >"$stub" <<-EOS
	#!/bin/sh
	# --image IMG --offset N --out TEXT --timeout S
	cp "$text" "\$6"
	printf 'dev=254:2\ndone_s=4.25\nmem_mb=1\n' >"\$6.env"
EOS
chmod +x "$stub"

BOOTPACK_IMAGE_BOOT=$stub bp_expect_exit 0 "$BOOTPACK" image --json "$disk"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/image.json"
bp_grep '"trace_source": "boot",' "$BP_TMPDIR/image.json"
bp_grep "\"files\": ${#files[@]}," "$BP_TMPDIR/image.json"
# 1 MiB of guest memory: a quarter, 262144 bytes, caps the budget
jq -e '.installed.budget.target_mem == 1048576 and .installed.budget.target_mem_from ==
	"guest" and .installed.budget.memory_cap == 262144 and .installed.budget.bytes <= 262144' \
	"$BP_TMPDIR/image.json" >/dev/null || bp_fail "the guest's memory is not the target's"
img_part "$disk" "$off" "$size" "$BP_TMPDIR/part.img"
rl_fsck_silent "$BP_TMPDIR/part.img"
after=$(rl_verify_json "$BP_TMPDIR/part.img" "$BP_TMPDIR/oracle.trace" discontiguities)
bp_info "discontiguities of the driver's files: $before -> $after"
[ "$after" = 0 ] || bp_fail "the driver's boot set has $after discontiguities after"
exit 0
