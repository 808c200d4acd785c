#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bootpack setup takes the best events the kernel of the traced boot has:
# mm_filemap_add_to_page_cache alone before Linux 6.12 (Debian 12's 6.1),
# the page-access events from 6.12 on. In a tree (--root) the newest
# /boot/config-* says, by its release (6.12 sorts after 6.1 and 6.9); on a
# running system, its tracefs: setup runs chrooted into the tree with this
# machine's /sys and /dev and a tracefs of our own over /sys/kernel/tracing,
# laid out as 6.1's (add_to_page_cache only) and as 6.12's, accepted; and
# each refusal names the missing piece (no tracefs: CONFIG_FTRACE; no
# filemap events at all; filemap events without add_to_page_cache; an
# add_to_page_cache whose format bootpack cannot read), exit 4, nothing
# written. The oracle: the cmdline file and the state the traced boot reads.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd unshare chroot ldd

check_untouched() {
	listing "$ROOT" "$BP_TMPDIR/now"
	diff -u "$BP_TMPDIR/before" "$BP_TMPDIR/now" || bp_fail "$1 wrote to the tree"
}
all='filemap:mm_filemap_add_to_page_cache,filemap:mm_filemap_get_pages,filemap:mm_filemap_map_pages,filemap:mm_filemap_fault'

mk_tree
cmdline=$ROOT/var/lib/bootpack/cmdline

# --- a tree: the newest kernel config's release
bp_expect_exit 0 "$BOOTPACK" setup --dry-run --root "$ROOT"
bp_grep '^Tracing: kernel 6.1.0-test \(/boot/config-6.1.0-test\): mm_filemap_add_to_page_cache$' \
	"$BP_TMPDIR/out"
bp_grep '^    trace_event=filemap:mm_filemap_add_to_page_cache trace_buf_size=32768K$' \
	"$BP_TMPDIR/out"
bp_grep 'page-cache insertions only: what readahead read and nobody used' "$BP_TMPDIR/out"
printf 'CONFIG_FTRACE=y\nCONFIG_EVENT_TRACING=y\n' >"$ROOT/boot/config-6.9.0-test"
printf 'CONFIG_FTRACE=y\nCONFIG_EVENT_TRACING=y\n' >"$ROOT/boot/config-6.12.38+deb12-amd64"
bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --probe never
bp_grep '^Tracing: kernel 6.12.38\+deb12-amd64 .*mm_filemap_fault$' "$BP_TMPDIR/out"
bp_grep "^trace_event=$all trace_buf_size=32768K\$" "$cmdline"
bp_grep "^cmdline=trace_event=$all trace_buf_size=32768K\$" "$ROOT/var/lib/bootpack/loop"
bp_expect_exit 0 "$BOOTPACK" setup --undo --root "$ROOT"
rm -f "$ROOT/boot/config-6.9.0-test" "$ROOT/boot/config-6.12.38+deb12-amd64"

