#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot 2 of the loop: the initramfs relays the root out, writes the new pack
# to its tmpfs (/run/bootpack) and says "done in N s" in relayout.status; the
# state directory's pack then points at where the files were before. The
# initramfs reader (the initramfs-tools init-bottom script and the dracut
# pre-pivot hook, as the tools run them) reads the new pack once the
# relayout is done and the pack is there; otherwise (skipped, failed, no new
# pack, no status) the state directory's. A control boot reads nothing.
# Oracles: the reader's command line (a stand-in logs it and runs the real
# reader) and the page cache (mincore): the new pack holds file b, the
# state directory's file a; only the chosen pack's file comes in.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"

TREE_SIZE=64M mk_tree
mkdir -p "$ROOT/usr/lib/x" "$ROOT/var/lib/bootpack"
for f in a b; do
	head -c 262144 /dev/urandom >"$ROOT/usr/lib/x/$f"
done
sync
img=$BP_TMPDIR/root.img
statedir=$ROOT/var/lib/bootpack
run=$BP_TMPDIR/run/bootpack	# the initramfs' /run/bootpack
mkdir -p "$run"
mincore=$top_builddir/tests/ts/reader/bp-mincore
[ -x "$mincore" ] || bp_fail "no $mincore (make check builds it)"

# the old pack (state directory): file a; the relayout's new pack: file b
bash "$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/a.trace" /usr/lib/x/a
bash "$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/b.trace" /usr/lib/x/b
bp_expect_exit 0 "$BOOTPACK" pack --trace "$BP_TMPDIR/a.trace" -o "$statedir/pack" "$TREE_DEV"
bp_expect_exit 0 "$BOOTPACK" pack --trace "$BP_TMPDIR/b.trace" -o "$BP_TMPDIR/new.pack" "$TREE_DEV"

# a stand-in for /sbin/bootpack-read: logs its call, runs the real reader
cat >"$BP_TMPDIR/reader" <<SH
#!/bin/sh
echo "\$*" >>"$BP_TMPDIR/reader.calls"
"$top_builddir/bootpack-read" "\$@"
SH
chmod 755 "$BP_TMPDIR/reader"
subst() {
	sed -e "s|@bpstatedir@|/var/lib/bootpack|g" -e "s|/sbin/bootpack-read|$BP_TMPDIR/reader|g" \
		-e "s|/run/bootpack|$run|g" "$1" >"$2"
}
subst "$top_srcdir/boot/initramfs-tools/scripts/init-bottom/bootpack.in" "$BP_TMPDIR/init-bottom"
subst "$top_srcdir/boot/dracut/90bootpack/bootpack-read.sh.in" "$BP_TMPDIR/pre-pivot"
# (the initramfs' paths replaced: never this machine's /run/bootpack)
for s in init-bottom pre-pivot; do
	grep -q "$run/relayout.status" "$BP_TMPDIR/$s" ||
		bp_fail "$s does not look at /run/bootpack/relayout.status"
done

resident() { [ "$("$mincore" "$ROOT/usr/lib/x/$1")" -gt 0 ]; }
all_resident() {
	[ "$("$mincore" -m "$ROOT/usr/lib/x/$1" 0 262144)" = 0 ]
}
evict() {
	local f
	for f in a b; do
		dd if="$ROOT/usr/lib/x/$f" iflag=nocache count=0 status=none
		! resident $f || bp_fail "cannot evict $f from the page cache"
	done
}

# initramfs HOW: run the init-bottom script (HOW=tools, as initramfs-tools
# runs it with rootmnt) or source the pre-pivot hook (HOW=dracut, with
# NEWROOT and dracut's getargbool); $read: the pack file the reader was
# given ("" when it was not started). Waits for the reading child's end.
initramfs() {
	local n
	rm -f "$BP_TMPDIR/reader.calls" "$run/read-in-initramfs"
	evict
	case $1 in
	tools) rootmnt=$ROOT sh "$BP_TMPDIR/init-bottom" || bp_fail "init-bottom failed the boot" ;;
	dracut)
		NEWROOT=$ROOT sh -c 'getargbool() { return 0; }; . "$1"' sh "$BP_TMPDIR/pre-pivot" ||
			bp_fail "the pre-pivot hook failed the boot"
		;;
	esac
	read=
	[ -f "$BP_TMPDIR/reader.calls" ] || return 0
	read=$(sed -n 's/.* --pack \([^ ]*\) .*/\1/p' "$BP_TMPDIR/reader.calls")
	for ((n = 0; n < 300; n++)); do
		pgrep -f -- "--pack $read " >/dev/null || break
		sleep 0.1
	done
	[ "$n" -lt 300 ] || bp_fail "the reading child still runs 30 s later"
}

# expect HOW PACK FILE WHAT: the reader was given PACK and brought in FILE
# (wholly), not the other one
expect() {
	local other=a
	[ "$3" = a ] && other=b
	initramfs "$1"
	[ "$read" = "$2" ] || bp_fail "$1, $4: the reader was given '$read', not $2"
	[ -e "$run/read-in-initramfs" ] ||
		bp_fail "$1, $4: no $run/read-in-initramfs: bootpack-read.service would read the pack again"
	all_resident "$3" || bp_fail "$1, $4: /usr/lib/x/$3 (in $2) was not read"
	! resident $other || bp_fail "$1, $4: /usr/lib/x/$other (not in $2) was read"
}

# the unit skips a boot whose initramfs read the pack (the marker's path,
# as the scripts write it)
grep -qx 'ConditionPathExists=!/run/bootpack/read-in-initramfs' \
	"$top_srcdir/boot/bootpack-read.service.in" ||
	bp_fail "bootpack-read.service does not skip a boot whose initramfs read the pack"

bp_cache_hold
for how in tools dracut; do
	# no relayout this boot (a read boot): the state directory's pack
	rm -f "$run/relayout.status" "$run/pack"
	expect $how "$ROOT/var/lib/bootpack/pack" a "no relayout"
	# boot 2, the relayout done: the pack it wrote
	cp "$BP_TMPDIR/new.pack" "$run/pack"
	echo "done in 3 s" >"$run/relayout.status"
	expect $how "$run/pack" b "relayout done"
	# skipped or failed (a pack of an earlier try may be left): the old one
	echo "skipped not clean: e2fsck -fn exit 4 (the boot's fsck repairs it; next boot tries again)" \
		>"$run/relayout.status"
	expect $how "$ROOT/var/lib/bootpack/pack" a "relayout skipped"
	echo "failed after writes began (exit 8): x; the boot's fsck repairs it" >"$run/relayout.status"
	expect $how "$ROOT/var/lib/bootpack/pack" a "relayout failed"
	# done, but no new pack: the old one
	echo "done in 3 s" >"$run/relayout.status"
	rm "$run/pack"
	expect $how "$ROOT/var/lib/bootpack/pack" a "relayout done without its pack"
	# a control boot: nothing read, whichever pack
	cp "$BP_TMPDIR/new.pack" "$run/pack"
	touch "$statedir/control-boot"
	initramfs $how
	[ -z "$read" ] || bp_fail "$how: the reader ran on a control boot"
	[ ! -e "$run/read-in-initramfs" ] || bp_fail "$how: a control boot says the initramfs read"
	! resident a && ! resident b || bp_fail "$how: a control boot read"
	rm "$statedir/control-boot"
done
exit 0
