#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's commands from a clone where no developer works (issue 37): a
# git clone of this tree (its HEAD, plus the uncommitted changes of its
# tracked files) under /root, owned by root, in a directory no other user
# can enter, run with none of the suite's environment, as someone who has
# just cloned the tree would: ./setup.sh build, ./setup.sh demo, then the
# test command, ./setup.sh test, restricted to the cases that care where
# the tree lies (they run its programs as nobody): image/reproducible-nonroot
# and trace/refusals. The whole test command from such a clone is the
# fresh-machine run of doc/testing.md (about 15 minutes); this case takes
# about 85 s on 2 cores (the clone's build 45 s, the demo 10 s, the two
# cases 25 s). Untracked files of the tree are not in the clone.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd git setpriv
# (a tree of another owner, sudo from a user's clone, is no less ours)
git() { command git -c safe.directory='*' "$@"; }
git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	bp_skip "$top_srcdir is not a git checkout (a release tarball): nothing to clone"
[ -d /root ] || bp_skip "no /root to clone into"
for c in build demo test; do
	grep -q "^    \./setup\.sh $c\( \|$\)" "$top_srcdir/README.md" ||
		bp_fail "README.md no longer lists ./setup.sh $c: this case runs what it lists"
done
cases=(image/reproducible-nonroot trace/refusals)

dir=$(mktemp -d /root/bootpack-clone.XXXXXX)
# removed at exit, unless something is still mounted under it
bp_on_exit "findmnt -rn -o TARGET | grep -q '^$dir/' || rm -rf '$dir'"
tree=$dir/bootpack
git clone -q "$top_srcdir" "$tree" || bp_fail "git clone $top_srcdir $tree"
git -C "$top_srcdir" diff HEAD --binary >"$BP_TMPDIR/wip.diff"
if [ -s "$BP_TMPDIR/wip.diff" ]; then
	git -C "$tree" apply --whitespace=nowarn "$BP_TMPDIR/wip.diff" ||
		bp_fail "the uncommitted changes of $top_srcdir do not apply to its clone"
	bp_info "the uncommitted changes of $top_srcdir applied to the clone"
fi
[ "$(stat -c %u:%g "$tree")" = 0:0 ] || bp_fail "$tree is not owned by root"
! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$dir" ||
	bp_fail "nobody can enter $dir: the clone is not where a user's programs cannot reach"

# readme LOG ARGS...: ./setup.sh ARGS in the clone, as a root login shell
# has it (nothing of the suite's environment); its output in $BP_TMPDIR/LOG,
# printed when it fails
readme() {
	local log=$BP_TMPDIR/$1 rc=0 t0
	shift
	t0=$(date +%s)
	(cd "$tree" && exec env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin ./setup.sh "$@") \
		>"$log" 2>&1 || rc=$?
	bp_info "./setup.sh $*: exit $rc, $(($(date +%s) - t0)) s"
	[ $rc = 0 ] || { tail -n 40 "$log"; bp_fail "./setup.sh $* in $tree exited $rc"; }
}

readme build.log build
# The demo drops the page cache itself: the tests' cache lock is held
# exclusively meanwhile, as cli/demo-summary does (tests/functions.sh).
exec {lk}>>"$BP_CACHE_LOCK"
flock -w 300 -x "$lk" || bp_info "cache lock busy for 300 s: going on"
readme demo.log demo
exec {lk}>&-
bp_grep '^== summary' "$BP_TMPDIR/demo.log"
bp_grep '^demo: done' "$BP_TMPDIR/demo.log"
! losetup -a | grep -qF "$tree/" || bp_fail "the demo left a loop device: $(losetup -a | grep -F "$tree/")"

readme test.log test "${cases[@]}"
cat "$BP_TMPDIR/test.log"
last=$(tail -n 1 "$BP_TMPDIR/test.log")
[[ $last =~ ^([0-9]+)\ passed,\ 0\ failed,\ 0\ skipped$ ]] && [ "${BASH_REMATCH[1]}" -ge ${#cases[@]} ] ||
	bp_fail "./setup.sh test ${cases[*]} from the clone: $last"
exit 0