# --- a running system: bootpack chrooted into the tree, its libraries copied in
bin=$(find "$ROOT" -path '*/sbin/bootpack' -type f | head -n 1)
[ -n "$bin" ] || bp_fail "bootpack not installed in the tree"
bin=${bin#"$ROOT"}
ldd "$ROOT$bin" | grep -oE '/[^ ]+' | while read -r lib; do
	cp -L --parents "$lib" "$ROOT/"
done
mkdir -p "$ROOT/sys" "$ROOT/dev"
FAKE=$BP_TMPDIR/tracefs
# mk_fake EVENT...: a tracefs directory with these filemap events (6.18's format)
mk_fake() {
	rm -rf "$FAKE"
	mkdir -p "$FAKE/events/filemap" "$FAKE/instances"
	: >"$FAKE/trace"
	for e in "$@"; do
		mkdir -p "$FAKE/events/filemap/$e"
		: >"$FAKE/events/filemap/$e/enable"
		sed "s/^name: .*/name: $e/" "$top_srcdir/tests/ts/trace/data/format-add-6.18.txt" \
			>"$FAKE/events/filemap/$e/format"
	done
}
# live EXPECTED-EXIT [over-sys-kernel]: bootpack setup in the chroot, as on a running system
live() {
	local want=$1 over=${2:-}
	set +e
	unshare -m --propagation private bash -c '
		set -e
		mount --rbind /sys "$1/sys"; mount --rbind /dev "$1/dev"
		if [ -n "$4" ]; then mount --bind "$4" "$1/sys/kernel"
		else mount --bind "$2" "$1/sys/kernel/tracing"; fi
		shift 4
		exec chroot "$@"' sh "$ROOT" "$FAKE" "$bin" "$over" \
		"$ROOT" "$bin" setup --probe never >"$BP_TMPDIR/out" 2>"$BP_TMPDIR/err"
	local rc=$?
	set -e
	[ "$rc" = "$want" ] || { cat "$BP_TMPDIR/out" "$BP_TMPDIR/err"; bp_fail "live setup: exit $rc, not $want"; }
	sed 's/^/# /' "$BP_TMPDIR/err"
	grep -E '^(Tracing|  \(|  [a-z]|    trace_event)' "$BP_TMPDIR/out" | sed 's/^/# /' || true
}
listing "$ROOT" "$BP_TMPDIR/before"

mkdir -p "$BP_TMPDIR/nokernel"
live 4 "$BP_TMPDIR/nokernel"
bp_grep 'has no tracefs \(no /sys/kernel/tracing\): it was built without CONFIG_FTRACE' "$BP_TMPDIR/err"
check_untouched "the no-tracefs refusal"

mk_fake
rmdir "$FAKE/events/filemap"
live 4
bp_grep 'events/filemap: the running kernel .* has no filemap events at all' "$BP_TMPDIR/err"
check_untouched "the no-filemap refusal"

mk_fake mm_filemap_delete_from_page_cache
live 4
bp_grep 'has filemap events but not filemap/mm_filemap_add_to_page_cache' "$BP_TMPDIR/err"
check_untouched "the no-add_to_page_cache refusal"

mk_fake mm_filemap_add_to_page_cache
cp "$top_srcdir/tests/ts/trace/data/format-add-unknown.txt" \
	"$FAKE/events/filemap/mm_filemap_add_to_page_cache/format"
live 4
bp_grep 'mm_filemap_add_to_page_cache/format' "$BP_TMPDIR/err"
check_untouched "the unknown-format refusal"

# 6.1: add_to_page_cache only, accepted; the traced boot asks for it alone
mk_fake mm_filemap_add_to_page_cache mm_filemap_delete_from_page_cache
live 0
bp_grep '^Tracing: running kernel .*: mm_filemap_add_to_page_cache \(no page-access events before Linux 6.12\)$' \
	"$BP_TMPDIR/out"
bp_grep '^trace_event=filemap:mm_filemap_add_to_page_cache trace_buf_size=32768K$' \
	"$cmdline"
bp_grep '^phase=trace$' "$ROOT/var/lib/bootpack/loop"
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Kernel args: trace_event=filemap:mm_filemap_add_to_page_cache trace_buf_size=32768K$' \
	"$BP_TMPDIR/out"
bp_grep '^Trace:       none yet$' "$BP_TMPDIR/out"
# status says which events the saved trace had (its header, as bootpack trace writes it)
trace_file() {
	printf 'bootpack-trace 1\nuuid 00000000-0000-0000-0000-000000000000\nblock-size 4096\n' \
		>"$ROOT/var/lib/bootpack/trace"
	printf 'kernel %s\nsource %s\nevents %s 0\nend 0\n' "$@" >>"$ROOT/var/lib/bootpack/trace"
}
trace_file 6.1.0-57-amd64 boot '1200 0'
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Trace:       kernel 6.1.0-57-amd64, the traced boot: page-cache insertions only \(mm_filemap_add_to_page_cache; no page-access events' \
	"$BP_TMPDIR/out"
sed -n 's/^Trace:/# &/p' "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" status --json --root "$ROOT"
bp_grep '"trace": \{"kernel": "6.1.0-57-amd64", "source": "boot", "events": "add_to_page_cache"\}' \
	<(tr -d '\n\t' <"$BP_TMPDIR/out" | sed 's/  */ /g; s/{ /{/g; s/ }/}/g')
trace_file 6.12.38+deb12-amd64 merge '1200 5400'
bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT"
bp_grep '^Trace:       kernel 6.12.38\+deb12-amd64, the traced boot merged with read boots: page-cache insertions and page accesses' \
	"$BP_TMPDIR/out"
sed -n 's/^Trace:/# &/p' "$BP_TMPDIR/out"
rm "$ROOT/var/lib/bootpack/trace"
bp_expect_exit 0 "$BOOTPACK" setup --undo --root "$ROOT"

# 6.12: the page-access events too
mk_fake mm_filemap_add_to_page_cache mm_filemap_get_pages mm_filemap_map_pages mm_filemap_fault
live 0
bp_grep '^Tracing: running kernel .*: mm_filemap_add_to_page_cache, mm_filemap_get_pages, mm_filemap_map_pages, mm_filemap_fault$' \
	"$BP_TMPDIR/out"
bp_grep "^trace_event=$all trace_buf_size=32768K\$" "$cmdline"
exit 0
