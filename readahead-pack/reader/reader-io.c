// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-io.c --- bootpack-read's engine: read a pack's ranges into the page cache
 *
 * Order: the metadata ranges through the block device first (inode tables,
 * directories, extent blocks: what path lookups need; reader-meta.c), then
 * the file entries in pack order (physical order; reader-files.c). Every
 * range whose budget_pos is beyond the effective budget is cut; reading
 * stops at --max-ms. How each range is read: reader-read.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "reader-int.h"

static void free_ctx(struct rctx *c)
{
	rd_uring_drain(c);
	bp_uring_close(c->u);
	while (c->nzombies)
		close(c->zombies[--c->nzombies]);
	if (c->devfd >= 0)
		close(c->devfd);
	while (c->nslots)
		close(c->slots[--c->nslots].fd);
	free(c->slots);
	free(c->later);
	free(c->keys);
	free(c->states);
	free(c->buf);
	if (c->nullfd >= 0)
		close(c->nullfd);
	if (c->rootfd >= 0)
		close(c->rootfd);
}

static uint64_t cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
}

int bp_reader_run(const struct bp_pack *p, const struct bp_reader_opts *o,
		  struct bp_reader_stats *st, const char **why)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	static const uint8_t nil[16];
	struct rctx c;
	struct rlimit rl;
	struct stat rst;
	uint8_t uuid[16];
	uint64_t mem, cpu0;
	int uuid_checked = 0, rc = 0;

	memset(st, 0, sizeof(*st));
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.st = st;
	c.t0 = bp_reader_now_ms();
	cpu0 = cpu_ms();
	c.compat = in->feature_compat;
	c.have_openat2 = 1;
	c.nullfd = -1;
	c.devfd = -1;
	c.pass = 1;
	c.pg = bp_reader_page_size();
	c.round_out = in->page_size < c.pg;
	st->pack_page_size = in->page_size;
	st->page_size = c.pg;
	c.rootfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.rootfd < 0 || fstat(c.rootfd, &rst) < 0) {
		rc = -errno;
		*why = "cannot open the root directory";
		goto out;
	}
	c.root_dev = rst.st_dev;
	/* Before Linux 6.5 (no FS_IOC_GETFSUUID): from the superblock. */
	if (memcmp(in->uuid, nil, 16) != 0 &&
	    (bp_reader_fs_uuid(c.rootfd, uuid) == 0 ||
	     (major(c.root_dev) && bp_reader_sb_uuid(major(c.root_dev), minor(c.root_dev),
						    o->as_init, uuid) == 0))) {
		if (memcmp(uuid, in->uuid, 16) != 0) {
			rc = -ESTALE;
			*why = "the pack is for another filesystem (UUID differs from the root's)";
			goto out;
		}
		uuid_checked = 1;
	}

	/* Budget: the pack's bytes, or less (--budget), scaled to free memory. */
	c.budget = in->total_bytes;
	if (o->budget && o->budget < c.budget)
		c.budget = o->budget;
	if (bp_reader_mem_available(&mem) == 0)
		c.budget = bp_reader_scale_budget(c.budget, mem);
	st->budget = c.budget;

	/*
	 * pread: 1 MiB. readahead(2) and WILLNEED silently stop at
	 * max(max_sectors_kb, read_ahead_kb) of the device per call: chunk at that.
	 */
	c.chunk = BP_READER_CHUNK;
	c.window = o->in_flight ? o->in_flight : BP_READER_IN_FLIGHT;
	if (o->method == BP_READ_READAHEAD || o->method == BP_READ_FADVISE) {
		uint64_t cap = bp_reader_ra_cap(major(c.root_dev), minor(c.root_dev), o->as_init);

		if (cap >= c.pg && cap < c.chunk)
			c.chunk = (size_t)cap;
	}

	c.maxslots = o->max_fds ? o->max_fds : BP_READER_MAX_FDS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)c.maxslots + 16)
		c.maxslots = rl.rlim_cur > 17 ? (unsigned int)rl.rlim_cur - 16 : 1;
	c.slots = calloc(c.maxslots, sizeof(*c.slots));
	/* at most min(nfiles, nentries) distinct files are ever looked up */
	if (!c.slots || rd_hash_init(&c, in->nfiles < in->nentries ? in->nfiles : in->nentries) < 0) {
		rc = -ENOMEM;
		*why = "out of memory";
		goto out;
	}
	/*
	 * pread, and the second pass of the asynchronous methods; not from a
	 * bare /dev (init= without devtmpfs), whose lookup would read the
	 * root's /dev directory from the disk: pread copies instead.
	 */
	if (!(o->as_init && bp_reader_dev_is_bare()))
		c.nullfd = bp_reader_open_null();
	if (o->method == BP_READ_PREAD) {
		c.buf = malloc(BP_READER_CHUNK);
		if (!c.buf) {
			rc = -ENOMEM;
			*why = "out of memory";
			goto out;
		}
	}

	if (bp_pack_nmeta(p)) {
		if (o->no_meta)
			st->why_meta = "--no-meta";
		else
			c.devfd = rd_meta_device(&c, in, uuid_checked);
		if (c.devfd < 0)
			st->meta_skipped = 1;
	}
	if (c.devfd >= 0) {
		c.gap = o->meta_gap;
		st->meta_gap_how = BP_GAP_SET;
		if (o->meta_gap == BP_READER_META_GAP_AUTO) {
			int rot = bp_reader_rotational(major(c.root_dev), minor(c.root_dev),
						       o->as_init);

			c.gap = rot == 1 ? BP_READER_META_GAP_ROT : 0;
			st->meta_gap_how = rot == 1 ? BP_GAP_ROTATING :
					   rot == 0 ? BP_GAP_NOT_ROTATING : BP_GAP_UNKNOWN;
		}
		st->meta_gap = c.gap;
	}
	if (o->ready) {
		pid_t pid = getpid();

		o->ready();
		if (getpid() != pid)
			cpu0 = 0;	/* --background's child: its usage starts at the fork */
	}
	if (o->method == BP_READ_URING) {
		int r = bp_uring_open(&c.u, URING_ENTRIES, BP_READER_CHUNK);

		if (r < 0)
			st->uring_errno = -r;	/* read with pread instead */
		else
			c.req_bytes = bp_reader_max_request(major(c.root_dev), minor(c.root_dev),
							    o->as_init);
		/* --max-request (the probe of 'bootpack setup'): never more */
		if (r >= 0 && o->max_request && (!c.req_bytes || o->max_request < c.req_bytes))
			c.req_bytes = o->max_request;
	}
	if (bp_pack_nmeta(p) && c.devfd >= 0)
		rd_read_meta(&c, p, c.devfd);
	if (c.u)
		rd_uring_submit(&c);	/* the metadata first: file lookups need it */
	rd_read_entries(&c, p);
	rd_uring_drain(&c);	/* a pack smaller than the window: init waits for the end */
	if (c.meta_async && c.devfd >= 0) {
		/* nothing silently dropped: metadata not resident now is read again */
		c.pass = 2;
		rd_read_meta(&c, p, c.devfd);
		c.pass = 1;
	}
	if (o->method == BP_READ_READAHEAD || o->method == BP_READ_FADVISE) {
		/* nothing silently dropped: what is not resident now is read again */
		c.pass = 2;
		if (c.devfd >= 0)
			rd_read_meta(&c, p, c.devfd);
		rd_read_entries(&c, p);
	}
out:
	free_ctx(&c);
	st->elapsed_ms = bp_reader_now_ms() - c.t0;
	st->cpu_ms = cpu_ms() - cpu0;
	return rc;
}
