#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --from-kernel=RECORD: a hand-written record of the kernel/ patch holding
# the same reads as a saved tracepoint trace (data/old-layout.txt.in) gives
# the same files, ranges, times and metadata as --import of that trace; an
# entry whose inode generation is no longer the one on disk (a reused inode)
# is left out; dropped pages are reported as lost; several devices need
# --dev; a truncated, freed or missing record is refused with exit 3 and
# nothing written. (The record of a real kernel: kernel/check-kernel.sh.)
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/trace/trace-lib.sh"

bp_require_cmd debugfs
data=$top_srcdir/tests/ts/trace/data
img=$(bp_fixture ext4)
cp "$img" "$BP_TMPDIR/before.img"

# inode and generation of a path in the image
ino() { debugfs -R "stat $1" "$img" 2>/dev/null | awk '/^Inode:/{print $2; exit}'; }
gen() { debugfs -R "stat $1" "$img" 2>/dev/null | awk '/^Generation:/{print $2; exit}'; }
pw=$(ino /etc/passwd) bash=$(ino /usr/bin/bash) host=$(ino /etc/hostname)
pwg=$(gen /etc/passwd) bashg=$(gen /usr/bin/bash) hostg=$(gen /etc/hostname)
[ -n "$pw" ] && [ -n "$bash" ] && [ -n "$host" ] && [ -n "$hostg" ] ||
	bp_fail "debugfs: no inode or generation"

# The reads of old-layout.txt.in as the patched kernel records them: pages of
# the block device by device offset, file pages coalesced, times in ns.
record() {	# record DROPPED EXTRA-LINES
	local extra=$2 n
	n=$(( 6 + $(printf '%s' "$extra" | grep -c '^[FB] ' || true) ))
	cat <<-END
	bootpack-record 1
	page-size 4096
	state stopped
	capacity 26214
	entries $n
	dropped $1
	B 2100500000 8:1 256 1
	F 2200000000 8:1 $pw $pwg 0 1
	F 2400000000 8:1 $bash $bashg 2 1
	F 2400001000 8:1 $bash $bashg 0 2
	B 2500000000 8:1 257 1
	F 2600000000 8:1 $host $hostg 0 1
	END
	[ -z "$extra" ] || printf '%s\n' "$extra"
	echo "end $n"
}

tr_render "$data/old-layout.txt.in" "$img" "$BP_TMPDIR/old.txt"
"$BOOTPACK" trace --import "$BP_TMPDIR/old.txt" -o "$BP_TMPDIR/import" --device "$img" \
	2>/dev/null || bp_fail "--import of the reference trace failed"
record 0 "" >"$BP_TMPDIR/rec"
bp_expect_exit 0 "$BOOTPACK" trace --from-kernel="$BP_TMPDIR/rec" -o "$BP_TMPDIR/kern" \
	--device "$img"
diff -u <(grep -E '^[MFR] ' "$BP_TMPDIR/import") <(grep -E '^[MFR] ' "$BP_TMPDIR/kern") ||
	bp_fail "the record and the tracepoints disagree"
grep -q '^R ' "$BP_TMPDIR/kern" || bp_fail "no range in the trace"
bp_grep '^dev 8:1$' "$BP_TMPDIR/kern"
bp_grep '^source boot$' "$BP_TMPDIR/kern"
bp_grep '^events 6 0 0$' "$BP_TMPDIR/kern"

# A reused inode (another generation now), and pages the kernel dropped.
record 5 "F 2700000000 8:1 $bash $((bashg + 1)) 10 3" >"$BP_TMPDIR/rec2"
bp_expect_exit 0 "$BOOTPACK" trace --from-kernel="$BP_TMPDIR/rec2" -o "$BP_TMPDIR/kern2" \
	--device "$img"
bp_grep '5 events were lost' "$BP_TMPDIR/err"
diff <(grep -E '^[MFR] ' "$BP_TMPDIR/kern") <(grep -E '^[MFR] ' "$BP_TMPDIR/kern2") ||
	bp_fail "an entry of a reused inode was kept"
bp_grep '^events 6 0 5$' "$BP_TMPDIR/kern2"

# Two devices: refused and named without --dev; --dev picks one.
record 0 "F 2800000000 8:2 12 1 0 1" >"$BP_TMPDIR/two"
bp_expect_exit 4 "$BOOTPACK" trace --from-kernel="$BP_TMPDIR/two" -o "$BP_TMPDIR/t2" \
	--device "$img"
bp_grep 'from 2 block devices \(8:1, 8:2\): pick one with --dev' "$BP_TMPDIR/err"
[ ! -e "$BP_TMPDIR/t2" ] || bp_fail "a refused record wrote a trace"
bp_expect_exit 0 "$BOOTPACK" trace --from-kernel="$BP_TMPDIR/two" -o "$BP_TMPDIR/t2" \
	--device "$img" --dev 8:1
diff <(grep -E '^[MFR] ' "$BP_TMPDIR/kern") <(grep -E '^[MFR] ' "$BP_TMPDIR/t2") ||
	bp_fail "--dev 8:1 must give the same trace"

# Truncated, freed, missing: exit 3, nothing written.
head -n 9 "$BP_TMPDIR/rec" >"$BP_TMPDIR/trunc"
bp_expect_exit 3 "$BOOTPACK" trace --from-kernel="$BP_TMPDIR/trunc" -o "$BP_TMPDIR/c" \
	--device "$img"
bp_grep "trunc: truncated \(no 'end' line after line 9\)" "$BP_TMPDIR/err"
sed 's/^state stopped$/state freed/' "$BP_TMPDIR/rec" >"$BP_TMPDIR/freed"
bp_expect_exit 3 "$BOOTPACK" trace --from-kernel="$BP_TMPDIR/freed" -o "$BP_TMPDIR/c" \
	--device "$img"
bp_grep "the record was freed" "$BP_TMPDIR/err"
bp_expect_exit 3 "$BOOTPACK" trace --from-kernel="$BP_TMPDIR/none" -o "$BP_TMPDIR/c" \
	--device "$img"
bp_grep 'none: cannot open' "$BP_TMPDIR/err"
[ ! -e "$BP_TMPDIR/c" ] || bp_fail "a bad record wrote a trace"

# The live record of a kernel without the patch (this one): exit 5.
if [ ! -e /sys/kernel/debug/bootpack ]; then
	bp_expect_exit 5 "$BOOTPACK" trace --from-kernel -o "$BP_TMPDIR/c" --device "$img"
	bp_grep 'no bootpack recorder: boot a kernel with the patches of kernel/' "$BP_TMPDIR/err"
fi
bp_expect_exit 2 "$BOOTPACK" trace --from-kernel --from-boot -o "$BP_TMPDIR/c" --device "$img"
bp_grep 'exclude each other' "$BP_TMPDIR/err"

cmp "$img" "$BP_TMPDIR/before.img" || bp_fail "--from-kernel changed the image"
