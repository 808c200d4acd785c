#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The models of rival readers stay out of the installed bootpack (issue 26):
# `make install DESTDIR=` installs no program of bench/boot/; the installed
# bootpack has no symbol of the strategies or the SVG drawing (nm, with its
# own cmd_bench present, so a stripped binary cannot pass), no rival
# reader's name among its strings, and its bench takes no --pack or --svg.
# The boot bench's bp-strategies still ranks the four strategies on a
# fixture trace: each model's JSON names the four, each charged more than
# 0 s, and its ordering is the four sorted by those seconds.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd make nm strings debugfs dumpe2fs jq

root=$BP_TMPDIR/root
make -C "$top_builddir" -s install DESTDIR="$root" >"$BP_TMPDIR/install.log" 2>&1 ||
	{ cat "$BP_TMPDIR/install.log"; bp_fail "make install DESTDIR=$root"; }
find "$root" -type f -perm -u+x >"$BP_TMPDIR/programs"
cat "$BP_TMPDIR/programs"
if grep -E '/(bp-[a-z-]*|[a-z]*readahead-style)$' "$BP_TMPDIR/programs"; then
	bp_fail "a program of the boot bench is installed"
fi
bin=$(grep -E '/sbin/bootpack$' "$BP_TMPDIR/programs") || bp_fail "no sbin/bootpack installed"

nm "$bin" >"$BP_TMPDIR/nm" 2>&1 || true
bp_grep ' T cmd_bench$' "$BP_TMPDIR/nm"
if grep -E ' (bp_strategy_|bp_svg_)' "$BP_TMPDIR/nm"; then
	bp_fail "the installed bootpack links the strategies or the SVG drawing"
fi
if strings "$bin" | grep -E 'sreadahead|ureadahead|<svg'; then
	bp_fail "the installed bootpack holds a rival reader's name or SVG markup"
fi
bp_expect_exit 0 "$bin" bench --help
bp_grep '^ -m, --model' "$BP_TMPDIR/out"
if grep -E -- '--svg|--pack|sreadahead|ureadahead' "$BP_TMPDIR/out"; then
	bp_fail "bootpack bench --help offers the ranking or the drawing"
fi

img=$(bp_fixture ext4)
"$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/t" /etc/fstab /etc/passwd /usr/bin/bash ||
	bp_fail "mktrace"
bp_expect_exit 2 "$bin" bench --pack "$BP_TMPDIR/p" --trace "$BP_TMPDIR/t" "$img"
bp_expect_exit 0 "$top_builddir/bench/boot/bp-strategies" --json -m all --trace "$BP_TMPDIR/t" "$img"
jq -e '.ranking.models | length == 10 and all(.[];
	([.strategies[].strategy] == ["stock", "sreadahead", "ureadahead", "bootpack"]) and
	all(.strategies[]; .seconds > 0) and
	(. as $m | [.ordering[] as $o | $m.strategies[] | select(.strategy == $o) | .seconds] |
		. == sort) and
	((.ordering | sort) == ([.strategies[].strategy] | sort)))' "$BP_TMPDIR/out" >/dev/null ||
	{ cat "$BP_TMPDIR/out"; bp_fail "bp-strategies: not four strategies ranked on every model"; }
jq -r '.ranking.models[] | "\(.model): \(.ordering | join(" < "))"' "$BP_TMPDIR/out"
exit 0
