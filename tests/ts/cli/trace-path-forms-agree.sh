#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One rule resolves a traced path (include/fspath.h), in relayout, verify
# and pack alike (issue 23: relayout moved a file that pack dropped). A
# trace naming one file through ".", "..", an empty component, a trailing
# '/', a symbolic link in a directory component (relative or absolute) or
# as the last component: relayout moves the file, pack packs it under its
# canonical path (dump lists it), verify --trace counts it and verify
# --pack finds the pack fresh, exactly as for the canonical path.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd debugfs dumpe2fs python3
base=$(bp_fixture --aged ext4)
canon=/usr/lib/systemd/systemd
debugfs -w -f - "$base" >/dev/null 2>&1 <<'DBG' || bp_fail "debugfs symlink"
symlink /sd usr/lib/systemd
symlink /abs /usr
symlink /etc/up ../usr/lib/systemd
symlink /usr/lib/systemd/sd-link systemd
symlink /loop1 loop2
symlink /loop2 loop1/x
DBG
debugfs -R "stat /abs" "$base" 2>/dev/null | grep -q 'Type: symlink' || bp_fail "no symlink made"
"$top_srcdir/tests/mktrace.sh" "$base" "$BP_TMPDIR/canon.trace" "$canon" || bp_fail "mktrace"

# json FILE EXPR: print the Python expression EXPR of the JSON document j in FILE.
json() { python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

for form in "$canon" /usr/./lib/systemd/systemd /usr/bin/../lib/systemd/systemd \
	/usr/lib/systemd/systemd/ //usr/lib//systemd/systemd /sd/systemd /abs/lib/systemd/systemd \
	/etc/up/systemd /usr/lib/systemd/sd-link /sd/../systemd/./systemd; do
	bp_info "form $form"
	t=$BP_TMPDIR/form.trace
	awk -v p="$form" '$1 == "F" { $6 = p } { print }' "$BP_TMPDIR/canon.trace" >"$t"
	img=$BP_TMPDIR/work.img
	cp --sparse=always "$base" "$img"

	bp_expect_exit 0 "$BOOTPACK" pack --json --trace "$t" -o "$BP_TMPDIR/p" "$img"
	[ "$(json "$BP_TMPDIR/out" 'j["pack"]["files"]')" = 1 ] || bp_fail "$form: pack dropped the file"
	bp_expect_exit 0 "$BOOTPACK" dump --json "$BP_TMPDIR/p"
	[ "$(json "$BP_TMPDIR/out" 'sorted(set(e["path"] for e in j["entries"]))')" = "['$canon']" ] ||
		bp_fail "$form: the pack does not list $canon"
	bp_expect_exit 0 "$BOOTPACK" verify --pack "$BP_TMPDIR/p" "$img"
	bp_expect_exit 0 "$BOOTPACK" verify --json --trace "$t" "$img"
	[ "$(json "$BP_TMPDIR/out" '(j["verify"]["files"], j["verify"]["skipped"])')" = "(1, 0)" ] ||
		bp_fail "$form: verify does not count the file"

	bp_expect_exit 0 "$BOOTPACK" relayout --json --no-undo --no-pack --first '' --trace "$t" "$img"
	[ "$(json "$BP_TMPDIR/out" '(j["relayout"]["plan"]["files_moved"], sum(j["relayout"]["plan"]["files_skipped"].values()))')" = "(1, 0)" ] ||
		bp_fail "$form: relayout did not move the file"
	bp_expect_exit 0 "$BOOTPACK" verify --json --trace "$t" "$img"
	[ "$(json "$BP_TMPDIR/out" '(j["verify"]["files"], j["verify"]["discontiguities"])')" = "(1, 0)" ] ||
		bp_fail "$form: not one stream after the relayout"
	bp_layout_check "$img" "$canon" || bp_fail "$form: layout"
done

# A path that is not there, or loops, is skipped the same way by all.
for form in /usr/lib/nothing/systemd /loop1/systemd /usr/lib/systemd/systemd/x; do
	bp_info "form $form"
	awk -v p="$form" '$1 == "F" { $6 = p } { print }' "$BP_TMPDIR/canon.trace" >"$t"
	bp_expect_exit 0 "$BOOTPACK" pack --json --trace "$t" -o "$BP_TMPDIR/p" "$base"
	[ "$(json "$BP_TMPDIR/out" 'j["pack"]["files"]')" = 0 ] || bp_fail "$form: packed"
	bp_expect_exit 0 "$BOOTPACK" verify --json --trace "$t" "$base"
	[ "$(json "$BP_TMPDIR/out" '(j["verify"]["files"], j["verify"]["skipped"])')" = "(0, 1)" ] ||
		bp_fail "$form: verify counts it"
done
exit 0
