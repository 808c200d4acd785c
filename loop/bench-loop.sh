#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-loop.sh --- the boot loop's real rule over a run of boots, modelled
#
# Usage: bench-loop.sh [--boots N] [--model M]... [--tsv FILE] [--out BENCH.md]
#
# A system tree on an ext4 image of its own (tests/ts/setup/tree.sh: loop-
# mounted, bootpack installed), set up with bootpack setup, then N boots
# (default 14) driven through the loop's entry points as the system's units
# and initramfs would: the initramfs's relayout (bootpack relayout on the
# unmounted image, its pack in /run/bootpack) when the phase says so,
# setup --event boot, a traced boot's trace and setup --event traced, and at
# the end of a read boot status --sample with the boot's reads as a trace
# (tests/mktrace.sh, on the image frozen) and the boot's modelled time. The
# boot's reads drift as a system's do: a log grows every boot, packages are
# upgraded (files replaced by new ones, as dpkg does) and installed (new
# files and directories the boot reads), directories are listed, a timer's
# program runs every other boot.
#
# Each boot's requests are modelled on each disk model with the bench's own
# code (loop/bench-loop-model, bench/diskmodel.c): a read boot reads the
# pack's ranges (one pass) and then its misses; a control or traced boot
# reads as it comes, on the layout now. The boot's CPU and waits are
# BOOT_CPU_MS (1500, the same every boot: not modelled); the reader's pass
# runs beside them, every other read stalls the boot: done-booting is
# max(CPU, the pack's pass) + the misses' time with the reader, CPU + the
# read time without it. It is the boot time the loop is given (--boot-us), so each
# model runs the loop on a tree of its own and the loop decides on that
# disk's times. The relayout's own time is not in the figure.
#
# --tsv FILE: one line a boot, tab-separated: model boot phase_before did
# control misses requests pack_ranges read_ms done_ms phase_after verdict
# model_misses. misses: the loop's (status --sample), on the boots it
# samples; model_misses: the model's requests outside the pack's ranges
# (0 on a boot without the reader); requests: the model's, all of them.
# --out BENCH.md: the table replaces the section between the bench-loop
# markers. Root; writes nothing else outside its temporary directory.
# In a mount namespace of its own: a namespace another process creates
# while the tree is mounted (a container, unshare -m) would copy the mount
# and hold the device, and the relayout finds it busy.
if [ -z "${BP_BENCH_LOOP_NS:-}" ] && [ "$(id -u)" = 0 ]; then
	BP_BENCH_LOOP_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "${top_srcdir:?}/tests/functions.sh"
# status samples what is resident (mincore): held against the other cases'
# drop_caches from the first file written
bp_cache_hold
. "$top_srcdir/tests/ts/setup/tree.sh"
bp_require_cmd jq fsfreeze

BOOTS=14 MODELS=() TSV='' OUT=''
BOOT_CPU_MS=${BOOT_CPU_MS:-1500}
MODEL_BIN=${MODEL_BIN:-$top_builddir/loop/bench-loop-model}
while [ $# -gt 0 ]; do
	case $1 in
	--boots) BOOTS=$2; shift 2 ;;
	--model) MODELS+=("$2"); shift 2 ;;
	--tsv) TSV=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "bench-loop.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ ${#MODELS[@]} -gt 0 ] || MODELS=(hdd-5k160 eee-flash pi4-sd)
[ -x "$MODEL_BIN" ] || bp_fail "$MODEL_BIN: make loop/bench-loop-model first"
: >"$BP_TMPDIR/all.tsv"

# fill FILE BYTES: BYTES of random data into FILE (its directories made)
fill() { mkdir -p "$(dirname "$1")"; head -c "$2" /dev/urandom >"$1"; }
# replace FILE: a package upgrade's new version: a new inode, renamed over
replace() {
	head -c "$(stat -c %s "$1")" /dev/urandom >"$1.dpkg-new"
	mv "$1.dpkg-new" "$1"
}

