// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-read.c --- bootpack-read: how a range is read (--method), chunks, io_uring batches
 *
 * pread (sendfile(2) to /dev/null when it can), readahead(2) or
 * POSIX_FADV_WILLNEED in chunks, or io_uring reads queued in batches. The
 * asynchronous methods get a second pass: what is not resident then is read
 * again synchronously (refetch).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "c.h"
#include "reader-int.h"

/*
 * The stream is under way: what is queued goes to the disk (but a request
 * half queued, which goes once whole), then o->streaming().
 */
void rd_streaming(struct rctx *c)
{
	if (c->streaming || c->pass != 1)
		return;
	c->streaming = 1;
	if (c->u && !c->req_fill)
		rd_uring_submit(c);
	if (c->o->streaming)
		c->o->streaming();
}

int rd_out_of_time(struct rctx *c)
{
	if (!c->o->max_ms || c->st->timed_out)
		return c->st->timed_out;
	if (bp_reader_now_ms() - c->t0 >= c->o->max_ms)
		c->st->timed_out = 1;
	return c->st->timed_out;
}

/* Read [off, off + len) of fd with method m, in chunks; bytes issued. */
static uint64_t read_with(struct rctx *c, int fd, uint64_t off, uint64_t len,
			  enum bp_read_method m)
{
	uint64_t done = 0;

	while (done < len && !rd_out_of_time(c)) {
		size_t n = (size_t)(len - done < c->chunk ? len - done : c->chunk);
		off_t at = (off_t)(off + done);
		ssize_t r;

		switch (m) {
		case BP_READ_READAHEAD:
			if (readahead(fd, at, n) < 0) {
				c->st->errors++;
				return done;
			}
			r = (ssize_t)n;
			break;
		case BP_READ_FADVISE:
			if (posix_fadvise(fd, at, (off_t)n, POSIX_FADV_WILLNEED)) {
				c->st->errors++;
				return done;
			}
			r = (ssize_t)n;
			break;
		case BP_READ_PREAD:
		default:
			if (c->nullfd < 0 && !c->buf) {
				c->buf = malloc(BP_READER_CHUNK);
				if (!c->buf) {
					c->st->errors++;
					return done;
				}
			}
			if (c->nullfd >= 0) {
				/* zero-copy: the pages are read, nothing is copied out */
				off_t o2 = at;

				r = sendfile(c->nullfd, fd, &o2, n);
				if (r < 0 && errno == EAGAIN)	/* O_NONBLOCK honoured: copy instead */
					r = pread(fd, c->buf, n, at);
				if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
					close(c->nullfd);
					c->nullfd = -1;
					continue;
				}
			} else {
				r = pread(fd, c->buf, n, at);
			}
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				c->st->errors++;
				return done;
			}
			if (r == 0)
				return done;	/* end of file or device */
			break;
		}
		done += (uint64_t)r;
	}
	return done;
}


/* The descriptor a completed read used, if it is still open; else -1. */
static int still_open(struct rctx *c, const struct bp_uring_req *r)
{
	struct slot *s;

	if (r->tag == TAG_META)
		return c->devfd == r->fd ? r->fd : -1;
	s = rd_find_slot(c, (uint32_t)r->tag);
	return s && s->fd == r->fd ? r->fd : -1;
}

void rd_count_bytes(struct rctx *c, uint64_t tag, uint64_t n)
{
	c->st->bytes += n;
	if (tag == TAG_META)
		c->st->meta_bytes += n;
}

/*
 * What a read of n bytes from a page boundary takes on the disk: whole
 * pages (a file's last page is read whole). The window counts these, so
 * that a refill of the region, one run on the disk, ends where it meant to.
 */
static uint64_t disk_bytes(const struct rctx *c, uint64_t n)
{
	return (n + c->pg - 1) & ~(c->pg - 1);
}

/*
 * Reap completions (waiting for wait_nr); short or failed reads are read
 * synchronously. The number reaped.
 */
