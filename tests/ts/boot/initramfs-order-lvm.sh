#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot 2 on an encrypted LVM root (Debian's "guided - use entire disk and
# set up encrypted LVM"): the relayout runs after the volume is unlocked and
# activated, on the device-mapper name the kernel command line gives
# (root=/dev/mapper/VG-root). The oracle is initramfs-tools' own code, not
# ours: its scripts/functions and scripts/local (local_mount_root: local-top,
# the wait for the root device with local-block, then local-premount), and
# the ORDER files its hook-functions (cache_run_scripts, PREREQ and tsort)
# writes as mkinitramfs does. In a chroot of busybox (ash, as in the
# initramfs), cryptroot and lvm2 stand-ins in local-top and local-block
# (lvm2 makes the logical volume's node only once cryptroot has unlocked,
# in local-block when lvm2 runs first) and bootpack's local-premount script
# with the real relayout-root.sh, bootpack, debugfs and e2fsck. Checked: the
# order (cryptroot, lvm2, bootpack), the device the relayout got, its
# status "done", the undo file in /run/bootpack, e2fsck -fn clean, every
# file's SHA-256 the same, and e2undo with that undo file giving back the
# image as it was. The root device is a loop device behind the mapper name
# (this case needs no device-mapper; setup/lvm-root.sh makes real volumes).
. "${top_srcdir:-$(dirname "$0")/../../..}/tests/functions.sh"
bp_require_root
bp_require_cmd unshare chroot mke2fs losetup debugfs e2fsck e2undo ldd
it=/usr/share/initramfs-tools
[ -f $it/scripts/local ] && [ -f $it/hook-functions ] ||
	bp_skip "initramfs-tools-core is not installed (./setup.sh installs it)"