# the tree a boot reads: libraries, programs, settings, scattered by holes
# (files written between them, then removed: an aged disk's free space)
mk_system() {
	local i
	RANDOM=39
	for i in $(seq -w 1 36); do
		fill "$ROOT/usr/lib/sys/lib$i.so" $(((RANDOM % 12 + 1) * 32768))
		fill "$ROOT/usr/share/junk/j$i" $(((RANDOM % 4 + 1) * 131072))
	done
	for i in $(seq -w 1 12); do
		fill "$ROOT/usr/bin/prog$i" $(((RANDOM % 6 + 1) * 16384))
		fill "$ROOT/usr/share/junk/k$i" 262144
	done
	for i in $(seq -w 1 24); do
		fill "$ROOT/etc/conf.d/c$i" $((RANDOM % 3000 + 200))
	done
	fill "$ROOT/var/log/syslog" 65536
	sync
	rm -rf "$ROOT/usr/share/junk"
	sync
}

# pkg NAME: a package installed: 20 modules, each in a directory of its own
# (128 KiB, of which the boot reads the first 8 KiB), that the boots read
# from now on: 20 requests or more outside the pack on its first boot
pkg() {
	local i
	for i in $(seq -w 1 20); do
		fill "$ROOT/usr/lib/$1/m$i/mod.so" 131072
	done
}

# drift K: what changed on the system before boot K (the previous boot's
# life: a log grown, packages upgraded or installed)
drift() {
	local k=$1 i
	head -c 49152 /dev/urandom >>"$ROOT/var/log/syslog"
	case $k in
	3) pkg pkga ;;
	4) pkg pkgb
	   for i in 03 11 19; do replace "$ROOT/usr/lib/sys/lib$i.so"; done ;;
	7) pkg pkgc; fill "$ROOT/usr/bin/newprog" 98304 ;;
	8) pkg pkgd ;;
	10) for i in 05 06 27 30; do replace "$ROOT/usr/lib/sys/lib$i.so"; done
	   replace "$ROOT/usr/bin/prog04" ;;
	12) pkg pkge ;;
	13) pkg pkgf ;;
	esac
	sync
}

# reads K: boot K's reads, mktrace.sh arguments, into the array R
reads() {
	local k=$1 d b f sz dirs=(/etc/conf.d /usr/lib/sys /usr/bin /var/log)
	R=()
	for d in "$ROOT"/usr/lib/pkg*/m*; do
		[ ! -d "$d" ] || dirs+=("${d#"$ROOT"}")
	done
	# the directories listed (their first block, as metadata)
	printf 'blocks %s\n' "${dirs[@]}" >"$BP_TMPDIR/dirs.cmd"
	while read -r b; do
		R+=(-m "$((b * bs)):$bs:1000")
	done < <(frozen debugfs -f "$BP_TMPDIR/dirs.cmd" "$img" 2>/dev/null |
		awk '/^[0-9]/ { print $1 }' | sort -n)
	for f in "$ROOT"/usr/lib/sys/lib*.so "$ROOT"/etc/conf.d/c* "$ROOT"/usr/bin/prog0[1-8]; do
		R+=("${f#"$ROOT"}")
	done
	[ $((k % 2)) = 1 ] || R+=(/usr/bin/prog10)	# a timer's program
	[ ! -e "$ROOT/usr/bin/newprog" ] || R+=(/usr/bin/newprog)
	for f in "$ROOT"/usr/lib/pkg*/m*/mod.so; do
		[ ! -e "$f" ] || R+=("${f#"$ROOT"}:0:8192")
	done
	# the log's last 32 KiB
	sz=$(stat -c %s "$ROOT/var/log/syslog")
	R+=("/var/log/syslog:$((sz - 32768)):32768")
}

