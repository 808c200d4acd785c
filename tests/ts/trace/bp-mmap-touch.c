// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-mmap-touch.c --- test helper: mmap FILE and read one byte at each OFFSET
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile unsigned char sum = 0;
	unsigned char *p;
	struct stat st;
	int fd, i;

	if (argc < 3) {
		fprintf(stderr, "usage: bp-mmap-touch FILE OFFSET...\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* No readahead hints beyond the device's own read_ahead_kb. */
	for (i = 2; i < argc; i++) {
		long off = strtol(argv[i], NULL, 0);

		if (off < 0 || off >= st.st_size) {
			fprintf(stderr, "offset %ld outside the file\n", off);
			return 1;
		}
		sum += p[off];
	}
	munmap(p, (size_t)st.st_size);
	close(fd);
	printf("%u\n", (unsigned int)sum);	/* keeps the reads */
	return 0;
}
