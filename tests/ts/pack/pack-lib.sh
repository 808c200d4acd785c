# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# pack-lib.sh --- helpers shared by the tests/ts/pack cases (sourced, not a test)

# pk_mktrace IMG OUT [-m OFF:LEN:NS]... SPEC...: write a trace (tracefile.h
# v1) of files of IMG, read-only, with tests/mktrace.sh. SPEC is
# PATH:OFF:LEN:NS[,OFF:LEN:NS...] (ranges of one file sorted by offset); LEN
# "all" means to the end of the file. -m adds a metadata range.
pk_mktrace() {
	"$top_srcdir/tests/mktrace.sh" "$@" || bp_fail "mktrace $*"
}

# pk_merge: "KIND PATH START END" lines on stdin, merged per (KIND, PATH).
pk_merge() {
	sort -k1,1 -k2,2 -k3,3n | awk '
		function flush() { if (have) print k, p, s, e }
		{ if (have && $1 == k && $2 == p && $3 <= e) { if ($4 > e) e = $4; next }
		  flush(); k = $1; p = $2; s = $3; e = $4; have = 1 }
		END { flush() }'
}

# pk_expect TRACE BUDGET: what a pack of TRACE under BUDGET (bytes, 0: none)
# must hold, as merged "KIND PATH START END" lines: ranges in first-access
# order (metadata first at equal times), clamped to the file size, until the
# next one would exceed the budget.
#
# pk_expect TRACE BUDGET IMG: the same, the trace's O lines (metadata named
# by owner, tracefile.h) counted at the blocks debugfs finds them at on IMG
# now (tests/owners.sh).
pk_expect() {
	{ cat "$1"; [ -z "${3:-}" ] || "$top_srcdir/tests/owners.sh" "$3" "$1" ||
		bp_fail "owners.sh $3 $1"; } |
	awk '/^F /{ p = $6; sz = $4 }
	     /^R /{ o = $2; l = $3; if (o >= sz) next; if (o + l > sz) l = sz - o
		    printf "%020d R %s %d %d\n", $4, p, o, l }
	     /^M /{ printf "%020d M - %d %d\n", $4, $2, $3 }' |
	sort -s -k1,1 -k2,2 |
	awk -v B="$2" '{ if (full) next; if (B > 0 && used + $5 > B) { full = 1; next }
			 used += $5; print $2, $3, $4, $4 + $5 }' | pk_merge
}

# pk_pack_ranges JSON: the same lines from `bootpack dump --json`.
pk_pack_ranges() {
	jq -r '(.meta[] | "M - \(.offset) \(.offset + .length)"),
	       (.entries[] | "R \(.path) \(.offset) \(.offset + .length)")' "$1" | pk_merge
}

# pk_check_phys IMG JSON: the bytes at each entry's phys on IMG are the
# file's bytes at its offset (files read with debugfs, so no mount).
pk_check_phys() {
	local img=$1 json=$2 d path off len phys f
	d=$(mktemp -d "$BP_TMPDIR/files.XXXXXX")
	jq -r '.entries[] | "\(.path) \(.offset) \(.length) \(.phys)"' "$json" |
	while read -r path off len phys; do
		f=$d/$(printf '%s' "$path" | tr / _)
		[ -f "$f" ] || debugfs -R "dump \"$path\" $f" "$img" >/dev/null 2>&1 ||
			bp_fail "debugfs dump $path"
		cmp <(tail -c +$((phys + 1)) "$img" | head -c "$len") \
		    <(tail -c +$((off + 1)) "$f" | head -c "$len") >/dev/null ||
			bp_fail "$path $off+$len: not at physical byte $phys"
	done
	rm -rf "$d"
}
