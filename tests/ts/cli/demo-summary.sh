#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh end to end (issue 13: it ended without a summary): it ends with one
# before/after table — discontiguities, the modelled seconds per disk model,
# the physical limit, e2fsck, the files' SHA-256, undo — whose figures are
# the ones the run printed above it (verify, bench), and each column is
# explained once. The demo drops the page cache itself, so this case holds
# the tests' cache lock exclusively while it runs (tests/functions.sh).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd python3 debugfs e2undo losetup
bp_tracefs >/dev/null
# Under ASan: the demo's relayout writes an undo file; ignore the undo
# manager's own leak in libext2fs, as the relayout cases do.
export LSAN_OPTIONS="suppressions=$top_srcdir/tests/ts/relayout/lsan-undo.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

exec {lk}>>"$BP_CACHE_LOCK"
flock -w 300 -x "$lk" || bp_info "cache lock busy for 300 s: going on"
rc=0
BUILDDIR=$top_builddir BP_DEMO_DIR=$BP_TMPDIR/demo bash "$top_srcdir/demo.sh" \
	>"$BP_TMPDIR/demo.log" 2>&1 || rc=$?
exec {lk}>&-
[ $rc = 0 ] || { cat "$BP_TMPDIR/demo.log"; bp_fail "demo.sh exited $rc"; }
sed -n '/^== summary/,$p' "$BP_TMPDIR/demo.log" | tee "$BP_TMPDIR/summary"
[ "$(grep -c '^== ' "$BP_TMPDIR/demo.log" | tr -d ' ')" -ge 8 ] || bp_fail "steps missing"
[ "$(tail -n +2 "$BP_TMPDIR/demo.log" | grep -c '^== summary')" = 1 ] || bp_fail "not one summary"
bp_grep "^ +DISCONT +eee-flash +hdd-5k160 +sata-ssd +E2FSCK +SHA-256 +UNDO$" "$BP_TMPDIR/summary"

# The after row's figures are those verify and bench printed after relayout.
python3 - "$BP_TMPDIR/demo.log" "$BP_TMPDIR/summary" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
summ = open(sys.argv[2]).read().splitlines()
rows = {l.split("  ")[0].strip(): l for l in summ[2:5]}
before, after, limit = rows["before"].split(), rows["after"].split(), rows["physical limit"].split()
after_part = log[log.index("== after"):log.index("== the pack")]
before_part = log[log.index("== before"):log.index("== relayout")]
d_after = re.search(r"discontiguities:  (\d+)", after_part).group(1)
d_before = re.search(r"discontiguities:  (\d+)", before_part).group(1)
assert before[1] == d_before and after[1] == d_after == "0", (before, after, d_before, d_after)
for i, model in enumerate(["eee-flash", "hdd-5k160", "sata-ssd"]):
    now_after = re.search(r"^%s +now +([0-9.]+) +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)" % model,
                          after_part, re.M)
    now_before = re.search(r"^%s +now +([0-9.]+)" % model, before_part, re.M)
    assert after[2 + 2 * i] == now_after.group(1), (model, after, now_after.group(0))
    assert limit[3 + 2 * i] == now_after.group(2), (model, limit, now_after.group(0))
    assert before[2 + 2 * i] == now_before.group(1), (model, before)
    assert float(now_after.group(1)) <= float(now_before.group(1)), model
assert rows["after"].split()[-6:] == ["clean", "all", "unchanged", "byte", "for", "byte"], rows["after"]
m = re.search(r"all (\d+) files unchanged", log)
assert "%s files" % m.group(1) in rows["before"], rows["before"]
print("summary matches the run")
PY
for c in DISCONT "eee-flash, hdd-5k160, sata-ssd:" "physical limit:" E2FSCK SHA-256 UNDO; do
	[ "$(grep -c "^$c" "$BP_TMPDIR/summary")" = 1 ] || bp_fail "column $c not explained exactly once"
done
