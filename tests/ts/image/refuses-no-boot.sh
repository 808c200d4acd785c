#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without --trace, bootpack image runs the boot driver ($BOOTPACK_IMAGE_BOOT)
# with --image, --offset, --out and --timeout. A driver that says the image
# did not boot (exit 3) makes it fail with exit 6 and a clear message; one
# that leaves no trace, exit 3; one that cannot run, exit 4. The image is
# unchanged each time.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
. "$top_srcdir/tests/ts/image/img-functions.sh"
bp_require_cmd debugfs sfdisk

img_root "$BP_TMPDIR/root-a.img"
disk=$BP_TMPDIR/disk-a.img
off=$(img_gpt "$disk" "$BP_TMPDIR/root-a.img")
s0=$(rl_sum "$disk")

stub=$BP_TMPDIR/image-boot-a
cat >"$stub" <<-EOS
	#!/bin/sh
	echo "\$@" >"$BP_TMPDIR/driver.args"
	echo "image-boot: no kernel in the image's /boot" >&2
	exit 3
EOS
chmod +x "$stub"
BOOTPACK_IMAGE_BOOT=$stub bp_expect_exit 6 "$BOOTPACK" image --timeout 17 "$disk"
bp_grep "image-boot: no kernel in the image's /boot" "$BP_TMPDIR/err"
bp_grep "$disk: did not boot under QEMU within 17 s .*nothing was written.*--trace FILE" \
	"$BP_TMPDIR/err"
bp_grep "^--image $disk --offset $off --out /[^ ]*/boot-trace.txt --timeout 17\$" \
	"$BP_TMPDIR/driver.args"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a run whose image did not boot changed it"
ls "$disk".bootpack-undo* >/dev/null 2>&1 && bp_fail "a refused run wrote an undo file"
out=$(cut -d' ' -f6 "$BP_TMPDIR/driver.args")
[ ! -e "$(dirname "$out")" ] || bp_fail "the driver's work directory was left behind"

# A driver that "succeeds" but leaves nothing: the trace is unusable (3).
printf '#!/bin/sh\nexit 0\n' >"$stub"
BOOTPACK_IMAGE_BOOT=$stub bp_expect_exit 3 "$BOOTPACK" image "$disk"
bp_grep 'the boot driver left no environment file' "$BP_TMPDIR/err"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a run without a trace changed the image"

# No driver at all.
BOOTPACK_IMAGE_BOOT=$BP_TMPDIR/none bp_expect_exit 4 "$BOOTPACK" image "$disk"
bp_grep 'the boot driver could not be run; set BOOTPACK_IMAGE_BOOT or give traces with --trace FILE' \
	"$BP_TMPDIR/err"
[ "$(rl_sum "$disk")" = "$s0" ] || bp_fail "a run without a driver changed the image"
exit 0
