// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-meta.c --- bootpack-read: the metadata ranges, read through the block device
 *
 * Inode tables, directories, extent blocks: what the file lookups need.
 * Ranges a gap of at most --meta-gap apart are read as one request (a
 * chain). A chain the boot needs early is read first, in disk order, before
 * any file: the lookups of the first files wait for it. A chain first needed
 * later in the boot (the journal's blocks, the end of the disk that udev
 * probes) is read when the file stream reaches its place in the pack: read
 * first, its seeks (often across the whole disk) would delay every file the
 * boot needs before it. What the boot already read before the reader ran
 * (the superblock, the journal's superblock: mount did) does not make a
 * chain early.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/sysmacros.h>

#include "reader-int.h"

/* 1 if every page of [off, off + len) of fd is in the page cache. */
static int resident(const struct rctx *c, int fd, uint64_t off, uint64_t len)
{
	uint64_t first = off & ~(c->pg - 1), n = (off + len - first + c->pg - 1) / c->pg, i;
	unsigned char *vec = rd_mincore(c, fd, first, n);

	if (!vec)
		return 0;
	for (i = 0; i < n && (vec[i] & 1); i++)
		;
	free(vec);
	return i == n;
}

static int by_budget(const void *a, const void *b)
{
	const struct meta_chain *x = a, *y = b;

	return x->budget < y->budget ? -1 : x->budget > y->budget;
}

/* One chain: read now, or kept for its place in the stream (pass 1). */
static void chain_done(struct rctx *c, const struct meta_chain *ch, int devfd)
{
	if (c->pass == 1 && ch->budget > BP_READER_META_EARLY && ch->budget != UINT64_MAX) {
		struct meta_chain *m = c->later;

		if (c->nlater == c->maxlater) {
			unsigned int n = c->maxlater ? 2 * c->maxlater : 16;

			m = realloc(c->later, n * sizeof(*m));
			if (m) {
				c->later = m;
				c->maxlater = n;
			}
		}
		if (c->nlater < c->maxlater) {
			c->later[c->nlater++] = *ch;
			c->st->meta_deferred += ch->len;
			return;
		}
	}
	rd_count_bytes(c, TAG_META, rd_read_range(c, devfd, ch->at, ch->len, TAG_META));
}

/* Metadata ranges in disk order, in chains; early chains now, later ones kept. */
void rd_read_meta(struct rctx *c, const struct bp_pack *p, int devfd)
{
	uint32_t i, n = bp_pack_nmeta(p);
	struct meta_chain ch = { 0 };

	if (c->o->method == BP_READ_PREAD || c->o->method == BP_READ_URING)
		posix_fadvise(devfd, 0, 0, POSIX_FADV_RANDOM);
	for (i = 0; i <= n; i++) {
		struct bp_pack_meta m = { 0 };

		if (i < n) {
			if (bp_pack_meta(p, i, &m) < 0)
				n = i;
			else if (m.budget_pos > c->budget || rd_out_of_time(c)) {
				if (c->pass == 1)
					c->st->cut++;
				continue;
			}
		}
		/*
		 * Touching ranges are one request; so are ranges a gap of at
		 * most c->gap apart (sorted by offset, as the writer stores them).
		 */
		if (i < n && ch.len && m.offset >= ch.at + ch.len &&
		    m.offset - (ch.at + ch.len) <= c->gap &&
		    m.offset + m.length - ch.at <= BP_PACK_MAX_RANGE) {
			if (c->pass == 1)
				c->st->meta_gap_bytes += m.offset - (ch.at + ch.len);
			ch.len = m.offset + m.length - ch.at;
		} else {
			if (ch.len)
				chain_done(c, &ch, devfd);
			ch.at = m.offset;
			ch.len = i < n ? m.length : 0;
			ch.budget = UINT64_MAX;
		}
		/*
		 * What the boot has read already (mount did) does not make a chain
		 * early. Once a chain is early, an earlier budget changes nothing:
		 * no residency check then (a mapping and mincore(2) per range).
		 */
		if (i < n && c->pass == 1 && m.budget_pos < ch.budget &&
		    ch.budget > BP_READER_META_EARLY && !resident(c, devfd, m.offset, m.length))
			ch.budget = m.budget_pos;
		if (i < n && c->pass == 1)
			c->st->meta_ranges++;
	}
	if (c->nlater)
		qsort(c->later, c->nlater, sizeof(*c->later), by_budget);
}

/*
 * The file stream is at budget position pos: read the kept chains the boot
 * needs before what is queued now is done (UINT64_MAX: all that are left).
 * A request of the stream half queued stays so, to go whole once filled:
 * a chain is issued at once, ahead of it.
 */
void rd_meta_due(struct rctx *c, uint64_t pos)
{
	while (c->next_later < c->nlater && c->devfd >= 0 &&
	       (pos == UINT64_MAX || c->later[c->next_later].budget <= pos + c->window)) {
		const struct meta_chain *ch = &c->later[c->next_later++];

		rd_count_bytes(c, TAG_META, rd_read_range(c, c->devfd, ch->at, ch->len, TAG_META));
	}
}
/* The metadata device, or -1 with st->why_meta set. */
int rd_meta_device(struct rctx *c, const struct bp_pack_info *in, int uuid_checked)
{
	int fd;

	if (!uuid_checked && (in->dev_major || in->dev_minor) &&
	    makedev(in->dev_major, in->dev_minor) != c->root_dev) {
		c->st->why_meta = "device number differs from the pack and the filesystem UUID cannot be checked";
		return -1;
	}
	if (major(c->root_dev) == 0) {
		c->st->why_meta = "the root's filesystem is not on a block device";
		return -1;
	}
	fd = bp_reader_open_blockdev(major(c->root_dev), minor(c->root_dev), c->o->as_init,
				     c->st->meta_dev,
				     sizeof(c->st->meta_dev));
	if (fd < 0) {
		c->st->why_meta = "no block device node for the root's filesystem, and none could be made";
		return -1;
	}
	return fd;
}
