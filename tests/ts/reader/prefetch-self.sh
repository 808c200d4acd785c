#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The static reader reads its own image in one go (MADV_WILLNEED over it,
# from its own ELF entry point bp_read_entry on x86-64 and aarch64, then
# again from main()) rather than page fault by page fault. The program run
# is the tests' static copy of the reader (tests/ts/reader/bootpack-read-static,
# the one reader/static-entry runs), or the reader itself when configured
# --enable-static-reader: the dynamic reader maps only 16 pages, all read by
# its first faults with any readahead window, so it could not fail here.
# On a loop-mounted fixture with a 16 KiB readahead window and caches
# dropped, after 'bootpack-read --version' run from there, every page of the
# file that the program maps (its ELF LOAD segments, by readelf) is resident
# (fincore, from outside; 5 % allowed for pages the host drops). With both
# hints gone, page faults alone leave a third of them out (122 of 193
# resident); either hint alone leaves none out, so which one asked is
# reader/static-entry's check (the loop device's read requests). A sanitizer
# build links nothing statically: there the instrumented dynamic reader
# (about 150 pages) is run, and the hint is main()'s only.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

bp_require_root
bp_require_cmd losetup fincore blockdev readelf
if rd_sanitized; then
	bin=$READER
else
	rd_static_reader
	bin=$RD_STATIC
fi

img=$(bp_fixture ext4)
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt"
cp "$bin" "$BP_TMPDIR/mnt/bootpack-read"
sync
echo 16 >"/sys/block/$(basename "$loop")/queue/read_ahead_kb"
# pages of the file under the LOAD segments (offset, file size), their union
declare -A mapped=()
while read -r _ off _ _ fsz _; do
	for ((p = off / 4096; p < (off + fsz + 4095) / 4096; p++)); do mapped[$p]=1; done
done < <(readelf -lW "$bin" | awk '$1 == "LOAD" { print }')
pages=${#mapped[@]}
[ "$pages" -gt 10 ] || bp_fail "readelf: $pages pages in LOAD segments of $bin"

for _ in 1 2 3; do
	rd_cold "$loop"
	rd_canary_set
	ios0=$(awk '{print $1}' "/sys/block/$(basename "$loop")/stat")
	"$BP_TMPDIR/mnt/bootpack-read" --version >/dev/null || bp_fail "bootpack-read --version failed"
	sleep 1	# the hint is asynchronous: then until no read is in flight
	for ((w = 0; w < 50; w++)); do
		[ "$(awk '{ print $1 }' "/sys/block/$(basename "$loop")/inflight")" = 0 ] && break
		sleep 0.1
	done
	ios=$(( $(awk '{print $1}' "/sys/block/$(basename "$loop")/stat") - ios0 ))
	res=$(fincore -n -b -o PAGES "$BP_TMPDIR/mnt/bootpack-read" | tr -d ' ')
	rd_canary_lost || break
done
bp_info "$res pages of the program resident after --version ($pages mapped), $ios read requests"
# all of them, but for the odd page this VM drops from the page cache with
# no reclaim (see reader/background-head-start): 5 % allowed, where page
# faults alone leave about half of them out
[ $((res * 100)) -ge $((pages * 95)) ] ||
	bp_fail "only $res of the $pages mapped pages of the program resident after it ran"
exit 0
