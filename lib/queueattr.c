// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * queueattr.c --- a disk's queue attributes in sysfs (queueattr.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "c.h"
#include "queueattr.h"
#include "smallfile.h"

int bp_queue_open(int dirfd, unsigned int major, unsigned int minor, const char *name, int flags)
{
	static const char *const up[] = { "", "../" };	/* the device, then its disk */
	char path[128];
	size_t i;
	int fd = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(up) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%sdev/block/%u:%u/%squeue/%s",
			 dirfd == AT_FDCWD ? "/sys/" : "", major, minor, up[i], name);
		fd = openat(dirfd, path, flags | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

int bp_queue_fd_u64(int fd, uint64_t *v)
{
	char buf[24];
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : -EINVAL;
	buf[n] = '\0';
	return bp_parse_value_u64(buf, v);
}

int bp_queue_u64(int dirfd, unsigned int major, unsigned int minor, const char *name,
		 uint64_t *v)
{
	int fd = bp_queue_open(dirfd, major, minor, name, O_RDONLY), rc;

	if (fd < 0)
		return fd;
	rc = bp_queue_fd_u64(fd, v);
	close(fd);
	return rc;
}
