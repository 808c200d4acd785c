#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What a new user hit with relayout (issue 13):
#  - -q/--quiet (after the verb or before it) prints nothing on success;
#  - the default undo file is named by the filesystem's UUID and the time, so
#    relaying out a second image of the same base name keeps the first undo
#    file (each still restores its own image with e2undo);
#  - a relayout with nothing to do prints no undo banner and keeps no file;
#  - -z naming an existing undo file says that it is replaced;
#  - --progress-fd on a closed descriptor is a usage error (2), nothing written;
#  - -p where stderr is not a terminal says so and prints one line per pass;
#  - -p on a terminal leaves no bar short of 100% behind ("Flushing 0%").
# JSON: the result is one object under the key "relayout" (bootpack(8)).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/relayout/rl-functions.sh"
bp_require_root
bp_require_cmd debugfs dumpe2fs blkid e2undo tune2fs script python3
# Under ASan, LSan lists the suppressions it used on stderr: not ours to print.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}print_suppressions=0"
statedir=$(sed -n 's/^#define BP_STATEDIR "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$statedir" ] || bp_fail "no BP_STATEDIR in config.h"

mkdir "$BP_TMPDIR/a" "$BP_TMPDIR/b"
a=$BP_TMPDIR/a/disk.img
b=$BP_TMPDIR/b/disk.img
mv "$(bp_fixture ext4)" "$a"
cp --sparse=always "$a" "$b"
tune2fs -U random "$b" >/dev/null
ua=$(blkid -p -o value -s UUID "$a")
ub=$(blkid -p -o value -s UUID "$b")
[ "$ua" != "$ub" ] || bp_fail "the two images share a UUID"
# Default undo files of the two (the fixture's UUID is a test UUID; b's is new).
bp_on_exit "rm -f '$statedir'/relayout-'$ua'-*.e2undo '$statedir'/relayout-'$ub'-*.e2undo"
rl_mktrace "$a" "$BP_TMPDIR/ta" "${RL_BOOT_FILES[@]}"
rl_mktrace "$b" "$BP_TMPDIR/tb" "${RL_BOOT_FILES[@]}"
sa=$(rl_sum "$a")
sb=$(rl_sum "$b")

# undo_of OUT VAR: the undo file a run named in its banner, removed at exit.
undo_of() {
	local u
	u=$(sed -n 's/^    e2undo \(.*\) [^ ]*$/\1/p' "$1")
	[ -n "$u" ] || { cat "$1"; bp_fail "no undo banner in $1"; }
	bp_on_exit "rm -f '$u'"
	printf -v "$2" '%s' "$u"
}

# Closed --progress-fd: usage error before anything is opened for writing.
bp_expect_exit 2 "$BOOTPACK" relayout --no-undo --progress-fd 99 --trace "$BP_TMPDIR/ta" "$a"
bp_grep "^bootpack relayout: --progress-fd 99: not an open file descriptor" "$BP_TMPDIR/err"
[ "$(rl_sum "$a")" = "$sa" ] || bp_fail "--progress-fd 99 changed the image"

# Two images both called disk.img, default undo files: both kept, each named
# by its filesystem's UUID; --quiet on b prints nothing at all.
bp_expect_exit 0 "$BOOTPACK" relayout --no-pack --trace "$BP_TMPDIR/ta" "$a"
undo_of "$BP_TMPDIR/out" ufa
bp_grep "relaid out" "$BP_TMPDIR/out"
case $ufa in "$statedir/relayout-$ua-"*.e2undo) ;; *) bp_fail "undo file $ufa not named by UUID $ua" ;; esac
[ -s "$ufa" ] || bp_fail "$ufa was not written"
"$BOOTPACK" relayout --quiet --no-pack --trace "$BP_TMPDIR/tb" "$b" >"$BP_TMPDIR/qout" 2>"$BP_TMPDIR/qerr" ||
	bp_fail "relayout --quiet failed: $(cat "$BP_TMPDIR/qerr")"
[ ! -s "$BP_TMPDIR/qout" ] && [ ! -s "$BP_TMPDIR/qerr" ] ||
	bp_fail "relayout --quiet printed: $(cat "$BP_TMPDIR/qout" "$BP_TMPDIR/qerr")"
