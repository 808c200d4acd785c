// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply.c --- carry out a plan: B0, reserve, copy, B1, commit, B2, free
 *
 * One fill epoch (doc/relayout-safety.md §4.3-4.8): the filesystem is marked in
 * progress alone and durably; the region is reserved; data and indirect
 * blocks are copied (sources read in physical order, multi-MiB requests) and
 * new extent leaves written; B1 makes copies and allocation durable; each
 * item is switched by one inode write; B2 makes the switches durable; only
 * then are the old blocks freed in memory, reaching the disk at close.
 * A signal stops an epoch before its first commit, never after
 * (doc/relayout-safety.md §4.12).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "rl-int.h"

#define RL_CHUNK_BYTES (8u << 20)

#define RL_READAHEAD_BYTES (64u << 20)

struct rl_copy {
	blk64_t src, dst, len;
};

static int copy_cmp(const void *a, const void *b)
{
	const struct rl_copy *x = a, *y = b;

	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

/* Copy runs in destination order, coalesced where both sides are adjacent. */
static errcode_t build_copies(const struct rl_stream *s, struct rl_copy **ret, size_t *count,
			      uint64_t *total)
{
	struct rl_copy *v;
	size_t i, n = 0, k;

	v = malloc((s->nsegs ? s->nsegs : 1) * sizeof(*v));
	if (!v)
		return ENOMEM;
	*total = 0;
	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];

		if (g->kind == RL_SEG_TREE || g->kind == RL_SEG_EA || s->items[g->item].skipped ||
		    g->src == g->dst)
			continue;
		v[n++] = (struct rl_copy){ .src = g->src, .dst = g->dst, .len = g->len };
		*total += g->len;
	}
	qsort(v, n, sizeof(*v), copy_cmp);
	for (i = 0, k = 0; i < n; i++) {
		if (k && v[k - 1].src + v[k - 1].len == v[i].src &&
		    v[k - 1].dst + v[k - 1].len == v[i].dst) {
			v[k - 1].len += v[i].len;
			continue;
		}
		v[k++] = v[i];
	}
	*ret = v;
	*count = k;
	return 0;
}

/*
 * The region is filled sequentially: sources (scattered) are gathered into
 * a large buffer and written with one request per buffer. Sources ahead of
 * the reader get a readahead hint so the device sees many requests at once.
 */
static errcode_t copy_blocks(ext2_filsys fs, const struct rl_stream *s,
			     const struct bp_relayout_opts *o, struct bp_relayout_report *rep)
{
	struct rl_copy *v = NULL;
	size_t n = 0, i, ra = 0;
	uint64_t total = 0, done = 0, ra_blocks = 0;
	blk64_t chunk = RL_CHUNK_BYTES / fs->blocksize, fill = 0, wdst = 0;
	blk64_t ra_max = RL_READAHEAD_BYTES / fs->blocksize;
	char *buf = NULL;
	errcode_t rc;

	rc = build_copies(s, &v, &n, &total);
	if (rc)
		return rc;
	rc = ext2fs_get_memalign(RL_CHUNK_BYTES, 4096, &buf);
	if (rc)
		goto out;
	rl_progress(o, BP_RL_PASS_COPY, "Copying blocks", 0, total);
	for (i = 0; i < n; i++) {
		blk64_t off = 0;

		/* Keep the readahead window RL_READAHEAD_BYTES ahead of the reader. */
		while (ra < n && ra_blocks < done + ra_max) {
			io_channel_cache_readahead(fs->io, v[ra].src, v[ra].len);
			ra_blocks += v[ra].len;
			ra++;
		}
		while (off < v[i].len) {
			blk64_t cnt;

			if (fill && (wdst + fill != v[i].dst + off || fill == chunk)) {
				/* Stop between two writes: the copies are unreferenced. */
				if (rl_canceled()) {
					rc = BP_ET_CANCELED;
					goto out;
				}
				rc = io_channel_write_blk64(fs->io, wdst, (int)fill, buf);
				rep->writes++;
				if (rc)
					goto out;
				done += fill;
				rl_progress(o, BP_RL_PASS_COPY, "Copying blocks", done, total);
				fill = 0;
			}
			if (!fill)
				wdst = v[i].dst + off;
			cnt = MIN(chunk - fill, v[i].len - off);
			rc = io_channel_read_blk64(fs->io, v[i].src + off, (int)cnt,
						   buf + fill * fs->blocksize);
			if (rc)
				goto out;
			fill += cnt;
			off += cnt;
		}
	}
	if (fill) {
		rc = io_channel_write_blk64(fs->io, wdst, (int)fill, buf);
		rep->writes++;
		done += fill;
		rl_progress(o, BP_RL_PASS_COPY, "Copying blocks", done, total);
	}
out:
	ext2fs_free_mem(&buf);
	free(v);
	return rc;
}

/* Free a run, except the part inside [keep_lo, keep_hi) (the region stays reserved). */
static void free_outside(ext2_filsys fs, blk64_t b, blk64_t n, blk64_t keep_lo, blk64_t keep_hi)
{
	blk64_t e = b + n;

	if (b < keep_lo)
		ext2fs_block_alloc_stats_range(fs, b, (blk_t)(MIN(e, keep_lo) - b), -1);
	if (e > keep_hi)
		ext2fs_block_alloc_stats_range(fs, MAX(b, keep_hi), (blk_t)(e - MAX(b, keep_hi)),
					       -1);
}

