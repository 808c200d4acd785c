#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh --- build if needed and run every test, one line per case
#
#   tests/run.sh [-j N] [--sanitizers] [--builddir DIR] [PATTERN...]
#
# Prints "case: ok|FAIL|skip (reason)" per case and ends with
# "N passed, N failed, N skipped". Logs go to <builddir>/tests/logs/.
# Exit status: 0 if nothing failed, 1 otherwise.
set -u
srcdir=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$srcdir}
jobs=1
sanitizers=0
patterns=()
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--sanitizers) sanitizers=1; shift ;;
	--builddir) builddir=$2; shift 2 ;;
	-h|--help) sed -n '3,9p' "$0"; exit 0 ;;
	*) patterns+=("$1"); shift ;;
	esac
done
if [ $sanitizers = 1 ] && [ -z "${BUILDDIR:-}" ]; then
	builddir=$srcdir/build-san
fi
mkdir -p "$builddir"
builddir=$(cd "$builddir" && pwd)

# A source tree configured in place cannot host a VPATH build (automake
# refuses it). Then --sanitizers builds from a copy of the distribution
# (make distdir: what the tarball holds, mtimes kept, so rebuilds are
# incremental) in <builddir>/src, objects in <builddir>/obj.
if [ $sanitizers = 1 ] && [ "$builddir" != "$srcdir" ] && [ -f "$srcdir/config.status" ]; then
	copy=$builddir/src
	echo "sanitizers: $srcdir is configured in place; building from a copy in $copy"
	rm -rf "$copy"
	if ! make -C "$srcdir" -s distdir distdir="$copy" >"$builddir/distdir.log" 2>&1; then
		tail -n 20 "$builddir/distdir.log"
		echo "make distdir failed (see $builddir/distdir.log)"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	srcdir=$copy
	builddir=$builddir/obj
	mkdir -p "$builddir"
fi

build() {
	if [ ! -x "$srcdir/configure" ]; then
		(cd "$srcdir" && ./autogen.sh) || return 1
	fi
	if [ ! -f "$builddir/Makefile" ]; then
		local extra=()
		[ $sanitizers = 1 ] && extra+=(--enable-sanitizers)
		(cd "$builddir" && "$srcdir/configure" -q "${extra[@]}") || return 1
	fi
	make -C "$builddir" -s -j"$(nproc)" >/dev/null &&
		make -C "$builddir" -s -j"$(nproc)" check TESTS= >/dev/null
}
if ! build >"$builddir/build.log" 2>&1; then
	tail -n 40 "$builddir/build.log"
	echo "build failed (see $builddir/build.log)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

mapfile -t all < <(make -C "$builddir" -s list-tests)
tests=()
for t in "${all[@]}"; do
	if [ ${#patterns[@]} -eq 0 ]; then tests+=("$t"); continue; fi
	for p in "${patterns[@]}"; do
		case $t in *$p*) tests+=("$t"); break ;; esac
	done
done

logdir=$builddir/tests/logs
mkdir -p "$logdir"
export LC_ALL=C TZ=UTC E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null E2FSPROGS_SKIP_PROGRESS=yes
export top_srcdir=$srcdir top_builddir=$builddir
# LSAN_OPTIONS: what libext2fs itself leaks (tests/ts/relayout/lsan-undo.supp
# says which and why), for every case that writes through its undo manager.
[ $sanitizers = 1 ] && export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$srcdir/tests/ts/relayout/lsan-undo.supp}

# run_one TEST: prints the result line, returns 0/1/77.
run_one() {
	local t=$1 name log rc path
	name=${t#tests/}; name=${name#ts/}; name=${name%.sh}
	log=$logdir/$(echo "$name" | tr / _).log
	if [ -f "$srcdir/$t" ]; then path=$srcdir/$t; else path=$builddir/$t; fi
	case $path in
	*.sh) (cd "$builddir" && bash "$path") >"$log" 2>&1 ;;
	*) (cd "$builddir" && "$path") >"$log" 2>&1 ;;
	esac
	rc=$?
	case $rc in
	0) echo "$name: ok" ;;
	77) echo "$name: skip ($(grep -m1 '^SKIP:' "$log" | sed 's/^SKIP: //'))" ;;
	*) echo "$name: FAIL (exit $rc, log $log)"; tail -n 15 "$log" | sed 's/^/    /' ;;
	esac
	return $rc
}
export -f run_one
export logdir srcdir builddir

results=$(mktemp)
trap 'rm -f "$results"' EXIT
printf '%s\n' "${tests[@]}" | xargs -r -P "$jobs" -I{} bash -c 'run_one "$1"' _ {} | tee "$results"

# (the result lines only: a failure's log tail, indented, may hold the
# result lines of a run of its own, cli/readme-from-clone's)
passed=$(grep -c '^[^ ]*: ok$' "$results")
failed=$(grep -c '^[^ ]*: FAIL' "$results")
skipped=$(grep -c '^[^ ]*: skip' "$results")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
