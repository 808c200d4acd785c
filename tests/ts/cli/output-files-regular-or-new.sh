#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Output files (pack -o, trace --merge -o) go through one helper: a device
# node (our own char 1,3 node), a FIFO, a directory, a dangling symlink or a
# missing directory is refused (exit 1) and left as it was; naming an input
# is bad usage (exit 2). A regular file is replaced atomically (new inode)
# keeping its owner and mode; a symlink is followed; another user's file in a
# sticky world-writable directory is refused. A temporary file left by a
# killed writer is removed by the next write, a live writer's (locked) stays.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_root
bp_require_cmd debugfs dumpe2fs blkid mknod mkfifo flock
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
o=$BP_TMPDIR/o
mkdir "$o" "$o/dir"
mknod "$o/null" c 1 3
mkfifo "$o/fifo"
ln -s "$o/nowhere" "$o/dangling"

for verb in pack merge; do
	run() {
		if [ $verb = pack ]; then
			bp_expect_exit "$1" "$BOOTPACK" pack --trace "$t" -o "$2" "$img"
		else
			bp_expect_exit "$1" "$BOOTPACK" trace --merge "$t" -o "$2"
		fi
	}
	run 1 "$o/null"
	bp_grep "null: is a character device node; bootpack writes the (pack|trace) only to a regular file or a new name" \
		"$BP_TMPDIR/err"
	[ -c "$o/null" ] || bp_fail "$verb -o replaced the device node"
	run 1 "$o/fifo"
	bp_grep "fifo: is a FIFO" "$BP_TMPDIR/err"
	[ -p "$o/fifo" ] || bp_fail "$verb -o replaced the FIFO"
	run 1 "$o/dir"
	bp_grep "dir: is a directory" "$BP_TMPDIR/err"
	[ -d "$o/dir" ] && [ -z "$(ls -A "$o/dir")" ] || bp_fail "$verb -o wrote into the directory"
	run 1 "$o/dangling"
	bp_grep "dangling: is a dangling symbolic link" "$BP_TMPDIR/err"
	run 1 "$o/missing/out"
	bp_grep "the directory $o/missing does not exist" "$BP_TMPDIR/err"
	run 2 "$t"
	bp_grep "is the same file as the trace" "$BP_TMPDIR/err"
	[ "$(find "$o" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')" = "dangling dir fifo null " ] ||
		bp_fail "$verb: refused outputs left files: $(ls -A "$o")"
done
bp_expect_exit 2 "$BOOTPACK" pack --trace "$t" -o "$img" "$img"
bp_grep "is the same file as the device" "$BP_TMPDIR/err"

# A regular file: replaced by rename (a new inode), owner and mode kept.
bp_expect_exit 0 "$BOOTPACK" pack --trace "$t" -o "$o/pack" "$img"
chown 65534:65534 "$o/pack"
chmod 0600 "$o/pack"
ino=$(stat -c %i "$o/pack")
bp_expect_exit 0 "$BOOTPACK" pack --trace "$t" -o "$o/pack" "$img"
[ "$(stat -c '%i' "$o/pack")" != "$ino" ] || bp_fail "not replaced by rename"
[ "$(stat -c '%u:%g %a' "$o/pack")" = "65534:65534 600" ] ||
	bp_fail "owner/mode not kept: $(stat -c '%u:%g %a' "$o/pack")"
"$BOOTPACK" dump "$o/pack" >/dev/null || bp_fail "the new pack does not parse"

# A symlink: the file it points to is replaced, the link stays.
ln -s "$o/pack" "$o/link"
bp_expect_exit 0 "$BOOTPACK" trace --merge "$t" -o "$o/link"
[ -L "$o/link" ] || bp_fail "the symlink was replaced"
grep -q '^bootpack-trace ' "$o/pack" || bp_fail "the link's target was not written"

# Another user's file in a sticky world-writable directory (like /tmp): refused.
mkdir -m 1777 "$BP_TMPDIR/sticky"
echo theirs >"$BP_TMPDIR/sticky/pack"
chown 65534:65534 "$BP_TMPDIR/sticky/pack"
bp_expect_exit 1 "$BOOTPACK" pack --trace "$t" -o "$BP_TMPDIR/sticky/pack" "$img"
bp_grep "belongs to user 65534 in the sticky directory" "$BP_TMPDIR/err"
[ "$(cat "$BP_TMPDIR/sticky/pack")" = theirs ] || bp_fail "another user's file was replaced"

# Leftovers of a killed writer go; a live writer's (flock held) stays.
: >"$o/pack.tmp-DeAd01"
: >"$o/pack.tmp-LiVe01"
flock -o "$o/pack.tmp-LiVe01" sleep 30 &
holder=$!
live=$holder
bp_on_exit 'if [ -n "$live" ]; then kill "$live"; fi'
for ((i = 0; i < 100; i++)); do flock -n "$o/pack.tmp-LiVe01" true || break; sleep 0.05; done
bp_expect_exit 0 "$BOOTPACK" pack --trace "$t" -o "$o/pack" "$img"
[ ! -e "$o/pack.tmp-DeAd01" ] || bp_fail "a dead writer's temporary file was left"
[ -e "$o/pack.tmp-LiVe01" ] || bp_fail "a live writer's temporary file was removed"
kill "$holder"
wait "$holder" 2>/dev/null || true
# shellcheck disable=SC2034  # read by the exit handler above (bp_on_exit's eval)
live=
[ "$(find "$o" -mindepth 1 -maxdepth 1 -name '*.tmp-*' | wc -l)" = 1 ] || bp_fail "temporary files left: $(ls "$o")"
exit 0
