#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# crash-driver.sh --- cut the power at every write of a program, check what e2fsck -p makes of it
#
# Usage: crash-driver.sh [options] -- PROGRAM ARGS...     (@IMG@ in ARGS = the image)
#
#  --image IMG          base image (never written); @IMG@ is replaced in every
#                       ARG, so per-run files can be named @IMG@.something
#  --work DIR           scratch directory (created; runs are deleted when they pass)
#  --name NAME          label for the summary line (default: basename of IMG)
#  --sample N           at most N crash points, evenly spread over 1..W, first
#                       and last included (0 = every write; default 0)
#  --seeds "S..."       random-subset runs per point, one per seed (default "1")
#  --torn-seeds "S..."  random-subset runs with torn writes, 4 KiB atomic
#                       (512e/4Kn disks: every disk sold for a decade)
#  --torn512-seeds "S..." the same with 512-byte atomic sectors (512n disks)
#  --prefix             also the kill -9 model (every pending write lands, in order)
#  --mix                one mode per point, taking the modes in turn (cheaper
#                       than every mode at every point)
#  --max-runs N         switch to --mix when points x modes would exceed N
#  --jobs J             parallel runs (default: number of CPUs)
#  --expect-failures    negative control: succeed only if some run fails
#  --summary FILE       append the summary line to FILE
#
# The program runs through crash_io (relayout/crash/crash_io.h): first once to
# completion with BP_CRASH_COUNT, which gives W (its result must itself pass
# e2fsck -fn with every file unchanged), then once per (point, mode) with
# BP_CRASH_AT. After each power cut (exit 99) the oracle of
# doc/relayout-safety.md §9 must hold: e2fsck -fn on the crashed image finds
# only the allowed (preen-OK) classes of its §6 and no referenced-but-free block
# (invariant I2), e2fsck -p exits 0 or 1 with only those classes in its
# transcript, e2fsck -fn then exits 0, and every file is byte-identical to
# the original (so its SHA-256 is unchanged).
set -euo pipefail

export LC_ALL=C TZ=UTC E2FSCK_CONFIG=/dev/null BLKID_FILE=/dev/null E2FSPROGS_SKIP_PROGRESS=yes

die() { echo "crash-driver: $*" >&2; exit 2; }

# rdump_tree IMG DIR: every file of IMG under DIR, read through libext2fs.
rdump_tree() {
	mkdir -p "$2"
	debugfs -R "rdump / $2" "$1" >/dev/null 2>&1
}

# sha_tree DIR: "sha256  /path" of every regular file under DIR, sorted.
sha_tree() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0r sha256sum | sed 's|  \./|  /|')
}

# Preen messages a crash may leave (doc/relayout-safety.md §6, PR_PREEN_OK):
# leaks and bitmap differences, free counts, bitmap/GDT checksums,
# BLOCK_UNINIT, i_blocks, inode-only checksum, quota usage (space only:
# the same inode count on both sides, and no missing entry); plus e2fsck's
# own status lines. Anything else is a finding.
ALLOWED='^$
^[0-9]+/[0-9]+ files \([0-9.]+% non-contiguous\), [0-9]+/[0-9]+ blocks$
^clean, [0-9]+/[0-9]+ files, [0-9]+/[0-9]+ blocks$
check forced\.$
^\*+ FILE SYSTEM WAS MODIFIED \*+$
^FIXED\.$
^Block bitmap differences: [ +()0-9-]*(\. FIXED\.|\.)?$
^Free blocks count wrong for group #[0-9]+ \([0-9]+, counted=[0-9]+\)\.( FIXED\.)?$
^Free blocks count wrong \([0-9]+, counted=[0-9]+\)\.( FIXED\.)?$
^Group [0-9]+ block bitmap does not match checksum\.( FIXED\.)?$
^Block bitmap differences: *Group [0-9]+ block bitmap does not match checksum\.( FIXED\.)?$
^One or more block group descriptor checksums are invalid\.( FIXED\.)?$
^Group descriptor [0-9]+ checksum is 0x[0-9a-f]+, should be 0x[0-9a-f]+\.( FIXED\.)?$
^Block bitmap for group [0-9]+ .*BLOCK_UNINIT.*$
^Group [0-9]+ block\(s\) in use but group is marked BLOCK_UNINIT( FIXED\.)?$
^Inode [0-9]+, i_blocks is [0-9]+, should be [0-9]+\.( FIXED\.)?$
^Inode [0-9]+ passes checks, but checksum does not match inode\.( FIXED\.)?$
^Update quota info for quota type [0-9]+( FIXED\.)?\.?$
^\[QUOTA WARNING\] Usage inconsistent for ID [0-9]+:actual \([0-9]+, ([0-9]+)\) != expected \([0-9]+, \1\)$'
# What e2fsck -fn adds around the same findings on the crashed image.
ALLOWED_N='^e2fsck [0-9.]+ \(
^Pass [1-5][A-E]?: 
^Fix\? no$
^Update quota info for quota type [0-9]+\? no$
^IGNORED\.$
WARNING: Filesystem still has errors'

