#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every shell script of the tree is shellcheck clean: the *.sh and *.bash
# files and every file whose first line starts sh, bash or busybox sh, of
# the git checkout, new files too (without git, of the tree, build
# directories left out). The tree's settings and the reason for each
# exception are in .shellcheckrc; an exception in one script says why next
# to its directive.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd shellcheck
cd "$top_srcdir" || bp_fail "cd $top_srcdir"
[ -f .shellcheckrc ] || bp_fail "no .shellcheckrc at the top of the tree"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files --cached --others --exclude-standard >"$BP_TMPDIR/all"	# new files too
else
	# what autotools and configure made is not ours: left out with the
	# build directories (a file rewritten from FILE.in is checked as FILE.in)
	find . -type f ! -path './.git/*' ! -path './build*' ! -path './autom4te.cache/*' \
		! -path './tests/cache/*' ! -path './tests/logs/*' ! -name configure \
		! -name config.status ! -name libtool | sed 's|^\./||' |
		while read -r f; do [ -e "$f.in" ] || echo "$f"; done >"$BP_TMPDIR/all"
fi
: >"$BP_TMPDIR/scripts"
while read -r f; do
	[ -f "$f" ] || continue
	case $f in
	*.sh | *.bash) ;;
	*) head -n 1 "$f" 2>/dev/null | grep -qE '^#! *(/usr)?/bin/((env +)?(ba|da)?sh|busybox +sh)( |$)' || continue ;;
	esac
	echo "$f" >>"$BP_TMPDIR/scripts"
done <"$BP_TMPDIR/all"
cp "$BP_TMPDIR/scripts" "$BP_TMPDIR/checked"
n=$(wc -l <"$BP_TMPDIR/checked")
bp_info "$n scripts checked"
[ "$n" -ge 100 ] || bp_fail "only $n shell scripts found in $top_srcdir"
# Every severity, as shellcheck 0.9 (Debian 12) reports them.
rc=0
xargs -n 20 shellcheck -f gcc <"$BP_TMPDIR/checked" >"$BP_TMPDIR/findings" 2>&1 || rc=$?
cat "$BP_TMPDIR/findings"
[ $rc = 0 ] || bp_fail "shellcheck: $(grep -c ': \(error\|warning\|note\|style\|info\): ' "$BP_TMPDIR/findings") findings (exit $rc)"
