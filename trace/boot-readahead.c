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
#include "queueattr.h"
#include "smallfile.h"
#include "trace-cli.h"
#include "trace-engine.h"

#define KERNEL_RA_KB	128

/* Is "bootpack=trace" a word of the kernel command line? */
static int traced_boot(void)
{
	char buf[4096], *w, *save = NULL;

	if (bp_read_small("/proc/cmdline", buf, sizeof(buf)))
		return 0;
	for (w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		if (strcmp(w, "bootpack=trace") == 0)
			return 1;
	return 0;
}

void bp_trace_boot_readahead(uint32_t kdev)
{
	unsigned int ma = BP_KDEV_MAJOR(kdev), mi = BP_KDEV_MINOR(kdev);
	uint64_t ra, io_opt = 0, kb;
	char val[32];
	int fd, n, ok;

	if (!traced_boot() || bp_queue_u64(AT_FDCWD, ma, mi, "read_ahead_kb", &ra))
		return;
	if (ra != 0)
		return;		/* set since, by someone else: theirs */
	bp_queue_u64(AT_FDCWD, ma, mi, "optimal_io_size", &io_opt);
	kb = io_opt * 2 / 1024 > KERNEL_RA_KB ? io_opt * 2 / 1024 : KERNEL_RA_KB;
	n = snprintf(val, sizeof(val), "%llu\n", (unsigned long long)kb);
	fd = bp_queue_open(AT_FDCWD, ma, mi, "read_ahead_kb", O_WRONLY);
	if (fd < 0)
		errno = -fd;
	ok = fd >= 0 && write(fd, val, (size_t)n) == n;
	if (!ok)
		bp_log_warn("trace: read_ahead_kb of %u:%u: cannot set it back to %llu after the "
			    "bootpack=trace boot: %s",
			    ma, mi, (unsigned long long)kb, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (ok)
		printf("Readahead of %u:%u back on after the bootpack=trace boot (read_ahead_kb %llu)\n",
		       ma, mi, (unsigned long long)kb);
}
