#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --setup prints the kernel arguments and the stop units; --install writes
# the units; the service reads the boot trace of the given filesystem.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

img=$(bp_fixture ext4)
"$BOOTPACK" trace --setup --device "$img" >"$BP_TMPDIR/out"
cat "$BP_TMPDIR/out"
bp_grep '^trace_event=filemap:mm_filemap_add_to_page_cache,filemap:mm_filemap_get_pages,filemap:mm_filemap_map_pages,filemap:mm_filemap_fault trace_buf_size=32768K$' \
	"$BP_TMPDIR/out"
bp_grep '^ExecStart=.*/bootpack trace --from-boot -o .*/trace --device UUID=b0075ac0-0000-4000-8000-000000000001$' \
	"$BP_TMPDIR/out"
bp_grep '^OnActiveSec=' "$BP_TMPDIR/out"

"$BOOTPACK" trace --setup --buffer-size 8M --install --unit-dir "$BP_TMPDIR" \
	--device "$img" >"$BP_TMPDIR/out"
bp_grep 'trace_buf_size=8192K' "$BP_TMPDIR/out"
bp_grep '^ConditionKernelCommandLine=trace_event$' "$BP_TMPDIR/bootpack-trace-stop.service"
bp_grep '^Type=oneshot$' "$BP_TMPDIR/bootpack-trace-stop.service"
bp_grep '^Unit=bootpack-trace-stop.service$' "$BP_TMPDIR/bootpack-trace-stop.timer"
bp_grep '^WantedBy=' "$BP_TMPDIR/bootpack-trace-stop.timer"
if command -v systemd-analyze >/dev/null 2>&1; then
	systemd-analyze verify "$BP_TMPDIR/bootpack-trace-stop.timer" 2>&1 |
		grep -v 'bootpack: command not found\|Command .* is not executable' |
		grep -i 'error' && bp_fail "systemd-analyze verify complains"
fi
# The units installed by 'make install' are the same, with "--device /".
mkdir "$BP_TMPDIR/u"
"$BOOTPACK" trace --setup --install --unit-dir "$BP_TMPDIR/u" --device / >/dev/null
for u in bootpack-trace-stop.service bootpack-trace-stop.timer; do
	[ -f "$top_builddir/trace/$u" ] || bp_fail "$u not built"
	diff -u <(grep -v '^#' "$top_builddir/trace/$u") <(grep -v '^#' "$BP_TMPDIR/u/$u") ||
		bp_fail "$u: --setup and trace/$u.in differ"
done

bp_expect_exit 2 "$BOOTPACK" trace --install
bp_grep 'go with --setup' "$BP_TMPDIR/err"
exit 0
