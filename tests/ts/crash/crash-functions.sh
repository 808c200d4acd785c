# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# crash-functions.sh --- helpers of the crash-injection cases (sourced after functions.sh)
#
# In the suite each case cuts the power at a sample of the writes of one
# relayout; `make crash-full` (BP_CRASH_FULL=1) runs every write with four
# modes (prefix, 2 random seeds, torn writes 4 KiB atomic) at each, or, above
# 400 runs, one mode per write taken in turn; `make crash-torn512`
# (BP_CRASH_TORN512=1) tears at 512 bytes (old 512n disks). The driver and its oracle:
# relayout/crash/crash-driver.sh; the model: relayout/crash/README.md.

CRASH_DRIVER=$top_srcdir/relayout/crash/crash-driver.sh
CRASH_RELAYOUT=$top_builddir/relayout/crash/bp-crash-relayout
# shellcheck disable=SC2034  # read by the cases that source this file
CRASH_UNSAFE=$top_builddir/relayout/crash/bp-crash-unsafe
CRASH_SUMMARY=${BP_CRASH_SUMMARY:-$top_builddir/tests/logs/crash-summary.txt}

# The boot set: the relayout cases' (RL_BOOT_FILES, written with rl_mktrace,
# i.e. tests/mktrace.sh).
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
# shellcheck disable=SC2034  # read by the cases that source this file
CRASH_KVER=6.1.0-bootpack

crash_require() {
	bp_require_cmd debugfs e2fsck dumpe2fs sha256sum diff xargs awk
	[ -x "$CRASH_RELAYOUT" ] || bp_fail "$CRASH_RELAYOUT not built (make check builds it)"
	mkdir -p "$(dirname "$CRASH_SUMMARY")"
}

# crash_points [--aged] KIND [--sample N] [driver options...]: relayout the
# boot set of a fixture through crash_io, cutting the power at a sample of
# its writes (every write with BP_CRASH_FULL=1); fails on any finding.
crash_points() {
	local aged=() kind img
	if [ "$1" = --aged ]; then aged=(--aged); shift; fi
	kind=$1
	shift
	img=$(bp_fixture "${aged[@]}" "$kind")
	crash_points_img "$img" "$kind${aged:+-aged}" "$@"
}

# crash_points_img IMG NAME [--sample N] [driver options...]: the same on an image.
crash_points_img() {
	local img=$1 name=$2 t sample=30
	local -a opts=(--prefix --seeds 1 --mix)
	shift 2
	if [ "${1:-}" = --sample ]; then sample=$2; shift 2; fi
	t=$BP_TMPDIR/boot.trace
	rl_mktrace "$img" "$t" "${RL_BOOT_FILES[@]}"
	if [ "${BP_CRASH_FULL:-0}" = 1 ]; then
		sample=${CRASH_FULL_SAMPLE:-0}
		opts=(--prefix --seeds "1 2" --torn-seeds "1" --max-runs 400)
	fi
	# 512n model (make crash-torn512): every write, 512-byte atomic sectors.
	if [ "${BP_CRASH_TORN512:-0}" = 1 ]; then
		sample=0
		opts=(--seeds "" --torn512-seeds "1 2 3")
	fi
	bash "$CRASH_DRIVER" --image "$img" --work "$BP_TMPDIR/crash" \
		--name "$name${CRASH_NAME_SUFFIX:-}" --sample "$sample" "${opts[@]}" --summary "$CRASH_SUMMARY" "$@" \
		-- "$CRASH_RELAYOUT" "${CRASH_ARGS[@]}" @IMG@ "$t"
}

# crash_sized_fixture KIND SIZE: print a private copy of a fixture of SIZE
# (mkfixture.sh --size), generated once into $BP_CACHE like bp_fixture.
crash_sized_fixture() {
	local kind=$1 size=$2 cached
	cached=$BP_CACHE/$kind-$size.img
	mkdir -p "$BP_CACHE"
	(
		flock 9
		if [ ! -s "$cached" ]; then
			"$top_srcdir/fixtures/mkfixture.sh" --size "$size" --bindir "$top_builddir/fixtures" \
				"$kind" "$cached.tmp" >"$cached.log" 2>&1 || { cat "$cached.log" >&2; exit 1; }
			rm -f "$cached.tmp.files"
			mv "$cached.tmp" "$cached"
		fi
	) 9>"$cached.lock" || bp_fail "cannot generate fixture $kind-$size"
	cp --sparse=always "$cached" "$BP_TMPDIR/$kind-$size.img"
	echo "$BP_TMPDIR/$kind-$size.img"
}
CRASH_ARGS=()
