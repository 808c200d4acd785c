#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A read boot on a tree: its reads (a trace of the "next boot" that read a
# file and a directory the traced boot did not) are counted as misses, by
# kind, and named by status (text and --json); merged into the stored trace
# and the pack, which then holds the new file, its directory's block and its
# inode-table block (debugfs the oracle) besides the first boot's files;
# misses over the threshold on two boots schedule a relayout. The traced
# boot being the system's first one (/run/systemd/first-boot) is traced again.
# The image is read (debugfs, dumpe2fs, mktrace.sh) only with the tree frozen
# (frozen, below), never beside the kernel's writes to it.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd jq fsfreeze

mk_tree
mkdir -p "$ROOT/usr/lib/x" "$ROOT/usr/lib/y" "$ROOT/usr/share/z"
for f in a b c; do
	head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/$f"
done
head -c 100000 /dev/urandom >"$ROOT/usr/lib/y/new"
head -c 50000 /dev/urandom >"$ROOT/usr/share/z/new2"
sync
. "$top_srcdir/tests/ts/setup/readboot.sh"
bs=$(frozen dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
# blk PATH: the first block of a directory; imap PATH: its inode's table block
blk() { frozen debugfs -R "blocks $1" "$img" 2>/dev/null | awk '{print $1}'; }
imap() { frozen debugfs -R "imap $1" "$img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p'; }

bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ -L "$ROOT/etc/systemd/system/sysinit.target.wants/bootpack-misses.service" ] ||
	bp_fail "setup did not enable the recorder's unit"

# the system's first boot is not a boot set: traced again
mktrace "$sd/trace" /usr/lib/x/a
mkdir -p "$ROOT/run/systemd" && touch "$ROOT/run/systemd/first-boot"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event traced
[ "$(phase)" = trace ] || bp_fail "phase $(phase) after a first boot's trace"
[ -f "$sd/trace.first-boot" ] && [ ! -e "$sd/trace" ] || bp_fail "the first boot's trace is used"
rm "$ROOT/run/systemd/first-boot"

# boot 1 traced a, b, c; boot 2 relaid out
relaid /usr/lib/x/a /usr/lib/x/b /usr/lib/x/c
"$BOOTPACK" dump --json "$sd/pack" >"$BP_TMPDIR/p0.json"
jq -e '[.entries[].path] | index("/usr/lib/y/new") == null' "$BP_TMPDIR/p0.json" >/dev/null ||
	bp_fail "the first pack holds the new file already"

# the next boot: a, b, c from the pack (resident), then y/new and y's block
bp_cache_hold
cat "$ROOT"/usr/lib/x/* >/dev/null
ydir=$(blk /usr/lib/y)
mktrace "$BP_TMPDIR/next" -m "$((ydir * bs)):$bs:5000000" \
	/usr/lib/x/a /usr/lib/x/b /usr/lib/x/c /usr/lib/y/new
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
miss=$((100000 + bs)) read=$((786432 + 100000 + bs))
hit=$((786432 * 100 / read))
bp_grep "^misses [0-9]+ requests, $miss bytes outside the pack; $hit% of the boot" \
	"$BP_TMPDIR/out"
bp_grep '^pack rewritten from the merged trace' "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep "^Misses: +[0-9]+ requests, [0-9]+ pages, $miss bytes read outside the pack" \
	"$BP_TMPDIR/out"
bp_grep "^Boot reads: +$hit% in the pack \\(786432 of $read bytes" "$BP_TMPDIR/out"
bp_grep '^  data +100000 bytes in 1 requests$' "$BP_TMPDIR/out"
bp_grep "^  directory +$bs bytes in 1 requests$" "$BP_TMPDIR/out"
bp_grep '^  missed data +100000 bytes  /usr/lib/y/new$' "$BP_TMPDIR/out"
bp_grep "^  missed directory $bs bytes  /usr/lib/y$" "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --json
jq -e --argjson bs "$bs" '.misses | .bytes == 100000 + $bs and .hit_pct == '"$hit"' and
	.kinds.data.bytes == 100000 and .kinds.directory.bytes == $bs and
	.kinds."inode-table".bytes == 0 and .kinds.other.bytes == 0 and
	(.largest | map(.path) | index("/usr/lib/y/new")) != null' "$BP_TMPDIR/out" >/dev/null ||
	bp_fail "status --json: $(cat "$BP_TMPDIR/out")"

# merged: the stored trace and the pack hold the new file, y's block and the
# new file's inode-table block; a, b, c stay
bp_grep ' /usr/lib/y/new$' "$sd/trace"
bp_grep ' /usr/lib/x/a$' "$sd/trace"
"$BOOTPACK" dump --json "$sd/pack" >"$BP_TMPDIR/p1.json"
for f in /usr/lib/x/a /usr/lib/x/b /usr/lib/x/c /usr/lib/y/new; do
	jq -e --arg f "$f" '[.entries[] | select(.path == $f) | .length] | add' \
		"$BP_TMPDIR/p1.json" >/dev/null || bp_fail "the pack lacks $f"
done
jq -e --argjson o $((ydir * bs)) --argjson i $(($(imap /usr/lib/y/new) * bs)) \
	'[.meta[].offset] as $m | ($m | index($o)) != null and ($m | index($i)) != null' \
	"$BP_TMPDIR/p1.json" >/dev/null || bp_fail "the pack lacks y's block or new's inode block"
bp_expect_exit 0 "$BOOTPACK" verify --pack "$sd/pack" "$TREE_DEV"

# the same boot again: nothing missed now
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
bp_grep '^misses 0 requests, 0 bytes outside the pack; 100% ' "$BP_TMPDIR/out"
bp_grep '^high_misses=0$' "$state"

# misboot NAME N: a boot that reads N new directories and 8 KiB of a 128 KiB
# file in each (ext4 packs files under 64 KiB together): N requests or more
# outside the pack
misboot() {
	local d b m=() f=()
	for d in $(seq 1 "$2"); do
		mkdir -p "$ROOT/srv/$1$d"
		head -c 131072 /dev/urandom >"$ROOT/srv/$1$d/f"
		f+=("/srv/$1$d/f:0:8192")
	done
	sync
	while read -r b; do
		m+=(-m "$((b * bs)):$bs:1000")
	done < <(for d in $(seq 1 "$2"); do blk "/srv/$1$d"; done | sort -n)
	rm -f "$sd/control-boot"	# the loop's control boots count no misses
	mktrace "$BP_TMPDIR/$1" "${m[@]}" /usr/lib/x/a "${f[@]}"
	bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/$1"
}
# a handful of misses: over a tenth of this small boot's requests, but fewer
# than 16 cost a fraction of a second: no reason for a relayout
misboot t 3
bp_grep '^misses ([3-9]|1[0-5]) requests' "$BP_TMPDIR/out"
bp_grep '^high_misses=0$' "$state"
# two boots in a row that miss more than the threshold (10% of the requests,
# 16 at least): a relayout, no trace
misboot u 16
bp_grep '^misses (1[6-9]|[2-9][0-9]) requests' "$BP_TMPDIR/out"
bp_grep '^high_misses=1$' "$state"
[ "$(phase)" = read ] || bp_fail "one boot of misses scheduled $(phase)"
misboot v 16
bp_grep '^a relayout is scheduled for the next boot$' "$BP_TMPDIR/out"
[ "$(phase)" = relayout ] || bp_fail "phase $(phase) after two boots of misses"
[ ! -s "$sd/cmdline" ] || bp_fail "a relayout boot with trace arguments"
bp_grep '^reason=misses: ' "$state"
# the relayout done: the read boots' metadata positions are dropped
echo "done in 2 s" >"$run/relayout.status"
cp "$sd/pack" "$run/pack"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
[ ! -e "$sd/trace.reads" ] || bp_fail "trace.reads outlives the relayout"
exit 0
