#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# -q/--quiet prints errors only (bootpack(8)): pack -q and verify -q (of a
# trace and of a pack) print no report on success, before or after the
# verb; with --json the JSON is still printed; an error still is.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd debugfs dumpe2fs python3

img=$(bp_fixture ext4)
"$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/t" /etc/fstab /etc/passwd || bp_fail "mktrace"

# quiet WHAT CMD...: CMD must exit 0 with nothing on stdout or stderr.
quiet() {
	local what=$1
	shift
	bp_expect_exit 0 "$@"
	[ ! -s "$BP_TMPDIR/out" ] && [ ! -s "$BP_TMPDIR/err" ] || {
		cat "$BP_TMPDIR/out" "$BP_TMPDIR/err"
		bp_fail "$what -q printed something"
	}
}
quiet pack "$BOOTPACK" pack -q --trace "$BP_TMPDIR/t" -o "$BP_TMPDIR/p" "$img"
[ -s "$BP_TMPDIR/p" ] || bp_fail "pack -q wrote no pack"
quiet pack "$BOOTPACK" -q pack --trace "$BP_TMPDIR/t" -o "$BP_TMPDIR/p" "$img"
quiet "verify --trace" "$BOOTPACK" verify --quiet --trace "$BP_TMPDIR/t" "$img"
quiet "verify --pack" "$BOOTPACK" verify -q --pack "$BP_TMPDIR/p" "$img"
quiet "verify --pack" "$BOOTPACK" -q verify --pack "$BP_TMPDIR/p" "$img"

# --json is still printed, and is the only thing printed.
for cmd in "pack --trace $BP_TMPDIR/t -o $BP_TMPDIR/p" "verify --trace $BP_TMPDIR/t" \
	"verify --pack $BP_TMPDIR/p"; do
	# shellcheck disable=SC2086  # a verb and its options, split into words on purpose
	bp_expect_exit 0 "$BOOTPACK" $cmd -q --json "$img"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$BP_TMPDIR/out" ||
		bp_fail "$cmd -q --json: no JSON"
	[ ! -s "$BP_TMPDIR/err" ] || bp_fail "$cmd -q --json wrote to stderr"
done

# Errors are still printed.
bp_expect_exit 3 "$BOOTPACK" verify -q --pack "$BP_TMPDIR/none" "$img"
[ -s "$BP_TMPDIR/err" ] || bp_fail "verify -q printed no error"
exit 0
