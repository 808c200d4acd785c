// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-mincore.c --- test helper: page-cache residency of a file or block device range
 *
 *   bp-mincore FILE               resident pages of the whole file
 *   bp-mincore -t FILE            pages of the whole file
 *   bp-mincore -m FILE OFF LEN    pages of [OFF, OFF+LEN) NOT resident (0: all resident)
 *   bp-mincore -l                 the same as -m for each line "FILE<TAB>OFF<TAB>LEN"
 *                                 of standard input, one number per line
 *
 * FILE may be a block device (its page cache holds the filesystem metadata).
 * -l checks a whole list in one process, in milliseconds: pages that only
 * readahead brought in are never accessed, so a machine's proactive reclaim
 * (DAMON's pageout, for one) may take them back while a slow check runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

enum { COUNT_RESIDENT, COUNT_TOTAL, COUNT_MISSING };

/*
 * count - print the pages of PATH (all, or [OFF, OFF+LEN) with COUNT_MISSING)
 * that are resident, in all, or not resident. Returns 0, or 1 on an error.
 */
static int count(const char *path, int mode, uint64_t off, uint64_t len)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t size, first, last, i, res = 0, pages;
	unsigned char *vec;
	struct stat st;
	void *map;
	int fd, ret = 1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "bp-mincore: %s: %s\n", path, strerror(errno));
		goto out_close;
	}
	size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size) < 0) {
		fprintf(stderr, "bp-mincore: %s: BLKGETSIZE64: %s\n", path, strerror(errno));
		goto out_close;
	}
	if (mode != COUNT_MISSING) {
		off = 0;
		len = size;
	} else if (off >= size) {
		len = 0;
	} else if (len > size - off) {
		len = size - off;	/* the tail beyond EOF has no pages */
	}
	if (len == 0) {
		printf("0\n");
		ret = 0;
		goto out_close;
	}
	first = off / (uint64_t)psz;
	last = (off + len - 1) / (uint64_t)psz;
	pages = last - first + 1;
	if (mode == COUNT_TOTAL) {
		printf("%llu\n", (unsigned long long)pages);
		ret = 0;
		goto out_close;
	}
	map = mmap(NULL, pages * (uint64_t)psz, PROT_READ, MAP_SHARED, fd, (off_t)(first * (uint64_t)psz));
	if (map == MAP_FAILED) {
		fprintf(stderr, "bp-mincore: %s: mmap: %s\n", path, strerror(errno));
		goto out_close;
	}
	vec = malloc(pages);
	if (!vec || mincore(map, pages * (uint64_t)psz, vec) < 0) {
		fprintf(stderr, "bp-mincore: %s: mincore: %s\n", path, strerror(errno));
		goto out_free;
	}
	for (i = 0; i < pages; i++)
		res += vec[i] & 1;
	printf("%llu\n", (unsigned long long)(mode == COUNT_MISSING ? pages - res : res));
	ret = 0;
out_free:
	free(vec);
	munmap(map, pages * (uint64_t)psz);
out_close:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* count_lines - count() for each "FILE<TAB>OFF<TAB>LEN" line of standard input. */
static int count_lines(void)
{
	char line[4096], *off, *len;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		off = strchr(line, '\t');
		len = off ? strchr(off + 1, '\t') : NULL;
		if (!len) {
			fprintf(stderr, "bp-mincore: not FILE<TAB>OFF<TAB>LEN: %s\n", line);
			return 1;
		}
		*off++ = '\0';
		*len++ = '\0';
		if (count(line, COUNT_MISSING, strtoull(off, NULL, 0), strtoull(len, NULL, 0)))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int mode = COUNT_RESIDENT;

	if (argc == 2 && strcmp(argv[1], "-l") == 0)
		return count_lines();
	if (argc > 1 && strcmp(argv[1], "-t") == 0)
		mode = COUNT_TOTAL;
	else if (argc > 1 && strcmp(argv[1], "-m") == 0)
		mode = COUNT_MISSING;
	if (mode != COUNT_RESIDENT) {
		argv++;
		argc--;
	}
	if (argc != (mode == COUNT_MISSING ? 4 : 2)) {
		fprintf(stderr, "usage: bp-mincore [-t] FILE | -m FILE OFFSET LENGTH | -l\n");
		return 2;
	}
	if (mode == COUNT_MISSING)
		return count(argv[1], mode, strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
	return count(argv[1], mode, 0, 0);
}
