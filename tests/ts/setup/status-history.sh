#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack status shows the loop's history (issue 39): the last boots the
# state keeps, what each did, its requests outside the region, the ranges
# the pack gained, its time, the phase after it; and why the misses rule
# stopped. The state file is written here as the policy writes it: 14
# boots, of which the last 12 are kept; a damaged line is dropped. The
# oracle is the state file's own lines, read back by status (text, JSON).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd jq
statedir=$(sed -n 's/^#define BP_STATEDIR "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$statedir" ] || bp_fail "no BP_STATEDIR in config.h"
root=$BP_TMPDIR/root
mkdir -p "$root$statedir"
now=$(date +%s)
{
	printf '%s\n' phase=read device=UUID=x cmdline= reason=relaid "setup_time=$now" \
		"phase_time=$now" "relayout_time=$now" attempts=0 low_hits=0 grub=0 boots=14 \
		rule_off=1 "rule_reason=the relayout of boot 7 did not reduce the requests" \
		reads_since_relayout=6 penalty=101
	echo "history=1,$now,traced,0,0,0,0,0,relayout"
	echo "history=2,$now,relaid,28,0,180,0,99,read"
	echo "history=x,$now,read,1,2,3,4,5,read"
	for b in 3 4 5 6; do echo "history=$b,$now,read,4$b,1$b,200,2944$b,99,read"; done
	echo "history=7,$now,relaid,101,0,300,0,91,read"
	for b in 8 9 10 11 12 13; do echo "history=$b,$now,read,21,121,300,29445,91,read"; done
	echo "history=14,$now,control,0,0,0,29100,40,read"
} >"$root$statedir/loop"
bp_expect_exit 0 "$BOOTPACK" status --root "$root"
bp_grep '^Boots: +14 since setup; the misses rule stopped: the relayout of boot 7 did not' \
	"$BP_TMPDIR/out"
bp_grep '^History: +boot +did +outside +gained +requests +hit +boot time +next$' "$BP_TMPDIR/out"
[ "$(grep -cE '^ +[0-9]+  [a-z-]+ ' "$BP_TMPDIR/out")" = 12 ] || bp_fail "not 12 boots shown"
! grep -qE '^ +(1|2)  (traced|relaid) ' "$BP_TMPDIR/out" || bp_fail "boots 1-2 not dropped"
bp_grep '^ +3  read +43 +13 +200 +99% +29.4 s +read$' "$BP_TMPDIR/out"
bp_grep '^ +7  relaid +101 +0 +300 +91% +- +read$' "$BP_TMPDIR/out"
bp_grep '^ +14  control +- +- +- +40% +29.1 s +read$' "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" status --root "$root" --json
jq -e '.boots == 14 and .misses_rule.on == false and
	(.misses_rule.reason | startswith("the relayout of boot 7")) and
	(.history | length) == 12 and .history[0].boot == 3 and .history[0].outside == 43 and
	.history[0].gained == 13 and .history[4].did == "relaid" and
	.history[11].did == "control" and .history[11].boot_ms == 29100' \
	"$BP_TMPDIR/out" >/dev/null || bp_fail "status --json: $(jq -c '{boots, misses_rule, history}' \
	"$BP_TMPDIR/out")"
exit 0