# findings FILE: the first line of an e2fsck transcript outside the allowed classes.
findings() {
	sed -e "s|^$img: ||" -e "s|^$CD_LABEL: ||" -e 's/^[[:space:]]*//' "$1" |
		grep -vE -f <(printf '%s\n' "$ALLOWED" "$ALLOWED_N") | head -n1 || true
}

# one N MODE: one power cut; prints "N MODE ok" or "N MODE FAIL reasons".
one() {
	local n=$1 mode=$2 img out rc why="" bad
	local -a env=(BP_CRASH_AT="$n")
	case $mode in
	prefix) env+=(BP_CRASH_PREFIX=1) ;;
	seed:*) env+=(BP_CRASH_SEED="${mode#seed:}") ;;
	torn:*) env+=(BP_CRASH_SEED="${mode#torn:}" BP_CRASH_TORN=1 BP_CRASH_SECTOR=4096) ;;
	torn512:*) env+=(BP_CRASH_SEED="${mode#torn512:}" BP_CRASH_TORN=1 BP_CRASH_SECTOR=512) ;;
	esac
	img=$CD_SCRATCH/run-$n-${mode/:/-}.img
	out=$CD_WORK/run-$n-${mode/:/-}
	cp --sparse=always "$CD_IMAGE" "$img"
	rc=0
	env "${env[@]}" "${CD_CMD[@]//@IMG@/$img}" >"$out.prog" 2>&1 || rc=$?
	if [ $rc -ne 99 ]; then
		why+=" program-exit=$rc (\"$(tail -n1 "$out.prog")\")"
	fi
	# The crashed state itself, read-only: every finding must be of an allowed
	# class, and no block may be referenced but free on disk ("+", I2).
	rc=0
	e2fsck -fn "$img" >"$out.n0" 2>&1 || rc=$?
	[ $rc -le 4 ] || why+=" e2fsck-n0=$rc"
	bad=$(findings "$out.n0")
	[ -z "$bad" ] || why+=" finding=\"$bad\""
	! grep -qE '^(.*: )?Block bitmap differences:.*\+' "$out.n0" || why+=" i2-referenced-but-free"
	! grep -q 'Superblock checksum does not match' "$out.n0" || why+=" superblock-checksum"
	rc=0
	e2fsck -p "$img" >"$out.p" 2>&1 || rc=$?
	[ $rc -le 1 ] || why+=" e2fsck-p=$rc"
	bad=$(findings "$out.p")
	[ -z "$bad" ] || why+=" transcript=\"$bad\""
	rc=0
	e2fsck -fn "$img" >"$out.fn" 2>&1 || rc=$?
	[ $rc -eq 0 ] || why+=" e2fsck-fn=$rc"
	# Byte-equal files have equal SHA-256; hash only to count the differences.
	if ! rdump_tree "$img" "$img.d"; then
		why+=" rdump-failed"
	elif ! diff -rq --no-dereference "$CD_SCRATCH/base.d" "$img.d" >/dev/null 2>&1; then
		sha_tree "$img.d" >"$out.sha"
		why+=" hashes=$(diff "$out.sha" "$CD_WORK/base.sha" | grep -c '^<' || true)"
	fi
	rm -rf "$img.d"
	rm -f "$img" "$img".*
	if [ -z "$why" ]; then
		rm -f "$out.prog" "$out.n0" "$out.p" "$out.fn" "$out.sha"
		echo "$n $mode ok"
	else
		echo "$n $mode FAIL$why"
	fi
}

