// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-sys.c --- bootpack-read's system helpers: clock, memory, I/O priority, devices
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "reader.h"
#include "smallfile.h"

/* Not in older <linux/fs.h> (Linux 6.5+). */
#ifndef FS_IOC_GETFSUUID
struct bp_fsuuid2 {
	uint8_t len;
	uint8_t uuid[16];
};
#define FS_IOC_GETFSUUID _IOR(0x15, 0, struct bp_fsuuid2)
#else
#define bp_fsuuid2 fsuuid2
#endif

#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_CLASS_NONE	0
#define IOPRIO_CLASS_BE		2
#define IOPRIO_CLASS_IDLE	3
#define IOPRIO_WHO_PROCESS	1
#define IOPRIO_VALUE(c, l)	(((c) << IOPRIO_CLASS_SHIFT) | (l))

uint64_t bp_reader_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* getrusage(2): user + system; a fork's child starts again from 0 */
uint64_t bp_reader_cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

uint64_t bp_reader_ms_between(uint64_t start, uint64_t end)
{
	return end > start ? end - start : 0;
}

uint64_t bp_reader_page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg >= 4096 && !(pg & (pg - 1)) ? (uint64_t)pg : 4096;
}

int bp_reader_mem_available(uint64_t *bytes)
{
	char buf[4096];
	const char *p;
	int rc;

	rc = bp_read_small("/proc/meminfo", buf, sizeof(buf));
	if (rc) {
		struct sysinfo si;

		/* no /proc (init=): free + buffer memory, what a booting system has */
		if (sysinfo(&si) < 0)
			return -errno;
		*bytes = ((uint64_t)si.freeram + si.bufferram) * (si.mem_unit ? si.mem_unit : 1);
		return 0;
	}
	p = strstr(buf, "MemAvailable:");
	if (!p)
		return -ENOENT;	/* kernels before 3.14 */
	*bytes = strtoull(p + strlen("MemAvailable:"), NULL, 10) * 1024;
	return 0;
}

/* Never read more than half of the memory that is available now. */
uint64_t bp_reader_scale_budget(uint64_t want, uint64_t mem_available)
{
	uint64_t cap = mem_available / 2;

	return want < cap ? want : cap;
}

int bp_reader_set_ioprio(enum bp_read_ioprio how)
{
	long cur;
	int val;

	switch (how) {
	case BP_IOPRIO_KEEP:
		return 0;
	case BP_IOPRIO_AUTO:
		cur = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
		if (cur >= 0 && (cur >> IOPRIO_CLASS_SHIFT) != IOPRIO_CLASS_NONE)
			return 0;	/* set by our caller (IOSchedulingClass=) */
		/* fall through */
	case BP_IOPRIO_BE:
		val = IOPRIO_VALUE(IOPRIO_CLASS_BE, 7);
		break;
	case BP_IOPRIO_IDLE:
	default:
		val = IOPRIO_VALUE(IOPRIO_CLASS_IDLE, 0);
		break;
	}
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, val) < 0)
		return -errno;
	return 0;
}

int bp_reader_fs_uuid(int dirfd, uint8_t uuid[16])
{
	struct bp_fsuuid2 u;

	memset(&u, 0, sizeof(u));
	u.len = sizeof(u.uuid);
	if (ioctl(dirfd, FS_IOC_GETFSUUID, &u) < 0)
		return -errno;
	if (u.len != 16)
		return -EOPNOTSUPP;
	memcpy(uuid, u.uuid, 16);
	return 0;
}

/*
 * What one readahead(2) or WILLNEED call reads at most on this device:
 * max(max_sectors_kb, read_ahead_kb) KiB (the kernel's io_pages and
 * ra_pages), from the disk's queue (a partition's parent). 0: unknown.
 */
uint64_t bp_reader_ra_cap(unsigned int major, unsigned int minor, int as_init)
{
	uint64_t ms = 0, ra = 0;

	bp_reader_queue_u64(major, minor, as_init, "max_sectors_kb", &ms);
	bp_reader_queue_u64(major, minor, as_init, "read_ahead_kb", &ra);
	return (ms > ra ? ms : ra) * 1024;
}

/* /dev/null for writing, if it is the real one (character device 1:3), else -1. */
int bp_reader_open_null(void)
{
	struct stat st;
	int fd;

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3)) {
		close(fd);
		return -1;
	}
	return fd;
}
