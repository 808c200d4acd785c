#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages (issue 13): every page renders without a groff warning and
# without a stray space before punctuation ("not-regular ,") or words run
# together ("(8)).Itendsbysaying", issue 23); every verb
# --help lists has a page, bootpack(8) names it in SEE ALSO and its page
# documents -h; pages that name installation paths get them from configure
# (no @var@ left, the unit directory is the configured one); bench(8) cites
# disk-models.md only where doc/ has it and the tarball ships it; dump(8) documents the exit status
# 3 that a missing file gives; verify(8) points to the pages of --pack;
# bootpack(8) documents the JSON shape every -J output has.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd groff
man=$top_builddir/man
src=$top_srcdir/man

render() { groff -man -Tutf8 -rLL=400n -rHY=0 -P-c -P-b -P-u -ww "$1" 2>"$BP_TMPDIR/warn"; }
for f in "$man"/*.8 "$src"/*.8 "$src"/*.5; do
	[ -f "$f" ] || continue
	render "$f" >"$BP_TMPDIR/page"
	[ ! -s "$BP_TMPDIR/warn" ] || bp_fail "$f: groff warns: $(cat "$BP_TMPDIR/warn")"
	if grep -nE '[[:alnum:])] +[,;.]( |$)' "$BP_TMPDIR/page" | grep -v '\.\.\.' >"$BP_TMPDIR/bad"; then
		bp_fail "$f: space before punctuation: $(cat "$BP_TMPDIR/bad")"
	fi
	# Words run together, as a sentence put on a .BR line renders
	# ("(8)).Itendsbysaying..."): no space after a sentence's end, or a
	# lower-case "word" longer than any English or option word here.
	if grep -nE '[[:lower:][:digit:])][.;,!?][[:upper:]][[:lower:]]|[[:lower:]]{25}' \
		"$BP_TMPDIR/page" >"$BP_TMPDIR/bad"; then
		bp_fail "$f: words run together: $(cat "$BP_TMPDIR/bad")"
	fi
	if grep -n '@[a-z]*@' "$f"; then bp_fail "$f: unsubstituted path"; fi
done

"$BOOTPACK" --help | sed -n 's/^ \([a-z]*\)  .*/\1/p' | grep -v '^help$' >"$BP_TMPDIR/verbs"
render "$man/bootpack.8" >"$BP_TMPDIR/bootpack.txt"
sed -n '/^SEE ALSO/,$p' "$BP_TMPDIR/bootpack.txt" >"$BP_TMPDIR/seealso"
while read -r v; do
	page=bootpack-$v
	[ "$v" = status ] && page=bootpack-setup	# status is described with setup
	[ -f "$man/$page.8" ] || [ -f "$src/$page.8" ] || bp_fail "no man page $page(8) for '$v'"
	grep -q "$page(8)" "$BP_TMPDIR/seealso" || bp_fail "bootpack(8) SEE ALSO lacks $page(8)"
	[ "$v" = setup ] || [ "$v" = status ] && continue	# bootpack-setup(8) is the loop's
	grep -q '^\.B[RI]* \\-h' "$src/$page.8" || bp_fail "$page(8) has no -h entry"
done <"$BP_TMPDIR/verbs"

# Installation paths from configure.
# mkvar VAR: a make variable of the build tree, expanded.
mkvar() { printf 'bp-print:\n\t@echo $(%s)\n' "$1" | make -s -C "$top_builddir" -f Makefile -f - bp-print; }
unitdir=$(mkvar systemdsystemunitdir)
[ -n "$unitdir" ] || bp_fail "no systemdsystemunitdir in the Makefile"
render "$man/bootpack-read.8" | grep -q "$unitdir/bootpack-read.service" ||
	bp_fail "bootpack-read(8) FILES does not name $unitdir/bootpack-read.service"
statedir=$(mkvar bpstatedir)
grep -q "$statedir/relayout" "$BP_TMPDIR/bootpack.txt" || bp_fail "bootpack(8) FILES lacks $statedir"

# bench(8): disk-models.md only if the tree has it.
if grep -q 'disk-models\.md' "$src/bootpack-bench.8"; then
	[ -f "$top_srcdir/doc/disk-models.md" ] ||
		bp_fail "bootpack-bench(8) cites disk-models.md, which doc/ does not have"
	grep -q 'doc/disk-models\.md' "$top_srcdir/Makefile.am" ||
		bp_fail "bootpack-bench(8) cites doc/disk-models.md, which the tarball does not ship"
fi
# dump(8): a missing file exits 3, and the page says so.
bp_expect_exit 3 "$BOOTPACK" dump "$BP_TMPDIR/no-such-file"
render "$src/bootpack-dump.8" | sed -n '/^EXIT STATUS/,/^SEE ALSO/p' | tr -s ' \n' ' ' |
	grep -q '3 The file is missing' || bp_fail "bootpack-dump(8) does not say exit 3 for a missing file"
# verify(8) points to where --pack is described.
render "$src/bootpack-verify.8" | grep -q 'described in bootpack-pack(8)' ||
	bp_fail "bootpack-verify(8) does not point to bootpack-pack(8)"
# bootpack(8): the JSON convention.
grep -q '^JSON OUTPUT' "$BP_TMPDIR/bootpack.txt" || bp_fail "bootpack(8) has no JSON OUTPUT section"