if [ "${1:-}" = "--one" ]; then
	eval "CD_CMD=($CD_CMD_Q)"
	one "$2" "$3"
	exit 0
fi

CD_IMAGE="" CD_WORK="" name="" sample=0 seeds=1 torn_seeds="" torn512_seeds="" prefix=0
jobs=$(nproc) expect_fail=0 summary="" mix=0 max_runs=0
while [ $# -gt 0 ]; do
	case $1 in
	--image) CD_IMAGE=$2; shift 2 ;;
	--work) CD_WORK=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--sample) sample=$2; shift 2 ;;
	--seeds) seeds=$2; shift 2 ;;
	--torn-seeds) torn_seeds=$2; shift 2 ;;
	--torn512-seeds) torn512_seeds=$2; shift 2 ;;
	--prefix) prefix=1; shift ;;
	--mix) mix=1; shift ;;
	--max-runs) max_runs=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--expect-failures) expect_fail=1; shift ;;
	--summary) summary=$2; shift 2 ;;
	--) shift; break ;;
	*) die "unknown option '$1'" ;;
	esac
done
[ $# -ge 1 ] || die "no program given (crash-driver.sh [options] -- PROGRAM ARGS...)"
[ -f "$CD_IMAGE" ] || die "--image: '$CD_IMAGE' is not a file"
[ -n "$CD_WORK" ] || die "--work is required"
name=${name:-$(basename "$CD_IMAGE" .img)}
mkdir -p "$CD_WORK"
CD_WORK=$(cd "$CD_WORK" && pwd)
CD_CMD=("$@")
CD_CMD_Q=$(printf '%q ' "$@")
CD_LABEL=$(dumpe2fs -h "$CD_IMAGE" 2>/dev/null | sed -n 's/^Filesystem volume name: *//p')
[ "$CD_LABEL" != "<none>" ] || CD_LABEL=""
CD_LABEL=${CD_LABEL:-/nonexistent-label}
# Images and rdump trees go to tmpfs when there is one (runs are I/O bound).
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=$CD_WORK
CD_SCRATCH=$(mktemp -d "$shm/bp-crash.XXXXXX")
trap 'rm -rf "$CD_SCRATCH"' EXIT
export CD_IMAGE CD_WORK CD_SCRATCH CD_CMD_Q CD_LABEL

# The base image and its hashes.
rc=0
e2fsck -fn "$CD_IMAGE" >"$CD_WORK/base.fn" 2>&1 || rc=$?
if [ $rc -ne 0 ]; then
	cat "$CD_WORK/base.fn" >&2
	die "$CD_IMAGE: e2fsck -fn exited $rc before any crash"
fi
rdump_tree "$CD_IMAGE" "$CD_SCRATCH/base.d" || die "$CD_IMAGE: debugfs rdump failed"
sha_tree "$CD_SCRATCH/base.d" >"$CD_WORK/base.sha"

# A complete run counts the writes; its result must pass the oracle too.
cp --sparse=always "$CD_IMAGE" "$CD_SCRATCH/count.img"
rc=0
BP_CRASH_COUNT=$CD_WORK/count "${CD_CMD[@]//@IMG@/$CD_SCRATCH/count.img}" \
	>"$CD_WORK/count.prog" 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat "$CD_WORK/count.prog" >&2; die "$name: the uninterrupted run exited $rc"; }
