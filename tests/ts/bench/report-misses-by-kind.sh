#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot bench's read classes (report.py boot): each read before done is
# the reader's, a boot process's read of data the pack holds, or a miss
# (data the pack does not hold) of a kind: directory, inode table, journal,
# file data. The blocks are chosen with debugfs and dumpe2fs, not with the
# classifier (bp-blockkind); each request's disk time comes from the
# filter's log line with the same offset and length.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd python3 debugfs dumpe2fs jq
img=$BP_TMPDIR/disk.img
cp "$(bp_fixture ext4)" "$img"
bs=4096
blocks() { debugfs -R "blocks $1" "$img" 2>/dev/null | awk '{print $1}'; }

pk_mktrace "$img" "$BP_TMPDIR/trace" /usr/bin/bash:0:65536:1000000 /etc/passwd:0:all:2000000
"$BOOTPACK" pack --trace "$BP_TMPDIR/trace" -o "$BP_TMPDIR/pack" --budget 0 "$img" >/dev/null
"$BOOTPACK" dump --json "$BP_TMPDIR/pack" >"$img.pack.json"
"$top_builddir/bench/boot/bp-blockkind" "$img" >"$img.kinds" || bp_fail "bp-blockkind failed"

# in the pack: bash's first 64 KiB (debugfs: its first block)
bash_blk=$(blocks /usr/bin/bash)
# not in the pack: a directory no packed file is under, the last inode table
# block (no packed inode there), a file's data, the journal's first block
dir_blk=$(blocks /var)
itab_last=$(dumpe2fs "$img" 2>/dev/null | sed -n 's/^ *Inode table at [0-9]*-\([0-9]*\).*/\1/p' |
	head -n1)
data_blk=$(blocks /etc/os-release)
jnl_blk=$(blocks "<8>")
for v in bash_blk dir_blk itab_last data_blk jnl_blk; do
	[ -n "${!v}" ] || bp_fail "cannot find $v with debugfs"
done
covered() {	# BLOCK: 0 if the pack's dump covers it
	jq -e --argjson a $(($1 * bs)) --argjson b $(($1 * bs + bs)) \
		'[(.meta[] | {s: .offset, e: (.offset + .length)}), (.entries[] | {s: .phys, e: (.phys + .length)})]
		 | any(.s <= $a and .e >= $b)' "$img.pack.json" >/dev/null
}
covered "$bash_blk" || bp_fail "bash's first block is not in the pack"
for b in "$dir_blk" "$itab_last" "$data_blk" "$jnl_blk"; do
	covered "$b" && bp_fail "block $b is in the pack: pick another"
done

d=$BP_TMPDIR/boot
mkdir -p "$d"
printf 'image=%s\nmodel=hdd-5k160\nscale=1\n' "$img" >"$d/boot.env"
n=0
line() {	# COMM BLOCK: one read of one block, 1 ms apart
	n=$((n + 1))
	printf '    %s-%d     [000] .....     %d.%03d: block_rq_issue: 254,0 R %d () %d + %d [%s]\n' \
		"$1" $((100 + n)) 1 "$n" $bs $(($2 * bs / 512)) $((bs / 512)) "$1"
}
{
	echo "=== BENCH-BEGIN summary"
	echo "done_ms=9000"
	echo "reached=1"
	echo "rd_ios=6"
	echo "=== BENCH-END summary"
	echo "=== BENCH-BEGIN trace"
	line bootpack-read "$bash_blk"
	line systemd "$bash_blk"
	line systemd "$dir_blk"
	line systemd-udevd "$itab_last"
	line bash "$data_blk"
	line jbd2/vda-8 "$jnl_blk"
	line systemd "$data_blk"	# after done (rd_ios=6): not counted
	echo "=== BENCH-END trace"
} >"$d/results.log"
# the filter's log: the same requests, 1..6 ms of disk time each
{
	echo "# model=hdd-5k160"
	i=0
	for b in "$bash_blk" "$bash_blk" "$dir_blk" "$itab_last" "$data_blk" "$jnl_blk"; do
		i=$((i + 1))
		echo "$((i * 10000)) $((b * bs)) $bs R $((i * 1000)) 0"
	done
} >"$d/disk.log"

python3 "$top_srcdir/bench/boot/report.py" boot "$d" >"$d/boot.json" || bp_fail "report.py boot failed"
jq .reads "$d/boot.json"
check() {	# JQ-EXPR MESSAGE
	jq -e ".reads | $1" "$d/boot.json" >/dev/null || bp_fail "$2"
}
check '.pack_known and .kinds_known' "the pack or the kinds were not found"
check '.reader.requests == 1 and (.reader.busy_s * 1e6 | round) == 1000' "reader's read"
check '.packed.requests == 1 and (.packed.busy_s * 1e6 | round) == 2000' "boot's read of packed data"
check '.misses.requests == 4 and .misses.bytes == 4 * 4096' "misses: 4 requests of 4 KiB"
check '.misses.by_kind.dir.requests == 1 and (.misses.by_kind.dir.busy_s * 1e6 | round) == 3000' \
	"the directory block of /var is not a dir miss"
check '.misses.by_kind.itable.requests == 1 and (.misses.by_kind.itable.busy_s * 1e6 | round) == 4000' \
	"the inode table block is not an itable miss"
check '.misses.by_kind.data.requests == 1' "os-release's block is not a data miss"
check '.misses.by_kind.journal.requests == 1' "the journal's block is not a journal miss"
check '(.misses.busy_s * 1e6 | round) == 3000 + 4000 + 5000 + 6000' "misses' disk time"
echo ok
