#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The loop's steps on a tree: a saved trace schedules the relayout and drops
# the trace arguments; a boot whose initramfs did not relay out (or skipped)
# counts an attempt; a completed one brings in the pack (byte for byte) and
# the undo file (mode 0600) and moves to phase read; the hit rate follows
# the page cache (mincore; files evicted with dd iflag=nocache); a dpkg-style
# replacement of a packed file marks the pack stale and schedules a trace,
# an unrelated package run does not; two low hit rates schedule a trace.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

mk_tree
mkdir -p "$ROOT/usr/lib/x"
for f in a b c; do
	head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/$f"
done
sync
img=$BP_TMPDIR/root.img
state=$ROOT/var/lib/bootpack/loop
run=$ROOT/run/bootpack
phase() { sed -n 's/^phase=//p' "$state"; }

bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ "$(phase)" = trace ] || bp_fail "phase $(phase) after setup"

# boot 1's trace-stop unit: no trace yet -> refused, still tracing
bp_expect_exit 1 "$BOOTPACK" setup --root "$ROOT" --event traced
bp_grep 'no trace was saved' "$BP_TMPDIR/err"
[ "$(phase)" = trace ] || bp_fail "phase moved without a trace"
sync
bash "$top_srcdir/tests/mktrace.sh" "$img" "$ROOT/var/lib/bootpack/trace" \
	/usr/lib/x/a /usr/lib/x/b /usr/lib/x/c
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event traced
[ "$(phase)" = relayout ] || bp_fail "phase $(phase) after the trace"
[ ! -s "$ROOT/var/lib/bootpack/cmdline" ] || bp_fail "the trace arguments stay after the trace"

# boot 2 without the initramfs' relayout, then a skipped one
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
bp_grep '^attempts=1$' "$state"
bp_grep 'initramfs did not try' "$state"
mkdir -p "$run"
echo "skipped not clean: e2fsck -fn exit 4" >"$run/relayout.status"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
bp_grep '^attempts=2$' "$state"
bp_grep '^reason=skipped not clean' "$state"
bp_grep 'initramfs relayout: skipped not clean' "$ROOT/var/lib/bootpack/loop.log"
[ -f "$run/relayout.status.taken" ] || bp_fail "the status was not taken"
[ "$(phase)" = relayout ] || bp_fail "phase $(phase) after a skipped relayout"

# a completed one: pack and undo file taken over
bp_expect_exit 0 "$BOOTPACK" pack --trace "$ROOT/var/lib/bootpack/trace" -o "$run/pack" "$TREE_DEV"
head -c 8192 /dev/urandom >"$run/relayout.e2undo"
echo "done in 3 s" >"$run/relayout.status"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
[ "$(phase)" = read ] || bp_fail "phase $(phase) after the relayout"
cmp "$run/pack" "$ROOT/var/lib/bootpack/pack" || bp_fail "the pack was not copied"
cmp "$run/relayout.e2undo" "$ROOT/var/lib/bootpack/relayout-root.e2undo" ||
	bp_fail "the undo file was not copied"
[ "$(stat -c %a "$ROOT/var/lib/bootpack/relayout-root.e2undo")" = 600 ] ||
	bp_fail "the undo file is not mode 0600"
bp_grep '^attempts=0$' "$state"

# hit rate: all resident, then one file of three evicted
bp_cache_hold
cat "$ROOT"/usr/lib/x/* >/dev/null
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample
bp_grep '^hit rate 100% ' "$BP_TMPDIR/out"
dd if="$ROOT/usr/lib/x/a" iflag=nocache count=0 status=none
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample
bp_grep '^hit rate (66|67)% ' "$BP_TMPDIR/out"
[ "$(phase)" = read ] || bp_fail "a hit rate over 50% scheduled a trace"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Hit rate: +(66|67)% ' "$BP_TMPDIR/out"
bp_grep '^Stale: +no$' "$BP_TMPDIR/out"

# packages: nothing of the pack changed -> nothing; b replaced as dpkg does -> stale
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event packages
[ "$(phase)" = read ] || bp_fail "an unrelated package run made the pack stale"
head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/b.dpkg-new"
mv "$ROOT/usr/lib/x/b.dpkg-new" "$ROOT/usr/lib/x/b"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event packages
[ "$(phase)" = trace ] || bp_fail "phase $(phase) after a packed file was replaced"
bp_grep '^reason=stale: packages changed 1 file\(s\) of the pack, e.g. /usr/lib/x/b$' "$state"
bp_grep '^trace_event=filemap:' "$ROOT/var/lib/bootpack/cmdline"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Stale: +yes' "$BP_TMPDIR/out"

# back to read (a new relayout), then two boots under 50%: a new trace
echo "done in 2 s" >"$run/relayout.status"
sed -i 's/^phase=.*/phase=relayout/' "$state"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
[ "$(phase)" = read ] || bp_fail "phase $(phase)"
for f in a b c; do dd if="$ROOT/usr/lib/x/$f" iflag=nocache count=0 status=none; done
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample
[ "$(phase)" = read ] || bp_fail "one low sample scheduled a trace"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample
bp_grep 'a new trace is scheduled' "$BP_TMPDIR/out"
[ "$(phase)" = trace ] || bp_fail "two low samples did not schedule a trace"
bp_grep '^reason=stale: hit rate [0-9]+% under 50% on 2 boots$' "$state"
[ "$(grep -c "^time=" "$ROOT/var/lib/bootpack/stats")" = 4 ] || bp_fail "stats lines"

