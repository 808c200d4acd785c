// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-uring.c --- bootpack-read: a minimal io_uring of buffered reads, raw syscalls
 *
 * No liburing: io_uring_setup(2), mmap of the rings, io_uring_enter(2).
 * Reads are queued as IORING_OP_READ into one scratch buffer (the data is
 * not wanted, only the page cache it fills) and submitted in batches: the
 * kernel submits a batch under one block plug, so reads of consecutive
 * ranges, of one file or of files that follow each other on disk, merge
 * into requests as large as the device takes. A completed read was read:
 * nothing is dropped silently (unlike readahead(2)); a short or failed one
 * is reported to the caller, which reads the rest with pread(2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/io_uring.h>

#include "reader.h"

struct bp_uring {
	int fd;
	unsigned int sq_entries, cq_entries;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_ring, *cq_ring;
	size_t sq_ring_sz, cq_ring_sz, sqes_sz;
	unsigned int queued;	/* SQEs written, not yet submitted */
	unsigned int inflight;	/* submitted, completion not reaped */
	struct bp_uring_req *reqs;	/* by slot (user_data) */
	unsigned int *free_slots, nfree;
	void *buf;		/* scratch buffer, buflen bytes */
	size_t buflen;
};

int bp_uring_open(struct bp_uring **ret, unsigned int entries, size_t buflen)
{
	struct io_uring_params p;
	struct bp_uring *u;
	unsigned int i;
	long fd;

	*ret = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->fd = -1;
	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, entries, &p);
	if (fd < 0) {
		int e = errno;

		free(u);
		return -e;	/* ENOSYS, or EPERM with kernel.io_uring_disabled */
	}
	u->fd = (int)fd;
	u->sq_entries = p.sq_entries;
	u->cq_entries = p.cq_entries;
	u->sq_ring_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	u->cq_ring_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (u->cq_ring_sz > u->sq_ring_sz)
			u->sq_ring_sz = u->cq_ring_sz;
		u->cq_ring_sz = u->sq_ring_sz;
	}
	u->sq_ring = mmap(NULL, u->sq_ring_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			  u->fd, IORING_OFF_SQ_RING);
	if (u->sq_ring == MAP_FAILED)
		goto fail;
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		u->cq_ring = u->sq_ring;
	} else {
		u->cq_ring = mmap(NULL, u->cq_ring_sz, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_CQ_RING);
		if (u->cq_ring == MAP_FAILED) {
			u->cq_ring = NULL;
			goto fail;
		}
	}
	u->sqes_sz = p.sq_entries * sizeof(struct io_uring_sqe);
	u->sqes = mmap(NULL, u->sqes_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		       IORING_OFF_SQES);
	if (u->sqes == MAP_FAILED) {
		u->sqes = NULL;
		goto fail;
	}
	u->sq_head = (unsigned int *)((char *)u->sq_ring + p.sq_off.head);
	u->sq_tail = (unsigned int *)((char *)u->sq_ring + p.sq_off.tail);
	u->sq_mask = (unsigned int *)((char *)u->sq_ring + p.sq_off.ring_mask);
	u->sq_array = (unsigned int *)((char *)u->sq_ring + p.sq_off.array);
	u->cq_head = (unsigned int *)((char *)u->cq_ring + p.cq_off.head);
	u->cq_tail = (unsigned int *)((char *)u->cq_ring + p.cq_off.tail);
	u->cq_mask = (unsigned int *)((char *)u->cq_ring + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)((char *)u->cq_ring + p.cq_off.cqes);

	/* At most sq_entries in flight: the completion ring (2x) never overflows. */
	u->reqs = calloc(u->sq_entries, sizeof(*u->reqs));
	u->free_slots = calloc(u->sq_entries, sizeof(*u->free_slots));
	u->buflen = buflen;
	u->buf = malloc(buflen);
	if (!u->reqs || !u->free_slots || !u->buf)
		goto fail;
	for (i = 0; i < u->sq_entries; i++)
		u->free_slots[u->nfree++] = u->sq_entries - 1 - i;
	*ret = u;
	return 0;
fail:
	bp_uring_close(u);
	return -ENOMEM;
}

void bp_uring_close(struct bp_uring *u)
{
	if (!u)
		return;
	if (u->sqes)
		munmap(u->sqes, u->sqes_sz);
	if (u->cq_ring && u->cq_ring != u->sq_ring)
		munmap(u->cq_ring, u->cq_ring_sz);
	if (u->sq_ring && u->sq_ring != MAP_FAILED)
		munmap(u->sq_ring, u->sq_ring_sz);
	if (u->fd >= 0)
		close(u->fd);
	free(u->reqs);
	free(u->free_slots);
	free(u->buf);
	free(u);
}

unsigned int bp_uring_inflight(const struct bp_uring *u)
{
	return u->inflight + u->queued;
}

unsigned int bp_uring_queued(const struct bp_uring *u)
{
	return u->queued;
}

/* Submit what is queued; wait for at least wait_nr completions. */
static int enter(struct bp_uring *u, unsigned int wait_nr)
{
	for (;;) {
		long r = syscall(SYS_io_uring_enter, u->fd, u->queued, wait_nr,
				 wait_nr ? IORING_ENTER_GETEVENTS : 0, NULL, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		u->queued -= (unsigned int)r;
		u->inflight += (unsigned int)r;
		return 0;
	}
}

int bp_uring_submit(struct bp_uring *u)
{
	return enter(u, 0);
}

/*
 * Reap every completion there is (waiting for at least wait_nr): each is
 * copied to done[] (at most ndone); the number copied.
 */
unsigned int bp_uring_reap(struct bp_uring *u, unsigned int wait_nr, struct bp_uring_req *done,
			   unsigned int ndone)
{
	unsigned int n = 0;

	if (wait_nr > u->inflight + u->queued)
		wait_nr = u->inflight + u->queued;
	if (enter(u, wait_nr) < 0)
		wait_nr = 0;
	while (n < ndone) {
		unsigned int head = *u->cq_head, slot;
		struct io_uring_cqe *cqe;

		if (head == __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE))
			break;
		cqe = &u->cqes[head & *u->cq_mask];
		slot = (unsigned int)cqe->user_data;
		done[n] = u->reqs[slot];
		done[n].res = cqe->res;
		n++;
		u->free_slots[u->nfree++] = slot;
		u->inflight--;
		__atomic_store_n(u->cq_head, head + 1, __ATOMIC_RELEASE);
	}
	return n;
}

/* Queue one read; -EBUSY when every slot is taken (reap first). */
int bp_uring_queue_read(struct bp_uring *u, int fd, uint64_t off, uint32_t len, uint64_t tag)
{
	struct io_uring_sqe *sqe;
	unsigned int tail, idx, slot;

	if (!u->nfree)
		return -EBUSY;
	if (len > u->buflen)
		len = (uint32_t)u->buflen;
	slot = u->free_slots[--u->nfree];
	u->reqs[slot].fd = fd;
	u->reqs[slot].off = off;
	u->reqs[slot].len = len;
	u->reqs[slot].tag = tag;
	tail = *u->sq_tail;
	idx = tail & *u->sq_mask;
	sqe = &u->sqes[idx];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->off = off;
	sqe->addr = (uint64_t)(uintptr_t)u->buf;
	sqe->len = len;
	sqe->user_data = slot;
	u->sq_array[idx] = idx;
	__atomic_store_n(u->sq_tail, tail + 1, __ATOMIC_RELEASE);
	u->queued++;
	return 0;
}
