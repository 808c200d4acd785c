// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pread-bench.c --- page-cache read microbenchmark, run in the QEMU guest of
 * kernel/check-kernel.sh: read FILE once (into the page cache), then time
 * ROUNDS passes of 4 KiB preads over it and print the nanoseconds per pread.
 * Built static on the host and put on the test image.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[4096];
	long rounds, r, n = 0;
	off_t off, size;
	double t0, t1;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: pread-bench FILE ROUNDS\n");
		return 2;
	}
	rounds = atol(argv[2]);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	for (off = 0; off < size; off += sizeof(buf))
		if (pread(fd, buf, sizeof(buf), off) < 0) {
			perror("pread");
			return 1;
		}
	t0 = now();
	for (r = 0; r < rounds; r++)
		for (off = 0; off < size; off += sizeof(buf), n++)
			if (pread(fd, buf, sizeof(buf), off) != sizeof(buf)) {
				perror("pread");
				return 1;
			}
	t1 = now();
	printf("pread-bench %ld preads %.1f ns/pread\n", n, n ? (t1 - t0) / n : 0.0);
	return 0;
}
