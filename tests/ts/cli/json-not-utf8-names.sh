#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --json output is valid UTF-8 whatever the file names are (issue 23): a
# traced file and an image whose names hold the byte 0xff go through every
# verb with --json (dump of a trace and of a pack, pack, verify --trace and
# --pack, bench, relayout); each output must decode as strict UTF-8 and
# parse as JSON (Python), show the name with U+FFFD, and give its bytes
# back exactly in the member's _hex twin (bootpack(8), JSON OUTPUT).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
# relayout with an undo file: the sanitizer build ignores libext2fs' own leak (see the file)
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/ts/relayout/lsan-undo.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
bp_require_cmd mke2fs debugfs dumpe2fs python3

ff=$'\xff'
mkdir -p "$BP_TMPDIR/tree/d"
head -c 200000 /dev/urandom >"$BP_TMPDIR/tree/d/n${ff}.bin"
echo hello >"$BP_TMPDIR/tree/d/plain"
img=$BP_TMPDIR/disk${ff}.img
mke2fs -q -t ext4 -b 4096 -U b0075ac0-0000-4000-8000-0000000000ff -d "$BP_TMPDIR/tree" \
	"$img" 8M || bp_fail "mke2fs"
"$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/t" "/d/n${ff}.bin" /d/plain ||
	bp_fail "mktrace"

# check OUT NAME...: OUT is strict UTF-8 JSON, and every NAME (bytes) is in
# it as a string member with U+FFFD and its _hex twin holding NAME exactly.
check() {
	local out=$1
	shift
	python3 - "$out" "$@" <<'PY' || bp_fail "$out: not strict UTF-8 JSON with the names recoverable"
import json, os, sys
raw = open(sys.argv[1], 'rb').read()
doc = json.loads(raw.decode('utf-8', errors='strict'))
found = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, str) and k + '_hex' in v:
                b = bytes.fromhex(v[k + '_hex'])
                assert '\ufffd' in x, (k, x)
                assert b.decode('utf-8', errors='replace') == x, (k, x, b)
                found.add(b)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(doc)
for name in map(os.fsencode, sys.argv[2:]):
    if name not in found:
        sys.exit('%s: %r not recovered (found %r)' % (sys.argv[1], name, found))
PY
}

bp_expect_exit 0 "$BOOTPACK" dump --json "$BP_TMPDIR/t"
check "$BP_TMPDIR/out" "/d/n${ff}.bin"
bp_expect_exit 0 "$BOOTPACK" pack --json --trace "$BP_TMPDIR/t" -o "$BP_TMPDIR/p${ff}" "$img"
check "$BP_TMPDIR/out" "$BP_TMPDIR/p${ff}"
bp_expect_exit 0 "$BOOTPACK" dump --json "$BP_TMPDIR/p${ff}"
check "$BP_TMPDIR/out" "/d/n${ff}.bin" "$BP_TMPDIR/p${ff}"
bp_expect_exit 0 "$BOOTPACK" verify --json --trace "$BP_TMPDIR/t" "$img"
check "$BP_TMPDIR/out" "$img"
bp_expect_exit 0 "$BOOTPACK" bench --json -m sata-ssd --trace "$BP_TMPDIR/t" "$img"
check "$BP_TMPDIR/out" "$img"
bp_expect_exit 0 "$BOOTPACK" relayout --json -z "$BP_TMPDIR/undo${ff}" --trace "$BP_TMPDIR/t" "$img"
check "$BP_TMPDIR/out" "$img" "$BP_TMPDIR/undo${ff}"
# The file changed since the pack: verify --pack lists it as stale, by name.
debugfs -w -R "sif \"/d/n${ff}.bin\" mtime 20200101000000" "$img" >/dev/null 2>&1 ||
	bp_fail "debugfs sif"
bp_expect_exit 3 "$BOOTPACK" verify --json --pack "$BP_TMPDIR/p${ff}" "$img"
check "$BP_TMPDIR/out" "/d/n${ff}.bin" "$BP_TMPDIR/p${ff}"
exit 0
