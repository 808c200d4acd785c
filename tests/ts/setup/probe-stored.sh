#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack setup --probe always measures the root's device (mounted
# read-write: allowed for setup) and keeps the figures beside the loop
# state, key=value lines whose max_request and in_flight bootpack-read
# takes (the reader's own parser, run on the file: --probe-file, checked by
# the requests it issues in reader/max-request-from-probe); the nearest
# model is one bench knows. On a tree (--root, auto) nothing is probed and
# setup still succeeds; --undo removes the file.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

mk_tree
mkdir -p "$ROOT/var/lib/bootpack"
probe=$ROOT/var/lib/bootpack/probe
models=$("$BOOTPACK" bench --help | sed -n "/^Models:/,/^\$/s/^ \([a-z0-9-]*\) .*/\1/p" | tr '\n' ' ')

# auto on a tree: not probed, not an error
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
[ ! -e "$probe" ] || bp_fail "a tree's disk was probed with --probe auto"
bp_expect_exit 0 "$BOOTPACK" setup --undo --root "$ROOT"

t0=$(date +%s)
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --probe always
t1=$(date +%s)
bp_grep "probing $TREE_DEV for 3 s" "$BP_TMPDIR/out"
bp_grep "wrote $probe\$" "$BP_TMPDIR/out"
[ $((t1 - t0)) -le 30 ] || bp_fail "setup took $((t1 - t0)) s"
cat "$probe"
bp_grep '^phase=trace$' "$ROOT/var/lib/bootpack/loop"
m=$(sed -n 's/^model=//p' "$probe")
case " $models " in *" $m "*) ;; *) bp_fail "model '$m' is not one of $models" ;; esac
awk -F= '$1 == "far_ms" && $2 > 0 { f = 1 } $1 == "rate_mbs" && $2 > 0 { r = 1 }
	END { exit !(f && r) }' "$probe" || bp_fail "far_ms or rate_mbs not above 0"
bp_grep '^max_request=[1-9][0-9]*$' "$probe"
bp_grep '^in_flight=[1-9][0-9]*$' "$probe"
# a key=value file and nothing else, small
[ "$(stat -c %s "$probe")" -lt 1024 ] || bp_fail "the probe file is $(stat -c %s "$probe") bytes"
if grep -vE '^(#.*|[a-z0-9_]+=[^ ]*)$' "$probe"; then bp_fail "lines not key=value"; fi

bp_expect_exit 0 "$BOOTPACK" setup --undo --root "$ROOT"
bp_grep "removed $probe\$" "$BP_TMPDIR/out"
[ ! -e "$probe" ] || bp_fail "--undo left $probe"

bp_expect_exit 2 "$BOOTPACK" setup --root "$ROOT" --probe sometimes
bp_grep "'sometimes' is not auto, always or never" "$BP_TMPDIR/err"
exit 0
