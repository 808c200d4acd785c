// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * indirect.c --- copy-on-write switch of a block-mapped item
 *
 * The traced data blocks of the item move, and with them every indirect
 * block mapping one of them (bootset.c); raw copies are durable before this
 * runs. ext2fs_block_iterate3 calls us for an indirect block before it
 * reads it: for a moved one we return the new copy, the iterator rewrites
 * that copy's child pointers and writes it (never the live one). Every
 * indirect block on the path of a moved data block moves too, so boot-set
 * moves never write a live indirect block. Eviction (evict.c) moves data
 * blocks alone: their indirect blocks stay and get the changed pointers
 * rewritten in place, which is safe too: each 4-byte pointer
 * lies in one sector and both its old and new targets hold the data until
 * after B2, so any torn or reordered subset of these writes is a valid
 * mapping (doc/relayout-safety.md §1, §4.6.2). The inode, written at the end, commits
 * the rest (doc/relayout-safety.md §4.6.2).
 */
#include <errno.h>

#include <ext2fs/ext2fs.h>

#include "rl-int.h"

struct ind_ctx {
	const struct rl_stream *s;
	const struct rl_item *it;
	size_t cur;		/* cursor into it->segs (visit order) */
	errcode_t rc;
};

static int find_ind(struct ind_ctx *c, blk64_t old, blk64_t *dst)
{
	size_t n = c->it->nsegs, k;

	for (k = 0; k < n; k++) {
		const struct rl_seg *g = &c->s->segs[c->it->segs[(c->cur + k) % n]];

		if (g->kind == RL_SEG_IND && g->src == old) {
			*dst = g->dst;
			c->cur = (c->cur + k + 1) % n;
			return 1;
		}
	}
	return 0;
}

static int find_data(struct ind_ctx *c, blk64_t lblk, blk64_t old, blk64_t *dst)
{
	size_t n = c->it->nsegs, k;

	for (k = 0; k < n; k++) {
		const struct rl_seg *g = &c->s->segs[c->it->segs[(c->cur + k) % n]];

		if (g->kind == RL_SEG_DATA && lblk >= g->lblk && lblk < g->lblk + g->len &&
		    g->src + (lblk - g->lblk) == old) {
			*dst = g->dst + (lblk - g->lblk);
			c->cur = (c->cur + k) % n;
			return 1;
		}
	}
	return 0;
}

static int switch_cb(ext2_filsys fs _unused_, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		     blk64_t ref_blk _unused_, int ref_offset _unused_, void *priv)
{
	struct ind_ctx *c = priv;
	blk64_t dst;
	int ok;

	if (blockcnt < 0)
		ok = find_ind(c, *blocknr, &dst);
	else
		ok = find_data(c, (blk64_t)blockcnt, *blocknr, &dst);
	if (!ok && !c->it->whole)
		return 0;	/* eviction: blocks outside the region stay */
	if (!ok) {
		/* The mapping changed since planning: stop (nothing live was rewritten). */
		c->rc = EXT2_ET_INODE_CORRUPTED;
		return BLOCK_ABORT;
	}
	if (dst > 0xffffffffULL) {
		c->rc = EXT2_ET_CANT_USE_LEGACY_BITMAPS;
		return BLOCK_ABORT;
	}
	if (dst == *blocknr)
		return 0;
	*blocknr = dst;
	return BLOCK_CHANGED;
}

errcode_t rl_indirect_commit(ext2_filsys fs, const struct rl_stream *s, const struct rl_item *it)
{
	struct ind_ctx c = { .s = s, .it = it };
	errcode_t rc;

	rc = ext2fs_block_iterate3(fs, it->ino, 0, NULL, switch_cb, &c);
	return rc ? rc : c.rc;
}
