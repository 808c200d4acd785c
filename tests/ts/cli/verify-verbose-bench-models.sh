#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# -v and -vv change what verify prints (issue 13: they changed nothing):
# -v says what was opened and what the trace is (stderr) and lists every
# stale pack entry; -vv lists every traced file and every pack entry. -q
# prints errors only (bootpack(8)), no report. bench -m with an unknown model lists the
# models (exit 2); pack -o into a missing directory names it.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid
img=$(bp_fixture ext4)
t=$BP_TMPDIR/t
rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
nfiles=$(grep -c '^F ' "$t")

bp_expect_exit 0 "$BOOTPACK" verify --trace "$t" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/out0"
[ ! -s "$BP_TMPDIR/err" ] || bp_fail "verify printed on stderr: $(cat "$BP_TMPDIR/err")"
for v in -v --verbose; do
	bp_expect_exit 0 "$BOOTPACK" verify "$v" --trace "$t" "$img"
	cmp -s "$BP_TMPDIR/out" "$BP_TMPDIR/out0" || bp_fail "verify $v changed stdout"
	bp_grep "^bootpack verify: $img resolves to $img \(ext4, UUID [0-9a-f-]+\)$" "$BP_TMPDIR/err"
	bp_grep "^bootpack verify: $t: trace of $(basename "$img") \(source: import\), taken 2023-11-14 22:13:20 UTC on Linux test: $nfiles files, 0 metadata ranges$" \
		"$BP_TMPDIR/err"
	[ "$(wc -l <"$BP_TMPDIR/err")" = 2 ] || bp_fail "verify $v: not two lines on stderr"
done
bp_expect_exit 0 "$BOOTPACK" -v verify -v --trace "$t" "$img"
[ "$(grep -c ': inode [0-9]*, .* traced in [0-9]* ranges*$' "$BP_TMPDIR/err")" = "$nfiles" ] ||
	bp_fail "verify -vv: not one line per traced file"
bp_grep "^bootpack verify: /usr/bin/bash: inode " "$BP_TMPDIR/err"
bp_expect_exit 0 "$BOOTPACK" verify -q --trace "$t" "$img"
[ ! -s "$BP_TMPDIR/out" ] && [ ! -s "$BP_TMPDIR/err" ] || bp_fail "verify -q printed more than errors"

# A fresh pack: the default lists no entry (none is stale), -vv every one.
bp_expect_exit 0 "$BOOTPACK" pack --trace "$t" -o "$BP_TMPDIR/p" "$img"
nent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pack"]["entries"])' \
	<("$BOOTPACK" dump -J "$BP_TMPDIR/p"))
bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/p" "$img"
[ "$(grep -c '^  fresh ' "$BP_TMPDIR/out" || true)" = 0 ] || bp_fail "default lists fresh entries"
bp_expect_exit 0 "$BOOTPACK" verify -vv --pack "$BP_TMPDIR/p" "$img"
[ "$(grep -c '^  fresh ' "$BP_TMPDIR/out")" = "$nent" ] || bp_fail "-vv does not list all $nent entries"
bp_grep "^bootpack verify: $img resolves to $img" "$BP_TMPDIR/err"

bp_expect_exit 2 "$BOOTPACK" bench -m nosuch --trace "$t" "$img"
bp_grep "^bootpack bench: unknown disk model 'nosuch'; the models are:$" "$BP_TMPDIR/err"
for m in eee-flash hdd-5k160; do bp_grep "^  $m +[A-Za-z0-9]" "$BP_TMPDIR/err"; done
bp_grep "^Try 'bootpack bench --help'" "$BP_TMPDIR/err"

# pack -o into a missing relative directory names the directory, not a
# temporary file (issue 13), exit 1, nothing written.
(cd "$BP_TMPDIR" && bp_expect_exit 1 "$BOOTPACK" pack --trace "$t" -o nodir/p "$img")
bp_grep "^bootpack pack: nodir/p: the directory nodir does not exist; create it first" "$BP_TMPDIR/err"
[ ! -e "$BP_TMPDIR/nodir" ] || bp_fail "pack -o nodir/p created nodir"
