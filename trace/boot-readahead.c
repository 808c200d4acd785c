// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * boot-readahead.c --- bootpack trace --from-boot: readahead back on after a bootpack=trace boot
 *
 * With bootpack=trace on the kernel command line, bootpack-read turns the
 * root disk's readahead off for the traced boot (read_ahead_kb 0), so that
 * on a kernel without page-access events the trace holds the pages the
 * boot used rather than what readahead guessed (bootpack-read(8)). Once the
 * boot trace is taken, the traced disk's read_ahead_kb, if still 0, gets
 * what the kernel gives a disk when it appears: twice its optimal I/O
 * size, at least 128 KiB (VM_READAHEAD_PAGES; disk_update_readahead()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "trace-cli.h"
#include "trace-engine.h"

#define KERNEL_RA_KB	128

/* Is "bootpack=trace" a word of the kernel command line? */
static int traced_boot(void)
{
	char buf[4096], *w, *save = NULL;
	ssize_t n;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		if (strcmp(w, "bootpack=trace") == 0)
			return 1;
	return 0;
}

/* The disk's queue directory (a partition's parent's) into dir; 0 or -1. */
static int queue_dir(uint32_t kdev, char *dir, size_t len)
{
	static const char *const up[] = { "", "../" };
	char probe[300];
	size_t i;

	for (i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		snprintf(dir, len, "/sys/dev/block/%u:%u/%squeue", BP_KDEV_MAJOR(kdev),
			 BP_KDEV_MINOR(kdev), up[i]);
		snprintf(probe, sizeof(probe), "%s/read_ahead_kb", dir);
		if (access(probe, W_OK) == 0)
			return 0;
	}
	return -1;
}

static int read_u64(const char *dir, const char *name, unsigned long long *v)
{
	char path[320], buf[32];
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "re");
	if (!fp)
		return -1;
	ok = fgets(buf, sizeof(buf), fp) != NULL;
	fclose(fp);
	if (!ok)
		return -1;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

void bp_trace_boot_readahead(uint32_t kdev)
{
	unsigned long long ra, io_opt = 0, kb;
	char dir[256], path[320];
	FILE *fp;

	if (!traced_boot() || queue_dir(kdev, dir, sizeof(dir)) || read_u64(dir, "read_ahead_kb", &ra))
		return;
	if (ra != 0)
		return;		/* set since, by someone else: theirs */
	read_u64(dir, "optimal_io_size", &io_opt);
	kb = io_opt * 2 / 1024 > KERNEL_RA_KB ? io_opt * 2 / 1024 : KERNEL_RA_KB;
	snprintf(path, sizeof(path), "%s/read_ahead_kb", dir);
	fp = fopen(path, "we");
	if (fp) {
		int bad = fprintf(fp, "%llu\n", kb) < 0;

		if (fclose(fp) != 0 || bad)
			fp = NULL;
	}
	if (!fp) {
		bp_log_warn("trace: %s: cannot set it back to %llu after the bootpack=trace boot: %s",
			    path, kb, strerror(errno));
		return;
	}
	printf("Readahead of %u:%u back on after the bootpack=trace boot (read_ahead_kb %llu)\n",
	       BP_KDEV_MAJOR(kdev), BP_KDEV_MINOR(kdev), kb);
}
