/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * progress.h --- progress reporting
 *
 * Engines report progress through a bp_progress_fn callback and never
 * print. The CLI implements the callback with struct bp_progress: a
 * labelled bar on a terminal (-p; where stderr is not a terminal, one
 * "Pass N: label" line per pass instead), and/or machine lines on a
 * descriptor (--progress-fd N) in e2fsck's -C format "pass cur max device\n".
 * A bar left short of 100% when the next pass begins (a pass the engine
 * comes back to) is overwritten, not left behind as a stale line.
 * E2FSPROGS_SKIP_PROGRESS / BOOTPACK_SKIP_PROGRESS keep the labels and drop
 * the counters, for stable test output.
 */
#ifndef BP_PROGRESS_H
#define BP_PROGRESS_H

#include <stdint.h>
#include <time.h>

typedef void (*bp_progress_fn)(void *ctx, int pass, const char *label, uint64_t cur,
			       uint64_t max);

struct bp_progress {
	int bar;		/* draw a bar on stderr */
	int lines;		/* a bar was asked for, stderr is no terminal: pass lines */
	int fd;			/* machine lines, or -1 */
	int fd_dropped;		/* the reader of fd went away (EPIPE): lines dropped */
	int skip_counters;
	const char *device;
	int pass;
	uint64_t last_cur;
	int drawn_done;		/* the bar on screen shows its pass complete */
	struct timespec last;
};

void bp_progress_init(struct bp_progress *p, int bar, int fd, const char *device);
/* 0, or -EBADF when fd is not an open descriptor (checked by bp_progress_init's caller). */
int bp_progress_check_fd(int fd);
/* The bp_progress_fn to hand to engines, with ctx = struct bp_progress *. */
void bp_progress_cb(void *ctx, int pass, const char *label, uint64_t cur, uint64_t max);
void bp_progress_end(struct bp_progress *p);

#endif /* BP_PROGRESS_H */
