#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace of another filesystem (another UUID), or of this one with another
# block size, is refused the same way by every verb that takes a trace and
# a device: relayout, verify --trace, pack, bench and trace --merge --device
# all exit 4 with the one message of the identity rule (fsident.h), and
# nothing is written. The right trace is accepted by each of them.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_cmd debugfs dumpe2fs

img=$(bp_fixture ext4)
other=$(bp_fixture ext3)
uuid=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
ouuid=$(dumpe2fs -h "$other" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
obs=$(dumpe2fs -h "$other" 2>/dev/null | sed -n 's/^Block size: *//p')
mk() { "$top_srcdir/tests/mktrace.sh" "$@" /etc/fstab || bp_fail "mktrace $*"; }
mk "$other" "$BP_TMPDIR/foreign"
mk "$img" "$BP_TMPDIR/good"
# This filesystem's UUID, another block size (and the ranges still valid).
sed "s/^block-size $bs\$/block-size $((bs / 4))/" "$BP_TMPDIR/good" >"$BP_TMPDIR/bsize"
grep -q "^block-size $((bs / 4))\$" "$BP_TMPDIR/bsize" || bp_fail "cannot edit the block size"

# every TRACE EXIT: run each verb; print "verb: message" per refusal.
every() {
	local t=$1 want=$2 verb
	for verb in relayout verify pack bench merge; do
		case $verb in
		relayout) set -- relayout --dry-run --trace "$t" "$img" ;;
		verify) set -- verify --trace "$t" "$img" ;;
		pack) set -- pack --trace "$t" -o "$BP_TMPDIR/pack.$verb" "$img" ;;
		bench) set -- bench -m sata-ssd --trace "$t" "$img" ;;
		merge) set -- trace --merge -o "$BP_TMPDIR/merged" --device "$img" "$t" ;;
		esac
		bp_expect_exit "$want" "$BOOTPACK" "$@"
		[ "$want" = 0 ] || echo "$verb: $(grep -m1 . "$BP_TMPDIR/err")"
	done
}

sum=$(sha256sum <"$img")
for t in foreign bsize; do
	rm -f "$BP_TMPDIR/merged" "$BP_TMPDIR"/pack.*
	every "$BP_TMPDIR/$t" 4 >"$BP_TMPDIR/$t.msgs"
	cat "$BP_TMPDIR/$t.msgs"
	[ ! -e "$BP_TMPDIR/merged" ] && [ -z "$(ls "$BP_TMPDIR"/pack.* 2>/dev/null)" ] ||
		bp_fail "$t: a refused verb wrote its output"
	# One message, whatever the verb (after "bootpack VERB: ").
	[ "$(sed 's/^[a-z]*: bootpack\( [a-z]*\)\{0,1\}: //' "$BP_TMPDIR/$t.msgs" | sort -u | wc -l)" = 1 ] ||
		bp_fail "$t: the verbs refuse with different messages"
done
bp_grep "the trace is of filesystem UUID $ouuid \\(block size $obs\\), this one is UUID $uuid \\(block size $bs\\)" \
	"$BP_TMPDIR/foreign.msgs"
bp_grep "the trace is of filesystem UUID $uuid \\(block size $((bs / 4))\\), this one is UUID $uuid \\(block size $bs\\)" \
	"$BP_TMPDIR/bsize.msgs"
[ "$(sha256sum <"$img")" = "$sum" ] || bp_fail "a refused verb changed the image"

every "$BP_TMPDIR/good" 0
exit 0