# initramfs_relayout: the initramfs's relayout of the unmounted root
initramfs_relayout() {
	local t0 t1 i
	cp "$sd/trace" "$BP_TMPDIR/rl.trace"
	umount "$ROOT"
	# udev probes the device after the umount (blkid holds it a moment):
	# "is busy" is tried again, 10 times a second apart
	udevadm settle 2>/dev/null || :
	t0=$(date +%s) i=0
	until "$BOOTPACK" relayout --force --no-undo --trace "$BP_TMPDIR/rl.trace" \
		--pack "$BP_TMPDIR/rl.pack" "$TREE_DEV" >"$BP_TMPDIR/rl.log" 2>&1; do
		i=$((i + 1))
		grep -q 'is busy' "$BP_TMPDIR/rl.log" && [ $i -lt 10 ] ||
			{ cat "$BP_TMPDIR/rl.log"; bp_fail "relayout"; }
		sleep 1
		t0=$(date +%s)
	done
	t1=$(date +%s)
	mount "$TREE_DEV" "$ROOT"
	mkdir -p "$run"
	cp "$BP_TMPDIR/rl.pack" "$run/pack"
	echo "done in $((t1 - t0)) s" >"$run/relayout.status"
}

# pack_ranges PACK: the pack's ranges, "OFFSET LENGTH" a line
pack_ranges() {
	"$BOOTPACK" dump --json "$1" |
		jq -r '(.meta[] | "\(.offset) \(.length)"), (.entries[] | "\(.phys) \(.length)")'
}

verdict() {
	"$BOOTPACK" status --root "$ROOT" | sed -n 's/^Readahead: *\([^:]*\).*/\1/p'
}

# one_run MODEL: the loop over BOOTS boots on a new tree, modelled on MODEL
one_run() {
	local model=$1 k ph did ctl pr out ms pms done_ms misses mmiss reqs ranges v
	mk_tree
	mk_system
	. "$top_srcdir/tests/ts/setup/readboot.sh"
	bs=$(frozen dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT"
	for k in $(seq 1 "$BOOTS"); do
		[ "$k" = 1 ] || drift "$k"
		ph=$(phase) did=$ph ctl=0 misses=
		rm -rf "$run"	# /run is a new tmpfs every boot
		if [ "$ph" = relayout ]; then
			initramfs_relayout
			did=relayout
		fi
		bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event boot
		[ ! -e "$sd/control-boot" ] || ctl=1
		reads "$k"
		mktrace "$BP_TMPDIR/boot$k.trace" "${R[@]}"
		frozen "$BOOTPACK" bench --trace "$BP_TMPDIR/boot$k.trace" -m "$model" \
			--stream-out "$BP_TMPDIR/s.all" "$img" >/dev/null ||
			bp_fail "bench of boot $k"
		awk '$1 == "now" { print $2, $3 }' "$BP_TMPDIR/s.all" >"$BP_TMPDIR/s$k"
		pr=-
		if [ "$(phase)" = read ] && [ -s "$sd/pack" ]; then
			pack_ranges "$sd/pack" >"$BP_TMPDIR/p$k"
			pr=$BP_TMPDIR/p$k
		fi
		if [ "$ctl" = 1 ]; then
			out=$("$MODEL_BIN" - "$BP_TMPDIR/s$k" "$model")
		else
			out=$("$MODEL_BIN" "$pr" "$BP_TMPDIR/s$k" "$model")
		fi
		read -r _ ms reqs mmiss pms <<<"$out"
		# the reader's pass runs beside the boot's CPU; a read outside
		# the pack (or any read, without the reader) stalls the boot
		if [ "$pms" -gt "$BOOT_CPU_MS" ]; then
			done_ms=$ms
		else
			done_ms=$((BOOT_CPU_MS + ms - pms))
		fi
		ranges=0
		[ "$pr" = - ] || ranges=$(awk '{ s = int($1 / 4096); e = int(($1 + $2 + 4095) / 4096)
			print s, e }' "$pr" | sort -n | awk '$1 > end { n++ } $2 > end { end = $2 }
			END { print n + 0 }')
		case $(phase) in
		trace)
			cp "$BP_TMPDIR/boot$k.trace" "$sd/trace"
			bp_expect_exit 0 "$BOOTPACK" setup --root "$ROOT" --event traced
			[ "$did" != trace ] || did=traced
			;;
		read)
			# the boot read its files (the reader's pack among them)
			cat "$ROOT"/usr/lib/sys/* "$ROOT"/usr/bin/* "$ROOT"/etc/conf.d/* \
				"$ROOT"/var/log/syslog >/dev/null
			find "$ROOT/usr/lib" -name mod.so -exec cat {} + >/dev/null
			bp_expect_exit 0 "$BOOTPACK" status --root "$ROOT" --sample \
				--boot-trace "$BP_TMPDIR/boot$k.trace" --boot-us "$((done_ms * 1000))"
			cp "$BP_TMPDIR/out" "$BP_TMPDIR/sample$k"
			misses=$(sed -n 's/^misses \([0-9]*\) requests.*/\1/p' "$BP_TMPDIR/sample$k")
			[ "$did" = relayout ] || did='read'
			;;
		esac
		v=$(verdict)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$k" "$ph" \
			"$did" "$ctl" "${misses:--}" "$reqs" "$ranges" "$ms" "$done_ms" "$(phase)" \
			"${v:--}" "$mmiss" |
			tee -a "$BP_TMPDIR/all.tsv"
	done
	"$BOOTPACK" status --root "$ROOT" >"$BP_TMPDIR/status-$model"
	[ -z "${BENCH_KEEP:-}" ] || { mkdir -p "$BENCH_KEEP/$model"
		cp -r "$sd/." "$BENCH_KEEP/$model/"; cp "$BP_TMPDIR/status-$model" "$BP_TMPDIR"/sample* \
			"$BENCH_KEEP/$model/"; }
	bp_info "$model: $(grep -E '^(Readahead|Misses rule):' "$BP_TMPDIR/status-$model" | tr '\n' ' ')"
	umount "$ROOT"
	# udev may hold the device a moment: detached when it lets go
	losetup -d "$TREE_DEV" 2>/dev/null || :
	mv "$BP_TMPDIR/root.img" "$BP_TMPDIR/root-$model.img"
}

