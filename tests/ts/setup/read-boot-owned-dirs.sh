#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A read boot whose trace (version 2) reads directories by owner, on no
# traced file's path and outside the pack (a unit directory systemd lists,
# a directory a negative lookup searched): status counts every block of
# them as a directory miss (debugfs the oracle: the directories' blocks),
# none as "other", and names each by its path; the refreshed pack then
# holds them where they are.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd jq fsfreeze

mk_tree
mkdir -p "$ROOT/usr/lib/x" "$ROOT/etc/rc2.d" "$ROOT/etc/binfmt.d" "$ROOT/usr/lib/units"
head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/a"
# a directory of more than one block
for i in $(seq 1 200); do : >"$ROOT/usr/lib/units/unit-with-a-long-name-$i.service"; done
: >"$ROOT/etc/rc2.d/S01x"
sync
. "$top_srcdir/tests/ts/setup/readboot.sh"
bs=$(frozen dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
dirs=(/etc/rc2.d /etc/binfmt.d /usr/lib/units)
# the directories' blocks, from debugfs
blocks=()
for d in "${dirs[@]}"; do
	# shellcheck disable=SC2207
	blocks+=($(frozen debugfs -R "blocks $d" "$img" 2>/dev/null))
done
nblk=${#blocks[@]}
[ "$nblk" -gt 3 ] || bp_fail "only $nblk directory blocks (want more than one for units)"
want=$((nblk * bs))

bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
relaid /usr/lib/x/a
"$BOOTPACK" dump --json "$sd/pack" >"$BP_TMPDIR/p0.json"
for b in "${blocks[@]}"; do
	jq -e --argjson o $((b * bs)) '[.meta[] | select(.offset <= $o and
		$o < .offset + .length)] | length == 0' "$BP_TMPDIR/p0.json" >/dev/null ||
		bp_fail "the first pack holds directory block $b already"
done

bp_cache_hold
cat "$ROOT/usr/lib/x/a" >/dev/null
mktrace "$BP_TMPDIR/next" -d /etc/rc2.d:1000 -d /etc/binfmt.d:2000 -d /usr/lib/units:3000 \
	/usr/lib/x/a
head -n1 "$BP_TMPDIR/next" | grep -qx 'bootpack-trace 2' || bp_fail "mktrace -d wrote no v2 trace"
[ "$(grep -c '^O dir ' "$BP_TMPDIR/next")" = 3 ] || bp_fail "mktrace -d: $(cat "$BP_TMPDIR/next")"
! grep -q '^M ' "$BP_TMPDIR/next" || bp_fail "the directories are M lines"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample --boot-trace "$BP_TMPDIR/next"
bp_grep "^misses [0-9]+ requests, $want bytes outside the pack" "$BP_TMPDIR/out"
bp_grep '^pack rewritten from the merged trace' "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep "^  directory +$want bytes in [1-9][0-9]* requests$" "$BP_TMPDIR/out"
# named by their paths, though on no traced file's path
for d in "${dirs[@]}"; do
	bp_grep "^  missed directory [0-9]+ bytes  $d\$" "$BP_TMPDIR/out"
done
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --json
jq -e --argjson w "$want" '.misses | .bytes == $w and .kinds.directory.bytes == $w and
	.kinds.directory.requests >= 1 and .kinds.other.bytes == 0 and .kinds.data.bytes == 0' \
	"$BP_TMPDIR/out" >/dev/null || bp_fail "status --json: $(cat "$BP_TMPDIR/out")"

# refreshed from the merged trace: the pack holds every block of them
"$BOOTPACK" dump --json "$sd/pack" >"$BP_TMPDIR/p1.json"
for b in "${blocks[@]}"; do
	jq -e --argjson o $((b * bs)) '[.meta[] | select(.offset <= $o and
		$o < .offset + .length)] | length == 1' "$BP_TMPDIR/p1.json" >/dev/null ||
		bp_fail "the refreshed pack lacks directory block $b"
done
exit 0
