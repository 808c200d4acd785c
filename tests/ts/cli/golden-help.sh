#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden outputs of what a user reads first, util-linux style: 'bootpack
# --help', every verb's --help and 'bootpack-read --help', line by line
# against tests/expected/help-*.out. The paths configure chose are written
# as @SBINDIR@, @SYSCONFDIR@ and @STATEDIR@, so any --prefix compares. Every
# verb the top-level help lists must have its file: a new verb without one
# fails here. An intended change: rerun with BP_GOLDEN_UPDATE=1 and commit
# the new files with it.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"

var() { printf 'include Makefile\n_bp_show:\n\t@echo $(%s)\n' "$1" |
	MAKEFLAGS='' MAKELEVEL='' make --no-print-directory -C "$top_builddir" -s -f - _bp_show; }
sbin=$(var sbindir) etc=$(var sysconfdir) state=$(var bpstatedir)
[ -n "$sbin" ] && [ -n "$etc" ] && [ -n "$state" ] || bp_fail "cannot read the configured paths"

# golden NAME COMMAND...: COMMAND's stdout, exit 0, against help-NAME.out.
golden() {
	local name=$1
	shift
	bp_expect_exit 0 "$@"
	[ -s "$BP_TMPDIR/err" ] && bp_fail "$*: wrote to stderr: $(head -n 3 "$BP_TMPDIR/err")"
	sed -e "s|$sbin/bootpack|@SBINDIR@/bootpack|g" -e "s|$etc/bootpack|@SYSCONFDIR@/bootpack|g" \
		-e "s|$state|@STATEDIR@|g" \
		"$BP_TMPDIR/out" >"$BP_TMPDIR/help-$name"
	bp_golden "help-$name.out" "$BP_TMPDIR/help-$name"
}

golden bootpack "$BOOTPACK" --help
verbs=$(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' "$BP_TMPDIR/out")
[ "$(echo "$verbs" | wc -w)" -ge 10 ] || bp_fail "the top-level help lists too few verbs: $verbs"
for v in $verbs; do
	[ "$v" = help ] && continue
	golden "$v" "$BOOTPACK" "$v" --help
done
golden bootpack-read "$top_builddir/bootpack-read" --help
# No stale file: each golden help is of a verb the help lists.
for f in "$top_srcdir"/tests/expected/help-*.out; do
	n=$(basename "$f" .out)
	n=${n#help-}
	case " bootpack bootpack-read $(echo $verbs) " in
	*" $n "*) ;;
	*) bp_fail "tests/expected/help-$n.out: no such verb in 'bootpack --help'" ;;
	esac
done
exit 0