/* Old blocks of switched items: extent tree blocks, moved data and indirect blocks. */
static void free_old(ext2_filsys fs, const struct rl_stream *s, const uint8_t *committed,
		     blk64_t keep_lo, blk64_t keep_hi)
{
	size_t i, j;

	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];

		if (g->kind == RL_SEG_TREE || !committed[g->item] || g->src == g->dst)
			continue;
		free_outside(fs, g->src, g->len, keep_lo, keep_hi);
	}
	for (i = 0; i < s->nitems; i++) {
		const struct rl_item *it = &s->items[i];

		if (!committed[i] || !it->extents)
			continue;
		for (j = 0; j < it->ntree; j++)
			free_outside(fs, it->tree[j], 1, keep_lo, keep_hi);
	}
}

errcode_t rl_begin(ext2_filsys fs, struct bp_relayout_report *rep, struct bp_err *err)
{
	errcode_t rc;

	/* B0: in progress, alone and durable. */
	rep->writes_began = 1;
	rc = rl_barrier_b0(fs, rep);
	if (rc)
		return bp_err_lib(err, rc, "while marking the filesystem as being changed");
	return 0;
}

/*
 * Mark the free blocks of [start, start+len) in use (persisted by the next
 * B1), and in mark too (if not NULL): the blocks to give back if the run stops.
 */
void rl_reserve(ext2_filsys fs, blk64_t start, blk64_t len, ext2fs_block_bitmap mark)
{
	blk64_t b = start, end = start + len, s, e;

	while (b < end) {
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, b, end - 1, &s))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, s, end - 1, &e))
			e = end;
		ext2fs_block_alloc_stats_range(fs, s, (blk_t)(e - s), +1);
		if (mark)
			ext2fs_mark_block_bitmap_range2(mark, s, (unsigned int)(e - s));
		b = e;
	}
}

/* Free the blocks of [start, start+len) marked in m (unreferenced, reserved by this run). */
void rl_release_marked(ext2_filsys fs, ext2fs_block_bitmap m, blk64_t start, blk64_t len)
{
	blk64_t b = start, end = start + len, s, e;

	while (b < end) {
		if (ext2fs_find_first_set_block_bitmap2(m, b, end - 1, &s))
			break;
		if (ext2fs_find_first_zero_block_bitmap2(m, s, end - 1, &e))
			e = end;
		ext2fs_block_alloc_stats_range(fs, s, (blk_t)(e - s), -1);
		b = e;
	}
}

errcode_t rl_epoch(ext2_filsys fs, struct rl_stream *s, const struct bp_relayout_opts *o,
		   struct bp_relayout_report *rep, struct bp_err *err, blk64_t keep_lo,
		   blk64_t keep_hi)
{
	uint8_t *committed;
	size_t i, ncommit = 0, done = 0;
	errcode_t rc;

	committed = calloc(s->nitems ? s->nitems : 1, 1);
	if (!committed)
		return bp_err_set(err, ENOMEM, "out of memory");

	/*
	 * A signal stops the epoch anywhere before its first commit (BP_ET_CANCELED):
	 * nothing references the copies yet, the caller gives the targets back.
	 */
	rc = copy_blocks(fs, s, o, rep);
	if (rc == BP_ET_CANCELED)
		goto canceled;
	if (rc) {
		bp_err_lib(err, rc, "while copying blocks");
		goto out;
	}
	for (i = 0; i < s->nitems && !rc; i++)
		if (!s->items[i].skipped && s->items[i].extents)
			rc = rl_extent_write_leaves(fs, s, &s->items[i], &rep->writes);
	if (rc) {
		bp_err_lib(err, rc, "while writing new extent leaves");
		goto out;
	}
	for (i = 0; i < s->nitems && !rc; i++)
		if (!s->items[i].skipped)
			rc = rl_ea_copy(fs, s, &s->items[i], &rep->writes);
	if (rc) {
		bp_err_lib(err, rc, "while copying extended attribute blocks");
		goto out;
	}

	if (rl_canceled())
		goto canceled;
	/* B1: copies and allocations durable, superblock untouched. */
	rl_progress(o, BP_RL_PASS_FLUSH, "Flushing", 0, 1);
	rc = rl_barrier_b1(fs, rep);
	if (rc) {
		bp_err_lib(err, rc, "while flushing the copies");
		goto out;
	}

	if (rl_canceled())
		goto canceled;
	/* Commit: one inode write per item; from here on the epoch is finished. */
	for (i = 0; i < s->nitems; i++)
		ncommit += !s->items[i].skipped;
	rl_progress(o, BP_RL_PASS_COMMIT, "Updating mappings", 0, ncommit);
	for (i = 0; i < s->nitems; i++) {
		const struct rl_item *it = &s->items[i];

		if (it->skipped)
			continue;
		if (it->extents) {
			rc = rl_extent_commit(fs, s, it, &rep->writes);
		} else {
			rc = rl_indirect_commit(fs, s, it);
			rep->writes++;
			if (!rc)
				rc = rl_ea_commit_separate(fs, s, it, &rep->writes);
		}
		if (rc) {
			bp_err_lib(err, rc, "while switching inode %u to its new blocks", it->ino);
			goto out;
		}
		committed[i] = 1;
		rl_progress(o, BP_RL_PASS_COMMIT, "Updating mappings", ++done, ncommit);
	}

	/* B2, then the deferred frees (they reach the disk at the next B1 or close). */
	rc = rl_barrier_b2(fs, rep);
	if (rc) {
		bp_err_lib(err, rc, "while flushing the new mappings");
		goto out;
	}
	free_old(fs, s, committed, keep_lo, keep_hi);
	rl_progress(o, BP_RL_PASS_FLUSH, "Flushing", 1, 1);
out:
	free(committed);
	return rc;
canceled:
	free(committed);
	return bp_err_set(err, BP_ET_CANCELED, "stopped by a signal before switching any file");
}
