// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-smallfile.c --- lib/smallfile.c: a small file read whole, its first
 * line, a number; cut at the buffer; a FIFO refused without blocking; a
 * missing file's errno
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "smallfile.h"
#include "unit.h"

static char dir[] = "/tmp/bp-test-smallfile.XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

static int at(char *path, size_t len, const char *name)
{
	return snprintf(path, len, "%s/%s", dir, name);
}

int main(void)
{
	char path[256], buf[64], small[5];
	uint64_t v = 7;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	put("two", "128\nsecond line\n");
	put("word", "not a number\n");
	put("empty", "");

	at(path, sizeof(path), "two");
	CHECK(bp_read_small(path, buf, sizeof(buf)) == 0 && strcmp(buf, "128\nsecond line\n") == 0);
	CHECK(bp_read_line(path, buf, sizeof(buf)) == 0 && strcmp(buf, "128") == 0);
	CHECK(bp_read_u64(path, &v) == 0 && v == 128);
	/* cut at the buffer, always terminated */
	CHECK(bp_read_small(path, small, sizeof(small)) == 0 && strcmp(small, "128\n") == 0);

	at(path, sizeof(path), "word");
	CHECK(bp_read_u64(path, &v) == -EINVAL);
	at(path, sizeof(path), "empty");
	CHECK(bp_read_small(path, buf, sizeof(buf)) == 0 && buf[0] == '\0');
	CHECK(bp_read_u64(path, &v) == -EINVAL);

	/* a FIFO with no writer: refused at once, never waited on */
	at(path, sizeof(path), "fifo");
	CHECK(mkfifo(path, 0600) == 0);
	CHECK(bp_read_small(path, buf, sizeof(buf)) == -EINVAL);
	unlink(path);

	at(path, sizeof(path), "missing");
	CHECK(bp_read_line(path, buf, sizeof(buf)) == -ENOENT);

	/* what bootpack reads with it */
	CHECK(bp_read_small("/proc/self/stat", buf, sizeof(buf)) == 0 && buf[0] >= '1' && buf[0] <= '9');

	at(path, sizeof(path), "two");
	unlink(path);
	at(path, sizeof(path), "word");
	unlink(path);
	at(path, sizeof(path), "empty");
	unlink(path);
	rmdir(dir);
	return unit_exit();
}
