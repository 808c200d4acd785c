// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * progress.c --- progress bar and machine-readable progress lines
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"

#define BAR_WIDTH 40
#define MIN_REDRAW_NS 125000000LL	/* at most 8 redraws per second */

void bp_progress_init(struct bp_progress *p, int bar, int fd, const char *device)
{
	memset(p, 0, sizeof(*p));
	p->bar = bar && isatty(STDERR_FILENO);
	p->lines = bar && !p->bar;
	p->fd = fd;
	p->device = device ? device : "";
	p->pass = -1;
	p->skip_counters = getenv("E2FSPROGS_SKIP_PROGRESS") ||
			   getenv("BOOTPACK_SKIP_PROGRESS");
}

int bp_progress_check_fd(int fd)
{
	if (fd < 0 || fcntl(fd, F_GETFL) < 0)
		return -EBADF;
	return 0;
}

static int too_soon(struct bp_progress *p)
{
	struct timespec now;
	long long d;

	clock_gettime(CLOCK_MONOTONIC, &now);
	d = (now.tv_sec - p->last.tv_sec) * 1000000000LL + (now.tv_nsec - p->last.tv_nsec);
	if (d < MIN_REDRAW_NS)
		return 1;
	p->last = now;
	return 0;
}

static void draw_bar(struct bp_progress *p, const char *label, uint64_t cur, uint64_t max)
{
	char bar[BAR_WIDTH + 1];
	int fill = max ? (int)((double)cur / (double)max * BAR_WIDTH) : BAR_WIDTH;
	int pct = max ? (int)((double)cur * 100.0 / (double)max) : 100;

	if (fill > BAR_WIDTH)
		fill = BAR_WIDTH;
	memset(bar, '=', (size_t)fill);
	memset(bar + fill, ' ', (size_t)(BAR_WIDTH - fill));
	bar[BAR_WIDTH] = '\0';
	fprintf(stderr, "\r%-24.24s [%s] %3d%%", label ? label : "", bar, pct);
	fflush(stderr);
	p->drawn_done = cur >= max;
}

void bp_progress_cb(void *ctx, int pass, const char *label, uint64_t cur, uint64_t max)
{
	struct bp_progress *p = ctx;
	int new_pass = pass != p->pass;

	if (new_pass) {
		/* An unfinished bar is overwritten by the next pass, a finished one kept. */
		if (p->bar && p->pass >= 0 && !p->skip_counters)
			fputs(p->drawn_done ? "\n" : "\r\033[K", stderr);
		p->pass = pass;
		if (p->lines || (p->skip_counters && (p->bar || p->fd < 0)))
			fprintf(stderr, "Pass %d: %s\n", pass, label ? label : "");
	} else if (cur != max && too_soon(p)) {
		return;
	}
	if (p->fd >= 0 && !p->skip_counters &&
	    dprintf(p->fd, "%d %" PRIu64 " %" PRIu64 " %s\n", pass, cur, max, p->device) < 0 &&
	    errno == EPIPE) {
		/* Progress is a courtesy: a closed reader never stops the work. */
		p->fd = -1;
		p->fd_dropped = 1;
	}
	if (p->bar && !p->skip_counters)
		draw_bar(p, label, cur, max);
	p->last_cur = cur;
}

void bp_progress_end(struct bp_progress *p)
{
	if (p->bar && p->pass >= 0 && !p->skip_counters)
		fputc('\n', stderr);
	p->pass = -1;
}