static unsigned int uring_reap(struct rctx *c, unsigned int wait_nr)
{
	struct bp_uring_req done[64];
	unsigned int i, n, total = 0;

	do {
		n = bp_uring_reap(c->u, wait_nr, done, ARRAY_SIZE(done));
		total += n;
		wait_nr = 0;
		for (i = 0; i < n; i++) {
			const struct bp_uring_req *r = &done[i];
			uint64_t got = r->res > 0 ? (uint64_t)r->res : 0;
			int fd;

			rd_count_bytes(c, r->tag, got);
			c->in_flight -= disk_bytes(c, r->len) < c->in_flight ? disk_bytes(c, r->len) :
									     c->in_flight;
			if (r->res == 0 || got >= r->len)
				continue;
			/* short, or failed (-EAGAIN, -EINVAL of an old kernel ...): pread the rest */
			fd = still_open(c, r);
			if (fd < 0) {
				c->st->errors++;
				continue;
			}
			rd_count_bytes(c, r->tag, read_with(c, fd, r->off + got, r->len - got,
							 BP_READ_PREAD));
		}
	} while (n == ARRAY_SIZE(done));
	return total;
}

/* Submit the queued reads, then close the descriptors evicted meanwhile. */
int rd_uring_submit(struct rctx *c)
{
	int r = bp_uring_submit(c->u);

	if (!bp_uring_queued(c->u)) {
		while (c->nzombies)
			close(c->zombies[--c->nzombies]);
	}
	return r;
}

void rd_uring_drain(struct rctx *c)
{
	if (!c->u)
		return;
	while (bp_uring_inflight(c->u)) {
		unsigned int before = bp_uring_inflight(c->u);
		int r = rd_uring_submit(c);

		uring_reap(c, 1);
		if (r < 0 && bp_uring_inflight(c->u) == before) {
			/* cannot submit, nothing completes: give up on what is left */
			c->st->errors += before;
			break;
		}
	}
}

/*
 * Where a refill of the window stops: the window full, in whole requests
 * (c->req_bytes) where known.
 */
static uint64_t refill_end(const struct rctx *c)
{
	uint64_t room = c->window > c->in_flight ? c->window - c->in_flight : 0;

	if (c->req_bytes && c->req_bytes <= c->window / 2 && room >= c->req_bytes)
		room -= room % c->req_bytes;
	return c->in_flight + room;
}

/*
 * The request being queued ends here: submit it. A submit is one block
 * plug, in which reads that follow each other on the disk merge into
 * requests as large as the device takes; where its max_segments cut one
 * short (pages of the page cache not adjacent in memory are a segment
 * each), the plug's last request is a remnant. One request per submit
 * instead: c->req_bytes at a time, counted from where a run of the disk
 * begins, each a request of its own.
 */
static void rd_end_request(struct rctx *c)
{
	if (c->u && bp_uring_queued(c->u) && rd_uring_submit(c) < 0)
		rd_uring_drain(c);	/* cannot submit: let what is in flight end */
	c->req_fill = 0;
}

/*
 * Queue [off, off + len) of fd, which starts at c->range_phys on the disk,
 * in chunks; bytes are counted as they complete.
 *
 * At most c->window bytes are queued or in flight (a request more where the
 * window ends inside one): the disk serves requests in the order it gets
 * them, so a read the boot issues itself (a page the pack does not hold, or
 * one the reader has not reached) waits behind everything already queued.
 * A few requests keep the disk streaming; more only delay the boot's own
 * reads (see bootpack-read(8), --in-flight).
 */
