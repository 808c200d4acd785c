// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootpack-read-wait.c --- the head start: the boot waits for the reader's stream, a bounded time
 *
 * Whoever started the reader (PID 1 before exec'ing init, the --background
 * parent before returning to an initramfs hook) waits until the reading
 * child's stream is under way (its first files' metadata in, the first
 * window of reads queued), until the child ends, or until the deadline,
 * whichever comes first. The child holds the write end of a pipe and
 * closes it when it streams; the waiter polls the read end. A hard
 * deadline on the monotonic clock and no I/O of the waiter's own: a slow
 * or stuck disk never holds the boot longer than the head start.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "bootpack-read.h"

/* The child's end of the pipe: closed once the stream is under way. */
static int child_fd = -1;

/*
 * --head-start-ms=auto: 500 ms on every disk. On a rotating one the boot's
 * first lookups would seek across the reader's start-up and metadata pass;
 * on flash they would race the stream in small requests of their own (the
 * real-boot bench, sata-ssd as init=: 56-62 of them for packed data without
 * a head start, 28 with it; eee-flash 32-33 and 28). The wait ends as soon
 * as the stream is under way, so on a fast disk it is short.
 */
uint64_t bp_read_head_start_ms(const struct bp_read_settings *s)
{
	if (s->head_start_ms != BP_READER_HEAD_START_AUTO)
		return s->head_start_ms;
	return BP_READER_HEAD_START_MS;
}

void bp_read_wait_init(struct bp_read_wait *w, uint64_t ms)
{
	w->ms = ms;
	w->fd[0] = w->fd[1] = -1;
	if (ms && pipe2(w->fd, O_CLOEXEC) < 0)
		w->fd[0] = w->fd[1] = -1;
}

static void streaming(void)
{
	if (child_fd >= 0)
		close(child_fd);
	child_fd = -1;
}

void bp_read_wait_child(struct bp_read_wait *w, struct bp_reader_opts *o)
{
	if (w->fd[0] >= 0)
		close(w->fd[0]);
	child_fd = w->fd[1];
	w->fd[0] = w->fd[1] = -1;
	o->streaming = streaming;
}

void bp_read_wait_parent(struct bp_read_wait *w)
{
	struct pollfd p = { .fd = w->fd[0], .events = POLLIN };
	uint64_t t0 = bp_reader_now_ms(), now;

	if (w->fd[1] >= 0)
		close(w->fd[1]);
	/* POLLHUP once the child closed its end, or ended */
	while (p.fd >= 0 && (now = bp_reader_now_ms()) - t0 < w->ms) {
		int r = poll(&p, 1, (int)(w->ms - (now - t0)));

		if (r > 0 || (r < 0 && errno != EINTR))
			break;
	}
	if (w->fd[0] >= 0)
		close(w->fd[0]);
	w->fd[0] = w->fd[1] = -1;
}
