// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * smallfile.c --- reading a small file whole: sysfs and procfs values, settings
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "smallfile.h"

int bp_read_small(const char *path, char *buf, size_t max)
{
	struct stat st;
	size_t got = 0;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	while (got < max - 1) {
		ssize_t n = read(fd, buf + got, max - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return rc;
}

int bp_read_line(const char *path, char *buf, size_t max)
{
	int rc = bp_read_small(path, buf, max);

	if (!rc)
		buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

int bp_parse_value_u64(const char *buf, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(buf, &end, 10);
	return errno || end == buf ? -EINVAL : 0;
}

int bp_read_u64(const char *path, uint64_t *v)
{
	char buf[32];
	int rc = bp_read_small(path, buf, sizeof(buf));

	return rc ? rc : bp_parse_value_u64(buf, v);
}
