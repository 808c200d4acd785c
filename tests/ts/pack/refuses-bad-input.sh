#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input: a clear message naming the object, the documented exit code,
# and nothing written. pack: missing or corrupt trace (3), trace of another
# filesystem (4), bad options (2), unwritable output (1, no file left);
# dump/verify: missing, corrupt, truncated or foreign packs (3).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/pack/pack-lib.sh"

bp_require_cmd debugfs dumpe2fs jq
img=$(bp_fixture ext4)
T=$BP_TMPDIR
pk_mktrace "$img" "$T/trace" /etc/passwd:0:all:1000 /usr/bin/bash:0:all:2000
"$BOOTPACK" pack --trace "$T/trace" -o "$T/pack" "$img" >/dev/null
sum=$(sha256sum "$img")

# pack: usage errors.
bp_expect_exit 2 "$BOOTPACK" pack -o "$T/x" "$img"
bp_grep "no trace given" "$T/err"
bp_grep "Try 'bootpack pack --help'" "$T/err"
bp_expect_exit 2 "$BOOTPACK" pack --trace "$T/trace" --budget 12Q -o "$T/x" "$img"
bp_grep "invalid budget '12Q'" "$T/err"
bp_expect_exit 2 "$BOOTPACK" pack --trace "$T/trace" --compress=maybe -o "$T/x" "$img"
bp_expect_exit 2 "$BOOTPACK" pack --trace "$T/trace" -o "$T/x"
bp_expect_exit 0 "$BOOTPACK" pack --help
bp_grep "^ bootpack pack --trace <trace>" "$T/out"

# pack: missing or corrupt trace: 3.
bp_expect_exit 3 "$BOOTPACK" pack --trace "$T/nope" -o "$T/x" "$img"
bp_grep "$T/nope" "$T/err"
head -n 5 "$T/trace" >"$T/short"
bp_expect_exit 3 "$BOOTPACK" pack --trace "$T/short" -o "$T/x" "$img"
[ ! -e "$T/x" ] || bp_fail "a pack was written from a corrupt trace"

# pack: the trace of another filesystem: refused (4), nothing written.
other=$(bp_fixture ext4-1k)
bp_expect_exit 4 "$BOOTPACK" pack --trace "$T/trace" -o "$T/x" "$other"
bp_grep "make the trace again on this filesystem" "$T/err"
[ ! -e "$T/x" ] || bp_fail "a pack was written for another filesystem"

# pack: not an ext filesystem: 4; output directory missing: 1, no temporary left.
head -c 1048576 /dev/zero >"$T/zero.img"
bp_expect_exit 4 "$BOOTPACK" pack --trace "$T/trace" -o "$T/x" "$T/zero.img"
bp_expect_exit 1 "$BOOTPACK" pack --trace "$T/trace" -o "$T/no/such/dir/pack" "$img"
bp_grep "$T/no/such/dir/pack" "$T/err"
# an existing pack is replaced atomically: a failed run leaves it as it was
cp "$T/pack" "$T/keep"
chmod 0555 "$T" 2>/dev/null
if [ "$(id -u)" != 0 ]; then
	bp_expect_exit 1 "$BOOTPACK" pack --trace "$T/trace" -o "$T/pack" "$img"
	cmp "$T/pack" "$T/keep" || bp_fail "failed run changed the pack"
fi
chmod 0755 "$T"
[ -z "$(find "$T" -mindepth 1 -maxdepth 1 -name '*.tmp-*')" ] || bp_fail "temporary file left behind"
[ "$(sha256sum "$img")" = "$sum" ] || bp_fail "the image was modified"

# dump and verify: missing (3), not a pack (3), corrupt (3), truncated (3).
bp_expect_exit 3 "$BOOTPACK" dump "$T/nope"
bp_grep "$T/nope: No such file or directory" "$T/err"
bp_expect_exit 3 "$BOOTPACK" dump "$img"
bp_grep "neither a bootpack trace nor a pack" "$T/err"
size=$(stat -c %s "$T/pack")
cp "$T/pack" "$T/bad"
printf '\xff' | dd of="$T/bad" bs=1 seek=$((size - 3)) conv=notrunc status=none
bp_expect_exit 3 "$BOOTPACK" dump "$T/bad"
bp_grep "$T/bad: corrupt pack: body CRC mismatch" "$T/err"
cp "$T/pack" "$T/bad"
# flip every bit of header byte 64 (writing a fixed value changes nothing
# when the byte already holds it)
b=$(od -An -tu1 -j64 -N1 "$T/bad" | tr -d ' ')
# shellcheck disable=SC2059  # the format is the byte, written as an octal escape
printf "\\$(printf '%03o' $((255 - b)))" | dd of="$T/bad" bs=1 seek=64 conv=notrunc status=none
cmp -s "$T/pack" "$T/bad" && bp_fail "the header byte did not change"
bp_expect_exit 3 "$BOOTPACK" verify --pack "$T/bad" "$img"
bp_grep "header CRC mismatch" "$T/err"
head -c $((size - 1)) "$T/pack" >"$T/bad"
bp_expect_exit 3 "$BOOTPACK" dump --json "$T/bad"
bp_grep "truncated body" "$T/err"
[ ! -s "$T/out" ] || bp_fail "dump --json printed something for a corrupt pack"
# unknown incompatible feature (header CRC fixed): refused, says why
python3 - "$T/pack" "$T/bad" <<'PY' 2>/dev/null || bp_skip "needs python3"
import sys, zlib, struct
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<I', b, 20, struct.unpack_from('<I', b, 20)[0] | 0x100)
struct.pack_into('<I', b, 28, 0)
struct.pack_into('<I', b, 28, zlib.crc32(bytes(b[:struct.unpack_from('<I', b, 12)[0]])))
open(sys.argv[2], 'wb').write(b)
PY
bp_expect_exit 3 "$BOOTPACK" dump "$T/bad"
bp_grep "unknown incompatible feature" "$T/err"
bp_expect_exit 2 "$BOOTPACK" verify --pack "$T/pack"