busybox=$(command -v busybox || true)
# a static one: ldd refuses it
[ -n "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	bp_skip "no static busybox (busybox-static; ./setup.sh installs it)"
unshare -m true 2>/dev/null || bp_skip "cannot create a mount namespace"
script=$top_builddir/boot/relayout-root.sh
premount=$top_builddir/boot/initramfs-tools/scripts/local-premount/bootpack
[ -f "$script" ] && [ -f "$premount" ] || bp_fail "the boot scripts are not built"
statedir=$(sed -n 's/^STATEDIR=//p' "$script")

# the root filesystem: files in two fragments each, the loop in phase relayout, a trace
img=$BP_TMPDIR/root.img
truncate -s 64M "$img"
mke2fs -q -F -t ext4 "$img"
mnt=$BP_TMPDIR/mnt
bp_mount "$img" "$mnt" loop
mkdir -p "$mnt$statedir" "$mnt/usr/lib/x"
for i in 1 2 3 4; do
	head -c $((512 * 1024)) /dev/urandom >"$mnt/usr/lib/x/f$i"
	head -c $((256 * 1024)) /dev/urandom >"$mnt/usr/lib/x/pad$i"
done
rm -f "$mnt"/usr/lib/x/pad*
for i in 1 2 3 4; do cat "$mnt/usr/lib/x/f$i" >>"$mnt/usr/lib/x/f$i.2"; done
printf 'phase=relayout\ndevice=UUID=x\n' >"$mnt$statedir/loop"
umount "$mnt"
bash "$top_srcdir/tests/mktrace.sh" "$img" "$BP_TMPDIR/trace" \
	/usr/lib/x/f1 /usr/lib/x/f3.2 /usr/lib/x/f2.2 /usr/lib/x/f4
debugfs -w -R "write $BP_TMPDIR/trace $statedir/trace" "$img" >/dev/null 2>&1
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/files.before"
cp --sparse=always "$img" "$BP_TMPDIR/pristine.img"
bp_loop_attach "$img" dev
read -r maj min < <(stat -L -c '%t %T' "$dev")
maj=$((16#$maj)) min=$((16#$min))

# the initramfs: busybox, initramfs-tools' scripts, the stand-ins, bootpack's pieces
ir=$BP_TMPDIR/initramfs
mkdir -p "$ir"/{bin,sbin,dev/mapper,proc,run,root,conf,tmp,etc}
cp "$busybox" "$ir/bin/busybox"
for a in sh ash awk cat cut df grep mkdir mkfifo mount umount rm sed sleep tail mknod \
	echo test [ ls tsort sort uniq tr printf cp; do
	ln -sf busybox "$ir/bin/$a"
done
printf '#!/bin/sh\necho FSTYPE=ext4\n' >"$ir/bin/fstype"	# klibc's, as the initramfs has it
chmod 755 "$ir/bin/fstype"
for b in "$BOOTPACK" "$(command -v debugfs)" "$(command -v e2fsck)"; do
	cp -L "$b" "$ir/sbin/"
	ldd "$b" | grep -oE '/[^ ]+' | while read -r lib; do cp -L --parents "$lib" "$ir/"; done
done
mkdir -p "$ir/scripts/local-top" "$ir/scripts/local-block" "$ir/scripts/local-premount"
cp "$it/scripts/functions" "$it/scripts/local" "$ir/scripts/"
stand_in() {	# stand_in PATH PREREQ BODY
	cat >"$ir/scripts/$1" <<EOF
#!/bin/sh
PREREQ="$2"
prereqs() { echo "\$PREREQ"; }
case \$1 in prereqs) prereqs; exit 0 ;; esac
echo "$1" >>/order.log
$3
exit 0
EOF
	chmod 755 "$ir/scripts/$1"
}
# as Debian 12's cryptsetup-initramfs and lvm2 order theirs
stand_in local-top/cryptroot "" ': >/dev/mapper/bpcrypt'
lvm='[ -e /dev/mapper/bpcrypt ] && [ ! -e /dev/mapper/bpvg-root ] && mknod /dev/mapper/bpvg-root b '$maj' '$min
stand_in local-top/lvm2 "mdadm mdrun multipath" "$lvm"
stand_in local-block/lvm2 "mdadm" "$lvm"
cp "$premount" "$ir/scripts/local-premount/bootpack"
chmod 755 "$ir/scripts/local-premount/bootpack"
cp "$script" "$ir/bin/bootpack-relayout-root.real"
printf '#!/bin/sh\necho "relayout $*" >>/order.log\nexec /bin/sh /bin/bootpack-relayout-root.real "$@"\n' \
	>"$ir/bin/bootpack-relayout-root"
chmod 755 "$ir/bin/bootpack-relayout-root"
# the ORDER files, written by initramfs-tools' own hook-functions as mkinitramfs does
for d in local-top local-block local-premount; do
	# CONFDIR: where get_source() finds the scripts to ask their prereqs (as /etc/initramfs-tools)
	CONFDIR=$ir verbose=n sh -c '. "$1"/hook-functions; cache_run_scripts "$2" "$3"' \
		sh "$it" "$ir" "/scripts/$d" || bp_fail "cache_run_scripts /scripts/$d"
done
bp_grep '^/scripts/local-premount/bootpack "\$@"$' "$ir/scripts/local-premount/ORDER"
echo "quiet" >"$BP_TMPDIR/cmdline"
: >"$BP_TMPDIR/console"
: >"$BP_TMPDIR/kmsg"

# boot: initramfs-tools' local_mount_root, as init calls it (mount_top, mount_premount, mountroot)
rc=0
timeout -s KILL 120 unshare -m --propagation private bash -c '
	set -e
	ir=$1 T=$2
	mount -t tmpfs -o size=1m none "$ir/run"
	mount -t proc proc "$ir/proc"
	mount --bind "$T/cmdline" "$ir/proc/cmdline"
	: >"$ir/dev/console"; : >"$ir/dev/kmsg"
	mount --bind "$T/console" "$ir/dev/console"
	mount --bind "$T/kmsg" "$ir/dev/kmsg"
	PATH=/sbin:/bin exec chroot "$ir" /bin/sh -c "
		export quiet=y rootmnt=/root ROOT=/dev/mapper/bpvg-root ROOTFSTYPE= ROOTFLAGS= readonly=y
		export fastboot=y forcefsck=n fsckfix= debug= ROOTDELAY=5 UBIMTD=  # as init exports them
		. /scripts/functions
		. /scripts/local
		starttime=\$(_uptime)
		panic() { echo \"PANIC: \$*\"; exit 1; }
		local_mount_root
		echo mounted >>/order.log
		cp /run/bootpack/relayout.status /run/bootpack/relayout.e2undo /tmp/ 2>/dev/null || :
		umount /root"
' sh "$ir" "$BP_TMPDIR" >"$BP_TMPDIR/boot.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$BP_TMPDIR/boot.out" "$BP_TMPDIR/console"; bp_fail "the initramfs boot exited $rc"; }
sed 's/^/# console: /' "$BP_TMPDIR/console"
order=$(tr '\n' ' ' <"$ir/order.log")
bp_info "order: $order"
case $order in
"local-top/cryptroot local-top/lvm2 relayout /dev/mapper/bpvg-root mounted " | \
"local-top/lvm2 local-top/cryptroot local-block/lvm2 relayout /dev/mapper/bpvg-root mounted ") ;;
*) bp_fail "order of the initramfs scripts: $order" ;;
esac
status=$(cat "$ir/tmp/relayout.status" 2>/dev/null || true)
[[ $status =~ ^done\ in\ [0-9]+\ s$ ]] || { cat "$BP_TMPDIR/console"; bp_fail "relayout status '$status'"; }
bp_grep "relayout of /dev/mapper/bpvg-root: done" "$BP_TMPDIR/console"
[ -s "$ir/tmp/relayout.e2undo" ] || bp_fail "no undo file in /run/bootpack"

# the relayout: the filesystem clean, every file the same; the undo file gives the image back
bp_fsck_clean "$img"
bp_hash_files "$img" >"$BP_TMPDIR/files.after"
diff -u "$BP_TMPDIR/files.before" "$BP_TMPDIR/files.after" || bp_fail "the relayout changed file contents"
cmp -s "$img" "$BP_TMPDIR/pristine.img" && bp_fail "the relayout did not write"
e2undo "$ir/tmp/relayout.e2undo" "$dev" >/dev/null || bp_fail "e2undo failed"
cmp "$img" "$BP_TMPDIR/pristine.img" || bp_fail "e2undo did not give the image back"
exit 0
