#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# relayout-root.sh DEVICE --- boot 2 of the bootpack loop, run by the
# initramfs (initramfs-tools local-premount, dracut pre-mount) while the root
# filesystem on DEVICE is not mounted. See bootpack-setup(8).
#
# Reads the loop state and the trace from the unmounted root with debugfs
# (read-only), checks the root with e2fsck -fn, then runs bootpack relayout
# with a progress line on the console and a time limit. The undo file and the
# new pack are written to a tmpfs on /run/bootpack (the root cannot hold them
# while it is being relaid out); bootpack-loop.service copies them to
# /var/lib/bootpack once the root is up. Whatever happens, the boot goes on: every
# outcome is one line in /run/bootpack/relayout.status ("done", "skipped
# REASON", "failed REASON") and on the console.
#
# What a power cut leaves, at each moment:
#  - before bootpack relayout writes (checks, planning): nothing changed; the
#    next boot tries again.
#  - while it writes: a filesystem marked as being changed; the next boot's
#    e2fsck -fn fails, the relayout is skipped ("not clean"), the initramfs'
#    own fsck (e2fsck -p) reclaims the leaked blocks, the boot completes; the
#    boot after it tries again (3 tries in all). The undo file in RAM is lost;
#    it is not what keeps the data safe (see bootpack-relayout(8)).
#  - after it completed, before the root is up: the root is relaid out and
#    clean; the undo file and the pack in RAM are lost. The next boot runs the
#    relayout again, which finds the boot set already in one stream, writes
#    nothing and writes the pack.
#  - after bootpack-loop.service copied them: done.
#
# Kernel command line: bootpack=off or bootpack.relayout=off skip it;
# bootpack.relayout_limit=SECONDS (default 600) is the time limit.

DEV=$1
STATEDIR=/var/lib/bootpack
RUN=/run/bootpack
LIMIT=600

msg() {
	echo "bootpack: $*" > /dev/console 2>/dev/null || echo "bootpack: $*"
	echo "bootpack: $*" > /dev/kmsg 2>/dev/null || :
}

finish() {
	echo "$*" > "$RUN/relayout.status"
	msg "relayout of $DEV: $*"
	exit 0
}

[ -x /sbin/bootpack ] || exit 0
[ -n "$DEV" ] && [ -b "$DEV" ] || exit 0
for x in $(cat /proc/cmdline); do
	case $x in
	bootpack=off | bootpack.relayout=off) exit 0 ;;
	bootpack.relayout_limit=*) LIMIT=${x#bootpack.relayout_limit=} ;;
	esac
done
case $LIMIT in '' | *[!0-9]*) LIMIT=600 ;; esac

phase=$(debugfs -R "cat $STATEDIR/loop" "$DEV" 2>/dev/null | sed -n 's/^phase=//p')
[ "$phase" = relayout ] || exit 0

mkdir -p "$RUN"
# a tmpfs of its own for the undo file: it can be as large as the boot set
# (tmpfs takes memory only for what is written); moved to the root with /run
if ! grep -q " $RUN tmpfs " /proc/mounts; then
	mount -t tmpfs -o size=50%,mode=0700,nodev,nosuid,noexec bootpack "$RUN" ||
		finish "skipped cannot mount a tmpfs on $RUN"
fi

for b in /sys/class/power_supply/*; do
	[ "$(cat "$b/type" 2>/dev/null)" = Battery ] || continue
	[ "$(cat "$b/status" 2>/dev/null)" = Discharging ] || continue
	cap=$(cat "$b/capacity" 2>/dev/null)
	[ -n "$cap" ] && [ "$cap" -lt 30 ] && finish "skipped on battery at ${cap}%"
done

debugfs -R "dump $STATEDIR/trace $RUN/trace" "$DEV" > /dev/null 2>&1
[ -s "$RUN/trace" ] || finish "skipped no trace in $STATEDIR/trace"

msg "checking $DEV (e2fsck -fn) before the relayout"
e2fsck -fn "$DEV" > "$RUN/e2fsck.log" 2>&1
rc=$?
[ $rc -eq 0 ] || finish "skipped not clean: e2fsck -fn exit $rc (the boot's fsck repairs it; next boot tries again)"

msg "relaying out $DEV (time limit ${LIMIT} s; bootpack.relayout=off skips it)"
rm -f "$RUN/progress"
mkfifo "$RUN/progress" || finish "skipped cannot create $RUN/progress"
# one progress line on the console: pass and percentage, redrawn in place
awk '{ p = ($3 > 0) ? int($2 * 100 / $3) : 0;
       if ($1 != lp || p != lq) { printf("\rbootpack: relayout pass %s/4: %3d%%", $1, p); lp = $1; lq = p } }
     END { printf("\n") }' < "$RUN/progress" > /dev/console 2>/dev/null &
awkpid=$!
start=$(cut -d. -f1 /proc/uptime)
bootpack relayout --force --trace "$RUN/trace" --undo "$RUN/relayout.e2undo" \
	--pack "$RUN/pack" --progress-fd 3 "$DEV" 3> "$RUN/progress" \
	> "$RUN/relayout.log" 2>&1 &
pid=$!
# SIGTERM: before the first write bootpack stops with nothing written (exit
# 32); once writing has begun it finishes the run (the quickest way to a
# clean filesystem). The limit therefore bounds the checks and the planning.
( sleep "$LIMIT"; kill -TERM $pid 2> /dev/null ) &
wd=$!
wait $pid
rc=$?
kill $wd 2> /dev/null
wait $awkpid 2> /dev/null
rm -f "$RUN/progress" "$RUN/trace"
end=$(cut -d. -f1 /proc/uptime)
why=$(grep -v '^ *$' "$RUN/relayout.log" | tail -n 1)
case $rc in
0) finish "done in $((end - start)) s" ;;
32) finish "skipped time limit of $LIMIT s reached before any write (exit 32)" ;;
4) finish "skipped refused (exit 4): $why" ;;
3) finish "skipped no pack written (exit 3): $why" ;;
8) finish "failed after writes began (exit 8): $why; the boot's fsck repairs it" ;;
*) finish "skipped exit $rc: $why" ;;
esac
