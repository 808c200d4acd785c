#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The boot integration files: paths substituted, shell syntax, the unit's
# settings (systemd-analyze verify when present), make install puts each
# where distributions look; the initramfs-tools init-bottom script and the
# dracut pre-pivot hook, run for real against a loop-mounted root that holds
# a pack at /var/lib/bootpack/pack, leave the pack's files resident.
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
. "$top_srcdir/tests/ts/reader/reader-lib.sh"

b=$top_builddir/boot
unit=$b/bootpack-read.service
scripts=("$b/initramfs-tools/hooks/bootpack" "$b/initramfs-tools/scripts/init-bottom/bootpack"
	"$b/dracut/90bootpack/module-setup.sh" "$b/dracut/90bootpack/bootpack-read.sh")
for f in "$unit" "$b/tmpfiles.d/bootpack.conf" "${scripts[@]}"; do
	[ -s "$f" ] || bp_fail "$f was not generated"
	if grep -n '@[a-z]*@' "$f"; then bp_fail "$f: unsubstituted path"; fi
done
for f in "${scripts[@]}"; do
	bash -n "$f" || bp_fail "$f: syntax"
	case $f in *module-setup.sh) ;; *) sh -n "$f" || bp_fail "$f: POSIX sh syntax" ;; esac
done
for want in DefaultDependencies=no Conflicts=shutdown.target 'Before=sysinit.target' \
	'ConditionKernelCommandLine=!bootpack=off' 'ConditionPathExists=/.*/pack' \
	'ExecStart=/.*/bootpack-read --no-exec' SuccessExitStatus=3 \
	WantedBy=sysinit.target; do
	bp_grep "^$want" "$unit"
done
# The reader is not starved: at nice 19 or in the idle I/O class it read after
# the boot on the real-boot bench (bench/boot/README.md); it sets best-effort 7.
if grep -nE '^(Nice=(1[0-9]|[5-9])|IOSchedulingClass=idle)' "$unit"; then
	bp_fail "$unit starves the reader (nice or idle I/O class)"
fi
if command -v systemd-analyze >/dev/null 2>&1; then
	systemd-analyze verify --man=no "$unit" 2>"$BP_TMPDIR/verify" || true
	if grep -v 'bootpack-read: command not found\|is not executable\|Command .* is not executable' \
		"$BP_TMPDIR/verify" | grep -i 'bootpack-read.service'; then
		bp_fail "systemd-analyze verify complains"
	fi
fi
bp_grep '^d /.* 0755 root root -$' "$b/tmpfiles.d/bootpack.conf"
# The sample settings file: every key commented out, and it parses.
keys=$(sed -n 's/^#\([a-z_]*\) = .*/\1/p' "$top_srcdir/boot/bootpack.conf" | sort | tr '\n' ' ')
[ "$keys" = "budget head_start_ms init ioprio log max_fds max_ms max_request method pack " ] || bp_fail "sample keys: $keys"
sed 's/^#\([a-z_]* = \)/\1/' "$top_srcdir/boot/bootpack.conf" >"$BP_TMPDIR/conf"
bp_expect_exit 3 "$READER" --no-exec --config "$BP_TMPDIR/conf" --log=stderr \
	--pack "$BP_TMPDIR/none"
if grep -q 'bad setting' "$BP_TMPDIR/err"; then bp_fail "the sample's defaults do not parse"; fi

# make install into a DESTDIR: every file where it belongs.
make -s -C "$top_builddir" install DESTDIR="$BP_TMPDIR/dest" \
	>"$BP_TMPDIR/install.log" 2>&1 || { cat "$BP_TMPDIR/install.log"; bp_fail "make install"; }
( cd "$BP_TMPDIR/dest" && find . -type f | sort ) >"$BP_TMPDIR/installed"
for want in 'sbin/bootpack-read$' 'lib/systemd/system/bootpack-read.service$' \
	'lib/tmpfiles.d/bootpack.conf$' 'etc/bootpack.conf$' 'initramfs-tools/hooks/bootpack$' \
	'initramfs-tools/scripts/init-bottom/bootpack$' 'modules.d/90bootpack/module-setup.sh$' \
	'modules.d/90bootpack/bootpack-read.sh$' 'man8/bootpack-read.8$' 'man5/bootpack.conf.5$'; do
	bp_grep "$want" "$BP_TMPDIR/installed"
done
for s in hooks/bootpack scripts/init-bottom/bootpack; do
	f=$(find "$BP_TMPDIR/dest" -path "*initramfs-tools/$s")
	[ -x "$f" ] || bp_fail "$f is not executable"
done

# The initramfs scripts, for real: a root with a pack, caches dropped.
bp_require_root
bp_require_cmd unshare debugfs losetup
img=$(bp_fixture ext4)
files=(/etc/passwd /etc/group /usr/bin/bash)
rd_make_pack "$img" "$BP_TMPDIR/pack" "${files[@]}"
statedir=$(sed -n 's/^ConditionPathExists=\(\/.*\)\/pack$/\1/p' "$unit")
{
	p=
	for c in $(echo "${statedir#/}" | tr / ' '); do p=$p/$c; echo "mkdir $p"; done
	echo "write $BP_TMPDIR/pack $statedir/pack"
} | debugfs -w "$img" >/dev/null 2>&1
bp_loop_attach "$img" loop
bp_mount "$loop" "$BP_TMPDIR/mnt" ro
mnt=$BP_TMPDIR/mnt
[ -f "$mnt$statedir/pack" ] || bp_fail "no pack in the image"

# run_in_initramfs SCRIPT: with /sbin/bootpack-read = this build, in a
# private mount namespace (a tmpfs over /sbin). Where / is not a mount point
# (a chroot), unshare cannot make / private and the tmpfs would reach the
# system's mount namespace: there the script runs as it is but for the
# reader's path, which names this build's reader instead.
run_in_initramfs() {
	local script=$1 run=(unshare --mount)
	local prep='mount -t tmpfs -o size=8m none /sbin && cp "$1" /sbin/bootpack-read || exit 1'
	rd_cold "$loop"
	if ! mountpoint -q /; then
		bp_info "/ is not a mount point: $1 runs with the reader's path replaced"
		script=$BP_TMPDIR/subst$1	# same path below: */dracut/* still tells hooks
		mkdir -p "$(dirname "$script")"
		sed "s|/sbin/bootpack-read|$READER|g" "$1" >"$script"
		grep -q "$READER" "$script" || bp_fail "$1 does not name /sbin/bootpack-read"
		run=()
		prep=:
	fi
	"${run[@]}" sh -c "$prep"'
		rootmnt=$2; NEWROOT=$2; export rootmnt NEWROOT
		case $3 in
		*/dracut/*) getargbool() { return 0; }; . "$3" ;;	# hooks are sourced
		*) sh "$3" ;;						# scripts are run
		esac' sh "$READER" "$mnt" "$script" >"$BP_TMPDIR/initramfs.log" 2>&1 ||
		{ cat "$BP_TMPDIR/initramfs.log"; bp_fail "$1 failed"; }
	# The script returned at once (--background); the reading child ends later.
	local n missing
	for ((n = 0; n < 200; n++)); do
		missing=$(rd_not_resident "$mnt" "${files[@]}")
		[ "$missing" = 0 ] && break
		sleep 0.1
	done
	[ "$missing" = 0 ] || bp_fail "$1: $missing files not resident 20 s later"
}
run_in_initramfs "$b/initramfs-tools/scripts/init-bottom/bootpack"
run_in_initramfs "$b/dracut/90bootpack/bootpack-read.sh"