ufb=$(ls "$statedir"/relayout-"$ub"-*.e2undo)
[ "$(echo "$ufb" | wc -l)" = 1 ] || bp_fail "not one undo file for $ub: $ufb"
[ -s "$ufa" ] || bp_fail "the second relayout removed the first undo file"
bp_fsck_clean "$a"
bp_fsck_clean "$b"
e2undo "$ufa" "$a" >/dev/null
e2undo "$ufb" "$b" >/dev/null
[ "$(rl_sum "$a")" = "$sa" ] || bp_fail "e2undo of the first undo file did not restore a"
[ "$(rl_sum "$b")" = "$sb" ] || bp_fail "e2undo of the second undo file did not restore b"

# Global -q before the verb, JSON shape, and a second run of a at once: the
# same second must not reuse the first name.
bp_expect_exit 0 "$BOOTPACK" -q relayout -J --no-pack --trace "$BP_TMPDIR/ta" "$a"
uf2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["relayout"]["undo_file"] or "")' \
	"$BP_TMPDIR/out")
bp_on_exit "rm -f '$uf2'"
python3 - "$BP_TMPDIR/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["relayout"], d
r = d["relayout"]
assert r["plan"]["nothing_to_do"] is False and r["result"]["discontiguities"] == 0, r
PY
[ "$uf2" != "$ufa" ] && [ -s "$uf2" ] && [ -s "$ufa" ] || bp_fail "second run of a reused $ufa"
[ ! -s "$BP_TMPDIR/err" ] || bp_fail "-q -J printed on stderr: $(cat "$BP_TMPDIR/err")"

# Nothing to do now: no banner, no undo file kept.
before=$(ls "$statedir")
bp_expect_exit 0 "$BOOTPACK" relayout --no-pack --trace "$BP_TMPDIR/ta" "$a"
bp_grep "left as it is" "$BP_TMPDIR/out"
if grep -q "e2undo\|Before changing" "$BP_TMPDIR/out" "$BP_TMPDIR/err"; then
	cat "$BP_TMPDIR/out"
	bp_fail "nothing to do, yet the undo banner was printed"
fi
[ "$(ls "$statedir")" = "$before" ] || bp_fail "nothing to do, yet a file was left in $statedir"

# -z naming an existing undo file: said before it is replaced.
c=$BP_TMPDIR/c.img
mv "$(bp_fixture ext4)" "$c"
echo "an earlier run's undo file" >"$BP_TMPDIR/old.e2undo"
bp_expect_exit 0 "$BOOTPACK" relayout --no-pack -z "$BP_TMPDIR/old.e2undo" --trace "$BP_TMPDIR/ta" "$c"
bp_grep "^bootpack relayout: warning: $BP_TMPDIR/old.e2undo exists and is replaced by this run's undo file" \
	"$BP_TMPDIR/err"

# -p without a terminal: said, and one line per pass.
e2undo "$BP_TMPDIR/old.e2undo" "$c" >/dev/null
bp_expect_exit 0 env -u E2FSPROGS_SKIP_PROGRESS "$BOOTPACK" relayout -p --no-undo --no-pack \
	--trace "$BP_TMPDIR/ta" "$c"
bp_grep "^bootpack relayout: warning: -p: standard error is not a terminal: one line per pass" \
	"$BP_TMPDIR/err"
bp_grep "^Pass 2: Copying blocks$" "$BP_TMPDIR/err"
bp_fsck_clean "$c"

# -p on a terminal (script(1) gives it a pty): every bar left on the screen
# ends at 100%; a bar the next pass takes over is erased, not left at 0%.
d=$BP_TMPDIR/d.img
mv "$(bp_fixture ext4)" "$d"
env -u E2FSPROGS_SKIP_PROGRESS script -qec \
	"'$BOOTPACK' relayout -p --no-undo --no-pack --trace '$BP_TMPDIR/ta' '$d'" /dev/null \
	>"$BP_TMPDIR/tty" || bp_fail "relayout -p on a pty failed: $(cat "$BP_TMPDIR/tty")"
python3 - "$BP_TMPDIR/tty" <<'PY'
import re, sys
raw = open(sys.argv[1], "rb").read().decode()
bars = 0
for line in raw.replace("\r\n", "\n").split("\n"):
    shown = line
    for part in line.split("\r"):
        if part.startswith("\033[K"):
            shown = part[3:]
        elif part:
            shown = part
    m = re.search(r"\] +(\d+)%$", shown)
    if m:
        bars += 1
        assert m.group(1) == "100", "a bar left at %s%%: %r" % (m.group(1), shown)
assert bars >= 3, "no progress bars on the pty: %r" % raw
print("bars", bars)
PY
bp_fsck_clean "$d"
