#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The loop's pack refresh (a read boot merged into the trace) decides the
# budget again when the pack's was automatic: the probe stored beside the
# loop state (rate_mbs) x the merged trace's last first access cuts the pack
# in first-access order; with no probe (25 MB/s) everything traced fits. A
# budget given as a size stays. The expected budget and files are computed
# here from the probe and the trace's times, or the boot's measured time to
# default.target when the sample has one; the pack is read with dump -J;
# status names the term.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
# The hit rate status samples is what is resident (mincore): held against
# the other cases' drop_caches from the first file written (bp_cache_hold).
bp_cache_hold
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd jq fsfreeze

mk_tree
mkdir -p "$ROOT/usr/lib/x" "$ROOT/usr/lib/y"
for f in a b c; do
	head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/$f"
done
head -c 100000 /dev/urandom >"$ROOT/usr/lib/y/new"
# img, sd, run; mktrace: debugfs reads the image with the tree frozen
. "$top_srcdir/tests/ts/setup/readboot.sh"
x=/usr/lib/x

bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
# boot 1 read a, b, c at 1, 2, 3 s; its pack (relayout's, here pack's) automatic
mktrace "$sd/trace" $x/a:0:all:1000000000 \
	$x/b:0:all:2000000000 $x/c:0:all:3000000000
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event traced
mkdir -p "$run"
bp_expect_exit 0 "$BOOTPACK" pack --budget auto --probe none --trace "$sd/trace" -o "$run/pack" \
	"$TREE_DEV"
echo "done in 3 s" >"$run/relayout.status"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
bp_grep '^phase=read$' "$sd/loop"

rm -f "$sd/control-boot"	# a control boot is sampled, not read
# a read boot: a, b, c again, then y/new at 4 s, the last first access
mktrace "$BP_TMPDIR/next" $x/a:0:all:1000000000 \
	$x/b:0:all:2000000000 $x/c:0:all:3000000000 /usr/lib/y/new:0:all:4000000000

# packed PACK: the paths it holds, sorted
packed() {
	"$BOOTPACK" dump -J "$1" >"$BP_TMPDIR/dump.json"
	jq -r '[.entries[].path] | unique | join(" ")' "$BP_TMPDIR/dump.json"
}

# The probe: 0.15 MB/s x 4 s (no boot time measured: the trace's last first
# access) = 600,000 bytes: a and b (524,288 bytes, with
# their directories' and inodes' blocks) fit, c does not, nor y/new after it.
printf '# Written by bootpack setup\nmodel=x\nrate_mbs=0.15\nmax_request=131072\n' >"$sd/probe"
last=$(awk '/^R /{ if ($4 > m) m = $4 } END { print m }' "$sd/trace" "$BP_TMPDIR/next")
want=$((150000 * last / 1000000000))
[ "$want" = 600000 ] || bp_fail "expected budget $want"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
bp_grep '^pack rewritten from the merged trace' "$BP_TMPDIR/out"
[ "$(packed "$sd/pack")" = "$x/a $x/b" ] || bp_fail "packed: $(packed "$sd/pack")"
jq -e --argjson b "$want" '.pack.budget == $b and .pack.budget_bound == "disk" and
	.pack.total_bytes <= $b and .pack.total_bytes >= 524288 and .pack.cut_bytes >= 362144' \
	"$BP_TMPDIR/dump.json" >/dev/null || bp_fail "refresh with a probe: $(jq -c .pack \
	"$BP_TMPDIR/dump.json")"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep "^Budget: +$want bytes, automatic, bound by disk$" "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --json
jq -e '.pack.budget_bound == "disk"' "$BP_TMPDIR/out" >/dev/null || bp_fail "status --json"

# A read boot whose time to default.target was measured (--boot-us, as the
# sample timer passes it) and not the boot that relaid out (/run emptied by
# a reboot): 0.15 MB/s x 2.5 s = 375,000 bytes, a alone.
rm -f "$sd/control-boot" "$run/relayout.status.taken"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-us 2500000 \
	--boot-trace "$BP_TMPDIR/next"
[ "$(packed "$sd/pack")" = "$x/a" ] || bp_fail "packed after a 2.5 s boot: $(packed "$sd/pack")"
jq -e '.pack.budget == 375000 and .pack.budget_bound == "disk"' "$BP_TMPDIR/dump.json" \
	>/dev/null || bp_fail "refresh with a boot time: $(jq -c .pack "$BP_TMPDIR/dump.json")"

# No probe: 25 MB/s x 2.5 s is 62.5 MB; this machine's memory / 4 is more than
# the 886,432 traced file bytes: all of them, nothing cut.
rm "$sd/probe"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
[ "$(packed "$sd/pack")" = "$x/a $x/b $x/c /usr/lib/y/new" ] ||
	bp_fail "packed with no probe: $(packed "$sd/pack")"
jq -e '.pack.cut_bytes == 0 and .pack.budget == .pack.total_bytes and
	.pack.budget_bound == "traced"' "$BP_TMPDIR/dump.json" >/dev/null ||
	bp_fail "refresh with no probe: $(jq -c .pack "$BP_TMPDIR/dump.json")"

# A budget given as a size stays, whatever the probe says.
printf 'rate_mbs=0.15\n' >"$sd/probe"
bp_expect_exit 0 "$BOOTPACK" pack --budget 1M --trace "$sd/trace" -o "$sd/pack" "$TREE_DEV"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
[ "$(packed "$sd/pack")" = "$x/a $x/b $x/c /usr/lib/y/new" ] ||
	bp_fail "packed under 1M: $(packed "$sd/pack")"
jq -e '.pack.budget == 1048576 and .pack.budget_bound == "given"' "$BP_TMPDIR/dump.json" \
	>/dev/null || bp_fail "the given budget did not stay"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Budget: +1048576 bytes, given$' "$BP_TMPDIR/out"
exit 0
