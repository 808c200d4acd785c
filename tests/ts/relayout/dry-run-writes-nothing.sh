#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# -n/--dry-run opens read-only and writes nothing (image byte-identical), and
# prints the plan; --json gives one valid JSON object whose figures match
# bootpack verify (discontiguities before) and the real run (region).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_cmd debugfs dumpe2fs blkid python3
img=$(bp_fixture --aged ext4)
rl_mktrace "$img" "$BP_TMPDIR/t" "${RL_BOOT_FILES[@]}"
s0=$(rl_sum "$img")
before=$(rl_verify_json "$img" "$BP_TMPDIR/t" discontiguities)

bp_expect_exit 0 "$BOOTPACK" relayout -n --trace "$BP_TMPDIR/t" "$img"
bp_grep "plan \(dry run, nothing written\)" "$BP_TMPDIR/out"
bp_grep "discontiguities:  $before -> 0" "$BP_TMPDIR/out"
bp_expect_exit 0 "$BOOTPACK" relayout -n -J --trace "$BP_TMPDIR/t" "$img"
cp "$BP_TMPDIR/out" "$BP_TMPDIR/plan.json"
[ "$(rl_sum "$img")" = "$s0" ] || bp_fail "dry run changed the image"
[ ! -s "$BP_TMPDIR/err" ] || { cat "$BP_TMPDIR/err"; bp_fail "dry run printed to stderr"; }

python3 - "$BP_TMPDIR/plan.json" "$before" >"$BP_TMPDIR/region" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["relayout"]
p = d["plan"]
assert d["dry_run"] is True and d["result"] is None, d
assert p["discontiguities_before"] == int(sys.argv[2]), p
assert p["discontiguities_after"] == 0, p
assert p["region_blocks"] == p["blocks_to_move"] + p["tree_blocks"] > 0, p
assert p["bytes_to_move"] == p["region_blocks"] * p["block_size"], p
assert p["files_moved"] == 11 and p["files_traced"] == 11, p
print(p["region_start"], p["region_blocks"])
PY
read -r start len <"$BP_TMPDIR/region"

# The real run does what the plan said.
bp_expect_exit 0 "$BOOTPACK" relayout -J --no-undo --trace "$BP_TMPDIR/t" "$img"
python3 - "$BP_TMPDIR/out" "$start" "$len" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["relayout"]
p, r = d["plan"], d["result"]
assert (p["region_start"], p["region_blocks"]) == (int(sys.argv[2]), int(sys.argv[3])), p
assert r["discontiguities"] == 0 and r["superblock_writes"] == 2, r
PY
bp_fsck_clean "$img"
exit 0
