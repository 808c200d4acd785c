// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-mincore.c --- test helper: page-cache residency of a file or block device range
 *
 *   bp-mincore FILE               resident pages of the whole file
 *   bp-mincore -t FILE            pages of the whole file
 *   bp-mincore -m FILE OFF LEN    pages of [OFF, OFF+LEN) NOT resident (0: all resident)
 *   bp-mincore -l                 the same as -m for each line "FILE<TAB>OFF<TAB>LEN"
 *                                 of standard input, one number per line
 *   bp-mincore -a FILE            the pages of standard input's -l list not resident,
 *                                 summed, before and after a 4 KiB read of FILE, in
 *                                 one process: "BEFORE AFTER" (what came in while
 *                                 that read waited, with nothing else timed in between)
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
static int count_to(const char *path, int mode, uint64_t off, uint64_t len, uint64_t *out)
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
		*out = 0;
		ret = 0;
		goto out_close;
	}
	first = off / (uint64_t)psz;
	last = (off + len - 1) / (uint64_t)psz;
	pages = last - first + 1;
	if (mode == COUNT_TOTAL) {
		*out = pages;
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
	*out = mode == COUNT_MISSING ? pages - res : res;
	ret = 0;
out_free:
	free(vec);
	munmap(map, pages * (uint64_t)psz);
out_close:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* count - count_to(), the number printed on a line of its own. */
static int count(const char *path, int mode, uint64_t off, uint64_t len)
{
	uint64_t n;

	if (count_to(path, mode, off, len, &n))
		return 1;
	printf("%llu\n", (unsigned long long)n);
	return 0;
}

/* The -l list: "FILE<TAB>OFF<TAB>LEN" lines of standard input, as many as there are. */
static struct range { char *path; uint64_t off, len; } *list;

static int read_list(size_t *n)
{
	char line[4096], *off, *len;
	size_t cap = 0;

	for (*n = 0; fgets(line, sizeof(line), stdin); (*n)++) {
		line[strcspn(line, "\n")] = '\0';
		off = strchr(line, '\t');
		len = off ? strchr(off + 1, '\t') : NULL;
		if (!len) {
			fprintf(stderr, "bp-mincore: not FILE<TAB>OFF<TAB>LEN: %s\n", line);
			return 1;
		}
		if (*n == cap) {
			struct range *l;

			cap = cap ? 2 * cap : 256;
			l = realloc(list, cap * sizeof(*list));
			if (!l) {
				fprintf(stderr, "bp-mincore: out of memory\n");
				return 1;
			}
			list = l;
		}
		*off++ = '\0';
		*len++ = '\0';
		list[*n].path = strdup(line);
		if (!list[*n].path) {
			fprintf(stderr, "bp-mincore: out of memory\n");
			return 1;
		}
		list[*n].off = strtoull(off, NULL, 0);
		list[*n].len = strtoull(len, NULL, 0);
	}
	return 0;
}

/* count_lines - count() for each line of the list. */
static int count_lines(void)
{
	size_t n, i;

	if (read_list(&n))
		return 1;
	for (i = 0; i < n; i++)
		if (count(list[i].path, COUNT_MISSING, list[i].off, list[i].len))
			return 1;
	return 0;
}

/* missing_sum - the list's pages not resident, summed. */
static int missing_sum(size_t n, uint64_t *sum)
{
	uint64_t m;
	size_t i;

	for (*sum = 0, i = 0; i < n; i++) {
		if (count_to(list[i].path, COUNT_MISSING, list[i].off, list[i].len, &m))
			return 1;
		*sum += m;
	}
	return 0;
}

/* around_read - the list's missing pages before and after a 4 KiB read of PATH. */
static int around_read(const char *path)
{
	uint64_t before, after;
	char buf[4096];
	size_t n;
	int fd;

	if (read_list(&n))
		return 1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "bp-mincore: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (missing_sum(n, &before) || read(fd, buf, sizeof(buf)) < 0 || missing_sum(n, &after)) {
		fprintf(stderr, "bp-mincore: -a %s failed\n", path);
		close(fd);
		return 1;
	}
	close(fd);
	printf("%llu %llu\n", (unsigned long long)before, (unsigned long long)after);
	return 0;
}

int main(int argc, char **argv)
{
	int mode = COUNT_RESIDENT;

	if (argc == 2 && strcmp(argv[1], "-l") == 0)
		return count_lines();
	if (argc == 3 && strcmp(argv[1], "-a") == 0)
		return around_read(argv[2]);
	if (argc > 1 && strcmp(argv[1], "-t") == 0)
		mode = COUNT_TOTAL;
	else if (argc > 1 && strcmp(argv[1], "-m") == 0)
		mode = COUNT_MISSING;
	if (mode != COUNT_RESIDENT) {
		argv++;
		argc--;
	}
	if (argc != (mode == COUNT_MISSING ? 4 : 2)) {
		fprintf(stderr, "usage: bp-mincore [-t] FILE | -m FILE OFFSET LENGTH | -l | -a FILE\n");
		return 2;
	}
	if (mode == COUNT_MISSING)
		return count(argv[1], mode, strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
	return count(argv[1], mode, 0, 0);
}