for m in "${MODELS[@]}"; do
	"$MODEL_BIN" - /dev/null "$m" >/dev/null || bp_fail "no disk model $m"
	one_run "$m"
done
[ -z "$TSV" ] || cp "$BP_TMPDIR/all.tsv" "$TSV"
# summary MODEL: "relayouts after the first, the boot of the verdict"
summary() {
	awk -F'\t' -v m="$1" '$1 == m { if ($4 == "relayout") r++
		if (!v && ($12 ~ /^(pays|does not pay|off, it does not pay)/)) v = $2 }
		END { printf "%d %s\n", (r > 0 ? r - 1 : 0), (v ? v : "none") }' "$BP_TMPDIR/all.tsv"
}
for m in "${MODELS[@]}"; do
	read -r after vb < <(summary "$m")
	bp_info "$m: $after relayouts after the first, the verdict at boot $vb"
done
[ -n "$OUT" ] || exit 0
{
	echo "<!-- bench-loop: begin (make bench-loop writes this section) -->"
	echo "$(date -u '+%-d %b %Y'), $(uname -sr), BOOT_CPU_MS=$BOOT_CPU_MS, $BOOTS boots a model:"
	for m in "${MODELS[@]}"; do
		read -r after vb < <(summary "$m")
		echo
		echo "**$m**: $after relayouts after the first; the control boots' verdict at boot $vb."
		echo
		echo "| boot | phase | did | control | misses (loop / model) | requests | pack ranges | read ms | done-booting ms | phase after | readahead |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		awk -F'\t' -v m="$m" '$1 == m { printf "| %s | %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s |\n",
			$2, $3, $4, ($5 ? "yes" : "no"), $6, $13, $7, $8, $9, $10, $11, $12 }' "$BP_TMPDIR/all.tsv"
	done
	echo "<!-- bench-loop: end -->"
} >"$BP_TMPDIR/section.md"
if grep -q '^<!-- bench-loop: begin' "$OUT"; then
	awk -v f="$BP_TMPDIR/section.md" '/^<!-- bench-loop: begin/ { while ((getline l < f) > 0) print l; skip = 1 }
		!skip { print } /^<!-- bench-loop: end/ { skip = 0 }' "$OUT" >"$BP_TMPDIR/out.md"
else
	{ cat "$OUT"; echo; cat "$BP_TMPDIR/section.md"; } >"$BP_TMPDIR/out.md"
fi
cat "$BP_TMPDIR/out.md" >"$OUT"