static void uring_range(struct rctx *c, int fd, uint64_t off, uint64_t len, uint64_t tag)
{
	uint64_t phys = c->range_phys, done = 0;

	/*
	 * Not where the last read ended (the next block: within a page of its
	 * last byte): a new run of the disk, a new request. Where the pack
	 * does not know, the request goes on (the plug merges what it can).
	 */
	if (phys != BP_PACK_PHYS_NONE && c->next_phys != BP_PACK_PHYS_NONE &&
	    (phys < c->next_phys || phys - c->next_phys >= c->pg))
		rd_end_request(c);
	while (done < len && !rd_out_of_time(c)) {
		uint32_t n = (uint32_t)(len - done < c->chunk ? len - done : c->chunk);

		/*
		 * The window is full (and no request half queued): wait until
		 * half of it is done, then refill it, a request per submit.
		 */
		if (c->in_flight && c->in_flight >= c->fill_to && !c->req_fill) {
			rd_streaming(c);	/* the first window is queued */
			while (c->in_flight && c->in_flight > c->window / 2)
				if (!uring_reap(c, 1))
					break;	/* nothing completes: the slots below decide */
			c->fill_to = refill_end(c);
		}
		if (!c->in_flight)
			c->fill_to = refill_end(c);
		/* a read ends where the request does, on a page */
		if (c->req_bytes && c->req_fill + n > c->req_bytes &&
		    c->req_bytes - c->req_fill >= c->pg)
			n = (uint32_t)((c->req_bytes - c->req_fill) & ~(c->pg - 1));
		while (bp_uring_queue_read(c->u, fd, off + done, n, tag) == -EBUSY)
			uring_reap(c, 1);
		c->in_flight += disk_bytes(c, n);
		if (c->req_bytes)	/* unknown: no request to fill, the window decides */
			c->req_fill += disk_bytes(c, n);
		done += n;
		if (c->req_bytes && c->req_fill >= c->req_bytes)
			rd_end_request(c);
		else if (bp_uring_queued(c->u) >= URING_BATCH && rd_uring_submit(c) < 0)
			rd_uring_drain(c);	/* cannot submit: let what is in flight end */
	}
	c->next_phys = phys == BP_PACK_PHYS_NONE ? BP_PACK_PHYS_NONE : phys + done;
}

/*
 * Which of npages pages of fd from byte first (a multiple of c->pg) are in the
 * page cache: a vector of npages bytes, bit 0 set for a resident page (to
 * free), or NULL.
 */
unsigned char *rd_mincore(const struct rctx *c, int fd, uint64_t first, uint64_t npages)
{
	unsigned char *vec;
	void *map;

	if (!npages)
		return NULL;
	map = mmap(NULL, npages * c->pg, PROT_READ, MAP_SHARED, fd, (off_t)first);
	if (map == MAP_FAILED)
		return NULL;
	vec = malloc(npages);
	if (vec && mincore(map, npages * c->pg, vec) < 0) {
		free(vec);
		vec = NULL;
	}
	munmap(map, npages * c->pg);
	return vec;
}

/*
 * Pass 2 of the asynchronous methods: pages of [off, off + len) that are
 * not resident (dropped, or still in flight) are read synchronously, which
 * waits for those in flight and reads the dropped ones again.
 */
static void refetch(struct rctx *c, int fd, uint64_t off, uint64_t len)
{
	uint64_t first = off & ~(c->pg - 1), i, npages, run = 0, start = 0;
	unsigned char *vec;

	npages = (off + len - first + c->pg - 1) / c->pg;
	vec = rd_mincore(c, fd, first, npages);
	if (!vec)
		return;
	for (i = 0; i <= npages; i++) {
		if (i < npages && !(vec[i] & 1)) {
			if (!run++)
				start = i;
			continue;
		}
		if (run) {
			uint64_t a = first + start * c->pg, b = first + (start + run) * c->pg;
			uint64_t got;

			if (a < off)
				a = off;
			if (b > off + len)
				b = off + len;
			got = read_with(c, fd, a, b - a, BP_READ_PREAD);
			c->st->refetched += got;
		}
		run = 0;
	}
	free(vec);
}

/* Read [off, off + len) of fd as configured; bytes issued synchronously. */
uint64_t rd_read_range(struct rctx *c, int fd, uint64_t off, uint64_t len, uint64_t tag)
{
	if (c->pass == 2) {
		refetch(c, fd, off, len);
		return 0;
	}
	/*
	 * io_uring hands some buffered reads of the block device to its
	 * workers, which issue them late and out of disk order (3-5 seeks of
	 * the metadata pass on the 5400 rpm model); WILLNEED issues them now,
	 * in order, without waiting. What is not resident after the file pass
	 * is read again (rd_meta_check).
	 */
	if (c->o->method == BP_READ_URING && tag == TAG_META) {
		c->meta_async = 1;
		return read_with(c, fd, off, len, BP_READ_FADVISE);
	}
	if (c->o->method == BP_READ_URING && c->u) {
		uring_range(c, fd, off, len, tag);
		return 0;
	}
	return read_with(c, fd, off, len,
			 c->o->method == BP_READ_URING ? BP_READ_PREAD : c->o->method);
}
