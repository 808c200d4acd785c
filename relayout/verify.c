// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify.c --- read-only: how contiguous is a trace's boot stream on disk
 *
 * The stream is built exactly as relayout builds it (directories, tree and
 * indirect blocks, data in first-access order) from the filesystem as it is,
 * and its discontiguities are counted with the one rule of contig.h:
 * 0 discontiguities = one sequential read. Those whose gap is fixed group
 * metadata only (a region spanning groups steps over it) are counted apart.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "contig.h"
#include "fsident.h"
#include "rl-int.h"

struct vctx {
	struct bp_verify_report *r;
	struct bp_contig contig;	/* in blocks: block size 1 */
	blk64_t cur_run;
	int any;
	/* chunks: the chunk index of each block run, from the start of the image */
	uint64_t chunk_blocks, first_chunk;	/* chunk size in blocks; blocks before the fs */
	uint64_t *chunk, nchunk, chunk_alloc;
	int nomem;
};

static void add_chunks(struct vctx *c, blk64_t start, blk64_t len)
{
	uint64_t a = (c->first_chunk + start) / c->chunk_blocks;
	uint64_t b = (c->first_chunk + start + len - 1) / c->chunk_blocks;

	for (; a <= b && !c->nomem; a++) {
		if (c->nchunk && c->chunk[c->nchunk - 1] == a)
			continue;
		if (c->nchunk == c->chunk_alloc) {
			uint64_t n = c->chunk_alloc ? c->chunk_alloc * 2 : 256;
			uint64_t *v = realloc(c->chunk, n * sizeof(*v));

			if (!v) {
				c->nomem = 1;
				return;
			}
			c->chunk = v;
			c->chunk_alloc = n;
		}
		c->chunk[c->nchunk++] = a;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void run_cb(void *ctx, blk64_t start, blk64_t len)
{
	struct vctx *c = ctx;
	struct bp_verify_report *r = c->r;
	uint64_t before = c->contig.discontig;

	if (!len)
		return;
	bp_contig_add(&c->contig, start, len);
	if (c->any && c->contig.discontig == before) {
		r->in_order_blocks += len;
		c->cur_run += len;
	} else {
		r->in_order_blocks += len - 1;
		c->cur_run = len;
	}
	if (c->cur_run > r->largest_run)
		r->largest_run = c->cur_run;
	if (!c->any || start < r->first_block)
		r->first_block = start;
	if (start + len - 1 > r->last_block)
		r->last_block = start + len - 1;
	r->blocks += len;
	c->any = 1;
	if (c->chunk_blocks)
		add_chunks(c, start, len);
}

static errcode_t on_read_error(io_channel ch, unsigned long block, int count _unused_,
			       void *data _unused_, size_t size _unused_, int actual _unused_,
			       errcode_t error)
{
	struct rl_readwatch *w = ch->app_data;

	if (w && !w->rc) {
		w->rc = error ? error : EXT2_ET_SHORT_READ;
		w->block = block;
	}
	return error;
}

void rl_readwatch_start(ext2_filsys fs, struct rl_readwatch *w)
{
	memset(w, 0, sizeof(*w));
	fs->io->app_data = w;
	fs->io->read_error = on_read_error;
}

errcode_t rl_readwatch_check(ext2_filsys fs, const struct rl_readwatch *w, const char *device,
			     struct bp_err *err)
{
	fs->io->read_error = NULL;
	fs->io->app_data = NULL;
	if (!w->rc)
		return 0;
	return bp_err_set(err, BP_ET_READ_FAILED,
			  "%s: reading block %llu failed (%s), so the boot set could not be "
			  "read in full and the result would be wrong; check the device (dmesg, "
			  "'e2fsck -fn %s')",
			  device, (unsigned long long)w->block, error_message(w->rc), device);
}

errcode_t bp_verify_run(const char *device, const struct bp_trace *trace, int whole_files,
			struct bp_verify_report *rep, struct bp_err *err)
{
	struct bp_fsloc loc = { device, 0 };

	return bp_verify_run_at(&loc, trace, whole_files, 0, rep, err);
}

errcode_t bp_verify_run_at(const struct bp_fsloc *loc, const struct bp_trace *trace,
			   int whole_files, uint64_t chunk_bytes, struct bp_verify_report *rep,
			   struct bp_err *err)
{
	const char *device = loc->path;
	struct rl_stream s;
	struct vctx c = { .r = rep };
	struct rl_readwatch w;
	ext2fs_block_bitmap fixed = NULL;
	ext2_filsys fs = NULL;
	size_t i;
	errcode_t rc;

	memset(rep, 0, sizeof(*rep));
	rc = bp_fs_open_ro_at(loc, &fs, err);
	if (rc)
		return rc;
	rep->block_size = fs->blocksize;
	if (chunk_bytes >= fs->blocksize && chunk_bytes % fs->blocksize == 0 &&
	    loc->offset % fs->blocksize == 0) {
		c.chunk_blocks = chunk_bytes / fs->blocksize;
		c.first_chunk = loc->offset / fs->blocksize;
	}
	rl_readwatch_start(fs, &w);
	rc = rl_check_trace(fs, trace, device, err);
	if (!rc)
		rc = rl_stream_build(fs, trace, whole_files, &s, err);
	if (!rc) {
		/* A read error is not "file missing": the measurement failed. */
		rc = rl_readwatch_check(fs, &w, device, err);
		if (rc)
			rl_stream_free(&s);
	}
	if (rc) {
		ext2fs_free(fs);
		return rc;
	}
	bp_contig_init(&c.contig, 1);
	rl_stream_walk(&s, 0, run_cb, &c);
	if (c.nomem) {
		free(c.chunk);
		rl_stream_free(&s);
		ext2fs_free(fs);
		return bp_err_set(err, ENOMEM, "%s: out of memory counting chunks", device);
	}
	if (c.nchunk) {
		uint64_t i2, n = 1;

		qsort(c.chunk, c.nchunk, sizeof(*c.chunk), u64_cmp);
		for (i2 = 1; i2 < c.nchunk; i2++)
			n += c.chunk[i2] != c.chunk[i2 - 1];
		rep->chunks = n;
	}
	free(c.chunk);
	rep->runs = bp_contig_runs(&c.contig);
	rep->discontiguities = c.contig.discontig;
	/* Those over fixed group metadata only: a region spanning groups has them. */
	if (!rl_fixed_build(fs, &fixed)) {
		rep->discontig_fixed = rl_stream_discontig_fixed(&s, 0, fixed);
		ext2fs_free_block_bitmap(fixed);
	}
	rep->files = s.files;
	rep->dirs = s.dirs;
	for (i = 0; i < BP_RL_SKIP_NR; i++)
		rep->skipped += s.skipped[i];
	rl_stream_free(&s);
	ext2fs_free(fs);
	return 0;
}
