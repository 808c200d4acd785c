#!/bin/busybox sh
# shellcheck shell=dash  # busybox ash, checked as dash (the smaller shell)
# SPDX-License-Identifier: GPL-2.0-or-later
# init.sh --- /init of the busybox initramfs of kernel/check-kernel.sh.
# Reads known files of the ext4 image on /dev/vda with readahead off, stops
# the recorder and the tracepoints, and writes what the host checks (the
# record, the text trace, sizes and times) as a tar archive to /dev/vdb.
# The kernel argument bp.mode= picks the workload:
#   check  the known reads (what check-kernel.sh asserts)
#   flood  the known reads, then 1 KiB from each of 400 files
#   bench  no reads to check: the page-cache pread microbenchmark
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
export PATH=/bin
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mode=check
read -r cmdline </proc/cmdline
for a in $cmdline; do
	case $a in bp.mode=*) mode=${a#bp.mode=} ;; esac
done
mkdir -p /out /mnt
cut -d' ' -f1 /proc/uptime >/out/uptime-init
echo 0 >/sys/block/vda/queue/read_ahead_kb
mount -t ext4 -o ro /dev/vda /mnt || echo "mount failed" >>/out/errors

if [ "$mode" = bench ]; then
	for _ in 1 2 3 4 5; do
		/mnt/bin/pread-bench /mnt/data/bench.dat 400 >>/out/bench 2>&1
	done
else
	cat /mnt/data/small.txt >/dev/null
	dd if=/mnt/data/big.bin of=/dev/null bs=4096 skip=16 count=8 2>/dev/null
	dd if=/mnt/data/big.bin of=/dev/null bs=4096 skip=200 count=2 2>/dev/null
	dd if=/mnt/data/dir/nested.txt of=/dev/null bs=100 count=1 2>/dev/null
	/mnt/bin/pread-bench /mnt/data/bench.dat 1 >/out/bench 2>&1
	if [ "$mode" = flood ]; then
		for f in /mnt/data/many/*; do
			dd if="$f" of=/dev/null bs=1024 count=1 2>/dev/null
		done
	fi
fi

echo 0 >/sys/kernel/tracing/tracing_on 2>/dev/null
if [ -e /sys/kernel/debug/bootpack/control ]; then
	echo stop >/sys/kernel/debug/bootpack/control
	cat /sys/kernel/debug/bootpack/record >/out/record
	grep -E '^(MemFree|VmallocUsed):' /proc/meminfo >/out/mem-before-free
	echo free >/sys/kernel/debug/bootpack/control
	grep -E '^(MemFree|VmallocUsed):' /proc/meminfo >/out/mem-after-free
	head -n 3 /sys/kernel/debug/bootpack/record >/out/record-after-free
fi
cat /sys/kernel/tracing/trace >/out/trace.txt 2>/dev/null
cat /sys/block/vda/dev >/out/vda-dev
cat /proc/cmdline >/out/cmdline
uname -r >/out/uname
cut -d' ' -f1 /proc/uptime >/out/uptime-done
umount /mnt
tar -cf /dev/vdb -C /out . && sync
echo "bootpack-check: done"
reboot -f	# QEMU runs with -no-reboot: it exits (no ACPI for a power-off)
