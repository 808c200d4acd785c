// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-meta.c --- bootpack-read: the metadata ranges, read through the block device
 *
 * Inode tables, directories, extent blocks: what the file lookups need,
 * read first, in disk order, from the root filesystem's block device.
 */
#include <fcntl.h>
#include <sys/sysmacros.h>

#include "reader-int.h"

/* Metadata ranges in disk order; ranges that touch are read as one. */
void rd_read_meta(struct rctx *c, const struct bp_pack *p, int devfd)
{
	uint32_t i, n = bp_pack_nmeta(p);
	uint64_t at = 0, len = 0;

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
		if (i < n && len && m.offset >= at + len && m.offset - (at + len) <= c->gap &&
		    m.offset + m.length - at <= BP_PACK_MAX_RANGE) {
			if (c->pass == 1)
				c->st->meta_gap_bytes += m.offset - (at + len);
			len = m.offset + m.length - at;
		} else {
			if (len)
				rd_count_bytes(c, TAG_META, rd_read_range(c, devfd, at, len, TAG_META));
			at = m.offset;
			len = i < n ? m.length : 0;
		}
		if (i < n && c->pass == 1)
			c->st->meta_ranges++;
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