W=$(sed -n 's/^writes //p' "$CD_WORK/count")
F=$(sed -n 's/^flushes //p' "$CD_WORK/count")
[ -n "$W" ] && [ "$W" -gt 0 ] || die "$name: the uninterrupted run wrote nothing"
rc=0
e2fsck -fn "$CD_SCRATCH/count.img" >"$CD_WORK/count.fn" 2>&1 || rc=$?
if [ $rc -ne 0 ]; then
	cat "$CD_WORK/count.fn" >&2
	[ $expect_fail = 1 ] || die "$name: e2fsck -fn exited $rc after the uninterrupted run"
fi
rdump_tree "$CD_SCRATCH/count.img" "$CD_SCRATCH/count.d" ||
	die "$name: debugfs rdump failed after the uninterrupted run"
if ! diff -rq --no-dereference "$CD_SCRATCH/base.d" "$CD_SCRATCH/count.d" >&2 &&
	[ $expect_fail = 0 ]; then
	die "$name: file contents changed by the uninterrupted run"
fi
rm -rf "$CD_SCRATCH/count.d"
rm -f "$CD_SCRATCH/count.img"

# Crash points: all, or an even spread with the first and the last.
points=()
if [ "$sample" -eq 0 ] || [ "$W" -le "$sample" ]; then
	mapfile -t points < <(seq 1 "$W")
elif [ "$sample" -eq 1 ]; then
	points=("$W")
else
	mapfile -t points < <(awk -v w="$W" -v s="$sample" \
		'BEGIN { for (i = 0; i < s; i++) {
			p = 1 + int(i * (w - 1) / (s - 1) + 0.5); if (p != last) print p; last = p } }')
fi
modes=()
[ $prefix = 1 ] && modes+=(prefix)
for s in $seeds; do modes+=("seed:$s"); done
for s in $torn_seeds; do modes+=("torn:$s"); done
for s in $torn512_seeds; do modes+=("torn512:$s"); done

results=$CD_WORK/results
: >"$results"
if [ "$max_runs" -gt 0 ] && [ $((${#points[@]} * ${#modes[@]})) -gt "$max_runs" ]; then
	mix=1
fi
i=0
for p in "${points[@]}"; do
	if [ $mix = 1 ]; then
		echo "$p ${modes[i % ${#modes[@]}]}"
		i=$((i + 1))
		continue
	fi
	for m in "${modes[@]}"; do echo "$p $m"; done
done | xargs -r -P "$jobs" -L 1 bash "$0" --one >>"$results"

runs=$(wc -l <"$results")
fails=$(grep -c ' FAIL' "$results" || true)
expected=$((${#points[@]} * ${#modes[@]}))
how="x ${#modes[@]} modes"
[ $mix = 0 ] || { expected=${#points[@]}; how="taking the modes in turn"; }
line="$name: $W writes, $F flushes; ${#points[@]} crash points $how (${modes[*]})"
line+=" = $runs runs; $fails failures"
for r in program-exit e2fsck-n0 finding i2-referenced-but-free superblock-checksum e2fsck-p \
	transcript e2fsck-fn hashes rdump-failed; do
	c=$(grep ' FAIL' "$results" | grep -c " $r" || true)
	[ "$c" -eq 0 ] || line+=", $r: $c"
done
echo "$line"
[ -z "$summary" ] || echo "$line" >>"$summary"
grep ' FAIL' "$results" | sort -n | head -n 20 | sed 's/^/  /' || true
[ "$runs" -eq "$expected" ] || die "$name: $runs results for $expected runs"
if [ $expect_fail = 1 ]; then
	if [ "$fails" -eq 0 ]; then
		echo "crash-driver: $name: the negative control never failed: the oracle is toothless" >&2
		exit 1
	fi
	exit 0
fi
[ "$fails" -eq 0 ]