# does readahead pay? Every 4th boot of the read phase is a control boot (the
# reader units skip themselves while control-boot exists); the relayout boot
# is not timed; read boots no faster than control boots turn the loop off
ctl=$ROOT/var/lib/bootpack/control-boot
# the initramfs reader (setup's default deployment) obeys the same files: its
# init-bottom script, as initramfs-tools runs it (rootmnt), with a stand-in
# for /sbin/bootpack-read that logs its call and runs the real reader
cat >"$BP_TMPDIR/reader" <<SH
#!/bin/sh
echo "\$*" >>"$BP_TMPDIR/reader.calls"
"$top_builddir/bootpack-read" "\$@"
rc=\$?
echo "rc=\$rc" >>"$BP_TMPDIR/reader.calls"
exit \$rc
SH
chmod 755 "$BP_TMPDIR/reader"
sed -e "s|@bpstatedir@|/var/lib/bootpack|g" -e "s|/sbin/bootpack-read|$BP_TMPDIR/reader|g" \
	-e "s|/run/bootpack|$run|g" \
	"$top_srcdir/boot/initramfs-tools/scripts/init-bottom/bootpack.in" >"$BP_TMPDIR/init-bottom"
# init_bottom: 0 if the script ran the reader; its last exit status in $reader_rc
init_bottom() {
	rm -f "$BP_TMPDIR/reader.calls"
	rootmnt=$ROOT sh "$BP_TMPDIR/init-bottom" || bp_fail "init-bottom failed the boot"
	[ -f "$BP_TMPDIR/reader.calls" ] || return 1
	reader_rc=$(sed -n 's/^rc=//p' "$BP_TMPDIR/reader.calls")
}
echo "done in 2 s" >"$run/relayout.status"
sed -i 's/^phase=.*/phase=relayout/' "$state"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
[ "$(phase)" = read ] || bp_fail "phase $(phase)"
cat "$ROOT"/usr/lib/x/* >/dev/null
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-us 190000000
tail -n 1 "$ROOT/var/lib/bootpack/stats" | grep -q ' read=1 boot_ms=0$' ||
	bp_fail "the relayout boot was timed: $(tail -n 1 "$ROOT/var/lib/bootpack/stats")"
rm -f "$run/relayout.status.taken"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-us 50000000
[ ! -e "$ctl" ] || bp_fail "a control boot after 2 read boots"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-us 50100000
[ -e "$ctl" ] || bp_fail "no control boot after 3 read boots"
! init_bottom || bp_fail "the initramfs reader ran on a control boot"
rm "$ctl"
init_bottom || bp_fail "the initramfs reader did not run on a read boot"
[ "$reader_rc" = 0 ] || bp_fail "the initramfs reader of a read boot exited $reader_rc"
touch "$ctl"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Readahead: +not decided yet: read boots 50050 ms \(median of 2\), boots without it 0 ms \(median of 0\); the next boot is a control boot$' "$BP_TMPDIR/out"
grep -q 'ConditionPathExists=!/var/lib/bootpack/control-boot' "$top_builddir/boot/bootpack-read.service" ||
	bp_fail "bootpack-read.service does not skip a control boot"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-us 49000000
bp_grep '^a control boot: the pack was not read$' "$BP_TMPDIR/out"
[ ! -e "$ctl" ] || bp_fail "the control boot's file stays"
tail -n 1 "$ROOT/var/lib/bootpack/stats" | grep -q ' read=0 boot_ms=49000$' || bp_fail "control line"
for t in 50200000 49900000 50000000; do
	bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-us $t
	[ "$(phase)" = read ] || bp_fail "phase $(phase) before the second control boot"
done
[ -e "$ctl" ] || bp_fail "no second control boot"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-us 49500000
bp_grep '^turned off: readahead does not pay on this disk: boots read from the pack 50\.0 s \(median of 5\), without it 49\.2 s \(median of 2\)' "$BP_TMPDIR/out"
[ "$(phase)" = off ] || bp_fail "phase $(phase) after readahead did not pay"
[ ! -e "$ROOT/var/lib/bootpack/pack" ] && [ -f "$ROOT/var/lib/bootpack/pack.off" ] ||
	bp_fail "the pack is still there for the reader"
# the loop is off: the initramfs reader finds no pack (exit 3) and reads nothing
init_bottom || bp_fail "init-bottom did not run the reader"
[ "$reader_rc" = 3 ] || bp_fail "loop off: the initramfs reader exited $reader_rc, not 3 (no pack)"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Readahead: +off, it does not pay on this disk' "$BP_TMPDIR/out"
bp_grep '^Reason: +readahead does not pay on this disk' "$BP_TMPDIR/out"
exit 0
