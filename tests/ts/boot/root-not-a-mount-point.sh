#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cases that make mount namespaces work where / is not a mount point, as
# in the chroot a new user ran the suite in (issue 13: "unshare: cannot
# change root filesystem propagation"): trace/refusals, trace/no-device-hint
# and reader/boot-files run inside a chroot whose root is a plain directory
# (the system's /usr, /etc, /var, /tmp, /proc, /sys, /dev and the top
# directory of the tree under test bound in), and pass. All of it in a private mount namespace of this case's own.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd unshare chroot mountpoint
mountpoint -q / || bp_skip "/ is not a mount point here already (a chroot): the suite runs those cases as they are"
unshare -m true 2>"$BP_TMPDIR/unshare.err" ||
	bp_skip "cannot create a mount namespace: $(head -n 1 "$BP_TMPDIR/unshare.err")"

cases=(tests/ts/trace/refusals.sh tests/ts/trace/no-device-hint.sh tests/ts/reader/boot-files.sh)
r=$BP_TMPDIR/r
mkdir "$r"
# The chroot's top directories: the system's, bound; its root stays a directory.
unshare -m --propagation private bash -c '
	set -e
	r=$1; shift
	mount -t tmpfs -o size=1m none "$r"
	mkdir "$r/root"
	for l in bin sbin lib lib32 lib64; do
		[ -L "/$l" ] && ln -s "$(readlink "/$l")" "$r/root/$l"
	done
	# The tree under test may live anywhere (CI clones it under /check):
	# bind the top directory of the build, source and scratch paths too.
	tops=
	for p in "$top_builddir" "$top_srcdir" "$BP_TMPDIR"; do
		p=${p#/}; tops="$tops ${p%%/*}"
	done
	for d in usr etc var tmp work proc sys dev run $tops; do
		[ -d "/$d" ] || continue
		[ -d "$r/root/$d" ] && continue
		mkdir "$r/root/$d"
		mount --rbind "/$d" "$r/root/$d"
	done
	[ -d "$r/root/$(dirname "$top_builddir")" ] || { echo "no $top_builddir in the chroot"; exit 1; }
	exec chroot "$r/root" bash -c '\''
		mountpoint -q / && { echo "/ is a mount point in the chroot"; exit 1; }
		rc=0
		for c in "$@"; do
			log=$BP_TMPDIR/$(basename "$c").log
			(cd "$top_builddir" && BP_TMPDIR= bash "$top_srcdir/$c") >"$log" 2>&1 || rc=$?
			echo "$c: exit $rc"
			[ $rc = 0 ] || { cat "$log"; exit 1; }
			grep "^# /\|^SKIP" "$log" || true
		done
	'\'' chroot "$@"
' sh "$r" "${cases[@]}" >"$BP_TMPDIR/out" 2>&1 || { cat "$BP_TMPDIR/out"; bp_fail "a case failed in the chroot"; }
cat "$BP_TMPDIR/out"
[ "$(grep -c ': exit 0$' "$BP_TMPDIR/out")" = ${#cases[@]} ] || bp_fail "not every case passed"
bp_grep "^# / is not a mount point: .* runs with the reader's path replaced" "$BP_TMPDIR/out"
