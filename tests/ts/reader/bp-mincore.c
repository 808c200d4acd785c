// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-mincore.c --- test helper: page-cache residency of a file or block device range
 *
 *   bp-mincore FILE               resident pages of the whole file
 *   bp-mincore -t FILE            pages of the whole file
 *   bp-mincore -m FILE OFF LEN    pages of [OFF, OFF+LEN) NOT resident (0: all resident)
 *
 * FILE may be a block device (its page cache holds the filesystem metadata).
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

int main(int argc, char **argv)
{
	int total_only = 0, missing = 0, fd;
	uint64_t size, off = 0, len, first, last, i, res = 0, pages;
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	struct stat st;
	void *map;

	if (argc > 1 && strcmp(argv[1], "-t") == 0) {
		total_only = 1;
		argv++;
		argc--;
	} else if (argc > 1 && strcmp(argv[1], "-m") == 0) {
		missing = 1;
		argv++;
		argc--;
	}
	if (argc != (missing ? 4 : 2)) {
		fprintf(stderr, "usage: bp-mincore [-t] FILE | -m FILE OFFSET LENGTH\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "bp-mincore: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	size = (uint64_t)st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size) < 0) {
		fprintf(stderr, "bp-mincore: %s: BLKGETSIZE64: %s\n", argv[1], strerror(errno));
		return 1;
	}
	len = size;
	if (missing) {
		off = strtoull(argv[2], NULL, 0);
		len = strtoull(argv[3], NULL, 0);
		if (off >= size)
			len = 0;
		else if (len > size - off)
			len = size - off;	/* the tail beyond EOF has no pages */
	}
	if (len == 0) {
		printf("0\n");
		return 0;
	}
	first = off / (uint64_t)psz;
	last = (off + len - 1) / (uint64_t)psz;
	pages = last - first + 1;
	if (total_only) {
		printf("%llu\n", (unsigned long long)pages);
		return 0;
	}
	map = mmap(NULL, pages * (uint64_t)psz, PROT_READ, MAP_SHARED, fd, (off_t)(first * (uint64_t)psz));
	if (map == MAP_FAILED) {
		fprintf(stderr, "bp-mincore: %s: mmap: %s\n", argv[1], strerror(errno));
		return 1;
	}
	vec = malloc(pages);
	if (!vec || mincore(map, pages * (uint64_t)psz, vec) < 0) {
		fprintf(stderr, "bp-mincore: %s: mincore: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < pages; i++)
		res += vec[i] & 1;
	printf("%llu\n", (unsigned long long)(missing ? pages - res : res));
	free(vec);
	munmap(map, pages * (uint64_t)psz);
	close(fd);
	return 0;
}
