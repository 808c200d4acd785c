// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sreadahead-style.c --- the boot bench's re-implementation of sreadahead 1.0's replay
 *
 * As published by Arjan van de Ven and Auke Kok (2008-09): files in the
 * order the boot first opened them, at most 6 ranges per file (the closest
 * ranges merged, as its packer did), 4 threads taking files from a shared
 * cursor, idle I/O priority, the disk's read_ahead_kb at 16 while it runs,
 * readahead(2) per range (in pieces the kernel honours, rdinit.c),
 * O_NOATIME, regular files only. No relayout, no
 * metadata. Started as an init= wrapper (rdinit.c); the list (rdlist.h)
 * comes from bp-readlist on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rdinit.h"
#include "rdlist.h"

#define THREADS 4
#define MAX_RANGES_PER_FILE 6
#define IOPRIO_CLASS_IDLE 3
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_PRIO_VALUE(class, data) (((class) << 13) | (data))

struct sfile {
	size_t file;
	uint64_t off[MAX_RANGES_PER_FILE + 1], len[MAX_RANGES_PER_FILE + 1];	/* + 1 while adding */
	int n;
};

static struct rd_opts opts = {
	.name = "sreadahead-style",
	.list = "/var/lib/bench/sreadahead.list",
	.root = "",
};
static struct rd_list list;
static struct sfile *sfiles;
static size_t nsfiles;
static atomic_size_t cursor;
static atomic_ullong bytes_read, files_read;

/* Add [off, off+len) to f, keeping at most 6 ranges by merging the closest pair. */
static void add_range(struct sfile *f, uint64_t off, uint64_t len)
{
	int i, j, best;
	uint64_t gap, best_gap;

	for (i = f->n; i > 0 && f->off[i - 1] > off; i--)
		;
	memmove(&f->off[i + 1], &f->off[i], (size_t)(f->n - i) * sizeof(f->off[0]));
	memmove(&f->len[i + 1], &f->len[i], (size_t)(f->n - i) * sizeof(f->len[0]));
	f->off[i] = off;
	f->len[i] = len;
	f->n++;
	/* Merge overlapping or touching neighbours, then the closest while too many. */
	for (;;) {
		best = -1;
		best_gap = UINT64_MAX;
		for (j = 0; j + 1 < f->n; j++) {
			uint64_t end = f->off[j] + f->len[j];

			gap = f->off[j + 1] > end ? f->off[j + 1] - end : 0;
			if (gap < best_gap) {
				best_gap = gap;
				best = j;
			}
		}
		if (best < 0 || (best_gap > 0 && f->n <= MAX_RANGES_PER_FILE))
			break;
		j = best;
		if (f->off[j + 1] + f->len[j + 1] > f->off[j] + f->len[j])
			f->len[j] = f->off[j + 1] + f->len[j + 1] - f->off[j];
		memmove(&f->off[j + 1], &f->off[j + 2], (size_t)(f->n - j - 2) * sizeof(f->off[0]));
		memmove(&f->len[j + 1], &f->len[j + 2], (size_t)(f->n - j - 2) * sizeof(f->len[0]));
		f->n--;
	}
}

static int build(void)
{
	size_t *slot, i;

	sfiles = calloc(list.nfiles ? list.nfiles : 1, sizeof(*sfiles));
	slot = malloc((list.nfiles ? list.nfiles : 1) * sizeof(*slot));
	if (!sfiles || !slot) {
		free(slot);
		return -ENOMEM;
	}
	for (i = 0; i < list.nfiles; i++)
		slot[i] = SIZE_MAX;
	/* Files in the order of their first range (first access). */
	for (i = 0; i < list.nranges; i++) {
		const struct rd_range *r = &list.ranges[i];

		if (slot[r->file] == SIZE_MAX) {
			slot[r->file] = nsfiles;
			sfiles[nsfiles++].file = r->file;
		}
		add_range(&sfiles[slot[r->file]], r->offset, r->length);
	}
	free(slot);
	return 0;
}

static void *worker(void *arg)
{
	char path[RD_PATH_MAX * 2];
	size_t i;
	int k;

	/* I/O priority is per thread. */
	syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 7));
	while ((i = atomic_fetch_add(&cursor, 1)) < nsfiles) {
		const struct sfile *f = &sfiles[i];
		struct stat st;
		int fd;

		snprintf(path, sizeof(path), "%s%s", opts.root, list.files[f->file].path);
		fd = open(path, O_RDONLY | O_NOATIME | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			for (k = 0; k < f->n; k++)
				if (rd_readahead(&opts, fd, f->off[k], f->len[k]) == 0)
					atomic_fetch_add(&bytes_read, f->len[k]);
			atomic_fetch_add(&files_read, 1);
		}
		close(fd);
	}
	return arg;
}

/* read_ahead_kb of the disk under root: set to 16 while reading (as sreadahead did). */
static int ra_fd = -1;
static char ra_old[32];

static void ra_set(void)
{
	char p[128];
	struct stat st;
	ssize_t n;

	if (stat(*opts.root ? opts.root : "/", &st) < 0)
		return;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/queue/read_ahead_kb", major(st.st_dev),
		 minor(st.st_dev));
	ra_fd = open(p, O_RDWR | O_CLOEXEC);
	if (ra_fd < 0) {
		/* A partition: the queue is its disk's. */
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../queue/read_ahead_kb",
			 major(st.st_dev), minor(st.st_dev));
		ra_fd = open(p, O_RDWR | O_CLOEXEC);
	}
	if (ra_fd < 0)
		return;
	n = pread(ra_fd, ra_old, sizeof(ra_old) - 1, 0);
	if (n <= 0 || pwrite(ra_fd, "16", 2, 0) != 2) {
		close(ra_fd);
		ra_fd = -1;
		return;
	}
	ra_old[n] = '\0';
}

static void ra_restore(void)
{
	if (ra_fd < 0)
		return;
	if (pwrite(ra_fd, ra_old, strlen(ra_old), 0) < 0)
		rd_log(&opts, "could not restore read_ahead_kb to %s", ra_old);
	close(ra_fd);
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	unsigned long line;
	double t0;
	int rc, i, n = 0;

	rd_start(argc, argv, &opts);
	t0 = rd_now_ms();
	rc = rd_list_load(opts.list, &list, &line);
	if (rc) {
		rd_log(&opts, "%s:%lu: %s", opts.list, line, strerror(-rc));
		return 1;
	}
	if (build()) {
		rd_log(&opts, "out of memory");
		return 1;
	}
	rd_log(&opts, "start: %zu files, %zu ranges", nsfiles, list.nranges);
	ra_set();
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&th[n], NULL, worker, NULL) == 0)
			n++;
	if (!n)
		worker(NULL);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	ra_restore();
	rd_log(&opts, "done: %llu files, %llu bytes in %.0f ms", (unsigned long long)files_read,
	       (unsigned long long)bytes_read, rd_now_ms() - t0);
	free(sfiles);
	rd_list_free(&list);
	return 0;
}
