// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plan.c --- size the region, place it, give every boot-stream segment its target
 *
 * The region is one run of free blocks: the lowest one large enough (outer
 * tracks of a disk), or the one --region names. When no such run exists
 * (without flex_bg a run ends at the next group's metadata), the region is
 * the lowest run of free blocks and fixed group metadata (fixed.c) holding
 * enough free blocks: it steps over the metadata, and a data segment
 * crossing such a hole is split in two (an extent item then gets one more
 * extent; a tree slot, written whole, goes past the hole). Segments are
 * laid out in stream order; an extent item's new leaves (if it needs more
 * than the 4 extents i_block[] holds) go just before its first data block.
 * Placement and leaf counts depend on each other, so the layout is repeated
 * until it is stable (in practice once or twice). Pure: reads the bitmap,
 * writes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "rl-int.h"

#define RL_PLAN_ROUNDS 8

/*
 * Blocks the stream needs, capped: at most RL_REGION_MAX (2^31 - 1 blocks),
 * so every later count fits the 32-bit lengths of the bitmap and alloc_stats
 * calls, and every start + length stays below the filesystem size.
 */
#define RL_REGION_MAX ((uint64_t)INT32_MAX)

static uint64_t region_size(const struct rl_stream *s)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->nsegs; i++) {
		if (s->items[s->segs[i].item].skipped)
			continue;
		if (s->segs[i].len > RL_REGION_MAX - n)
			return UINT64_MAX;
		n += s->segs[i].len;
	}
	return n;
}

/* Lowest run of at least n free blocks; largest run seen in *largest. */
static errcode_t find_free_run(ext2_filsys fs, blk64_t n, blk64_t *ret, blk64_t *largest)
{
	blk64_t b = fs->super->s_first_data_block, end = ext2fs_blocks_count(fs->super) - 1;
	blk64_t s, e;

	*largest = 0;
	while (b <= end) {
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, b, end, &s))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, s, end, &e))
			e = end + 1;
		if (e - s > *largest)
			*largest = e - s;
		if (e - s >= n) {
			*ret = s;
			return 0;
		}
		b = e;
	}
	return BP_ET_NO_SPACE;
}

/*
 * Lowest run of free blocks and fixed metadata between them (starting and
 * ending on a free block) that holds n free blocks; its length in *span.
 */
static errcode_t find_span_run(ext2_filsys fs, ext2fs_block_bitmap fixed, blk64_t n,
			       blk64_t *ret, blk64_t *span)
{
	blk64_t b = fs->super->s_first_data_block, total = ext2fs_blocks_count(fs->super);
	blk64_t s, e, p, got;

	while (b < total) {
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, b, total - 1, &s))
			break;
		for (p = s, got = 0;;) {
			if (ext2fs_find_first_set_block_bitmap2(fs->block_map, p, total - 1, &e))
				e = total;
			if (e - p >= n - got) {
				*ret = s;
				*span = p + (n - got) - s;
				return 0;
			}
			got += e - p;
			/* In use: go on past fixed metadata only, onto a free block. */
			p = rl_fixed_skip(fixed, e, total);
			if (p == e || p >= total || ext2fs_test_block_bitmap2(fs->block_map, p)) {
				b = MAX(p, e + 1);
				break;
			}
		}
	}
	return BP_ET_NO_SPACE;
}

/* No free run: the cheapest window to clear (evict.c), reported in rep. */
static errcode_t choose_window(const struct rl_stream *s, blk64_t n, blk64_t fixed,
			       blk64_t *start, blk64_t *span, struct bp_relayout_report *rep,
			       struct bp_err *err)
{
	uint64_t cost = 0;
	errcode_t rc;

	rc = rl_window_choose(s->fs, s->ow, n + RL_EVICT_SLACK, fixed, start, span, &cost, err);
	if (rc)
		return rc;
	rep->needs_eviction = 1;
	rep->window_blocks = *span;
	rep->evicted_blocks = cost;
	return 0;
}

/* The region for n blocks: its start, and its length in *span (n plus any holes). */
static errcode_t choose_region(const struct rl_stream *s, const struct bp_relayout_opts *o,
			       ext2fs_block_bitmap fixed, blk64_t n, blk64_t *start,
			       blk64_t *span, struct bp_relayout_report *rep, struct bp_err *err)
{
	ext2_filsys fs = s->fs;
	blk64_t total = ext2fs_blocks_count(fs->super), largest = 0;

	rep->needs_eviction = 0;
	rep->window_blocks = n;
	rep->evicted_blocks = 0;
	*span = n;

	if (o->region_start) {
		blk64_t st = o->region_start, sp;

		if (o->region_len && o->region_len < n)
			return bp_err_set(err, BP_ET_NO_SPACE,
					  "the region %llu:%llu is too small: the boot set needs "
					  "%llu blocks",
					  (unsigned long long)st, (unsigned long long)o->region_len,
					  (unsigned long long)n);
		/* st + n may wrap (--region 18446744073709551615): compare differences. */
		if (st < fs->super->s_first_data_block || st >= total || n > total - st)
			return bp_err_set(err, BP_ET_NO_SPACE,
					  "the region %llu+%llu lies outside the filesystem "
					  "(%llu blocks)",
					  (unsigned long long)st, (unsigned long long)n,
					  (unsigned long long)total);
		if (ext2fs_test_block_bitmap2(fixed, st))
			return bp_err_set(err, BP_ET_NO_SPACE,
					  "the region %llu+%llu holds block %llu, which cannot move "
					  "(filesystem metadata); choose another",
					  (unsigned long long)st, (unsigned long long)n,
					  (unsigned long long)st);
		/* The boot set steps over fixed metadata in the region. */
		sp = rl_fixed_span(fixed, st, n, total);
		if (!sp || (o->region_len && o->region_len < sp))
			return bp_err_set(err, BP_ET_NO_SPACE,
					  "the region %llu:%llu is too small: the boot set needs "
					  "%llu blocks%s",
					  (unsigned long long)st, (unsigned long long)o->region_len,
					  (unsigned long long)(sp ? sp : n),
					  sp > n ? " with the fixed metadata it steps over" : "");
		*start = st;
		*span = sp;
		rep->window_blocks = sp;
		if (rl_range_free(fs, fixed, st, sp))
			return 0;
		if (n + RL_EVICT_SLACK > total - st)
			return bp_err_set(err, BP_ET_NO_SPACE,
					  "the region %llu+%llu is not free and too close to the end "
					  "of the filesystem (%llu blocks) to be cleared",
					  (unsigned long long)st, (unsigned long long)n,
					  (unsigned long long)total);
		return choose_window(s, n, st, start, span, rep, err);
	}
	if (!find_free_run(fs, n, start, &largest))
		return 0;
	/* None without fixed metadata (no flex_bg: groups are small): step over it. */
	if (!find_span_run(fs, fixed, n, start, span)) {
		rep->window_blocks = *span;
		return 0;
	}
	return choose_window(s, n, 0, start, span, rep, err);
}

static void skip_item(struct rl_stream *s, struct rl_item *it, enum bp_rl_skip why)
{
	it->skipped = 1;
	it->skip = why;
	if (it->is_dir) {
		s->dirs--;
	} else {
		s->files--;
		s->skipped[why]++;
	}
}

/* Split data segment i after its first len blocks; the rest follows it in the stream. */
static errcode_t split_seg(struct rl_stream *s, size_t i, blk64_t len)
{
	struct rl_seg rest = s->segs[i];
	struct rl_item *it = &s->items[rest.item];
	size_t j, k = SIZE_MAX;

	if (bp_array_reserve((void **)&s->segs, &s->asegs, s->nsegs, sizeof(*s->segs), 16) ||
	    bp_array_reserve((void **)&it->segs, &it->asegs, it->nsegs, sizeof(size_t), 16))
		return ENOMEM;
	memmove(&s->segs[i + 2], &s->segs[i + 1], (s->nsegs - i - 1) * sizeof(*s->segs));
	s->nsegs++;
	s->segs[i].len = len;
	rest.lblk += len;
	rest.src += len;
	rest.len -= len;
	s->segs[i + 1] = rest;
	for (j = 0; j < s->nitems; j++) {
		struct rl_item *t = &s->items[j];
		size_t m;

		for (m = 0; m < t->nsegs; m++) {
			if (t->segs[m] > i)
				t->segs[m]++;
			else if (t->segs[m] == i)
				k = m;
		}
		if (t->tree_seg != SIZE_MAX && t->tree_seg > i)
			t->tree_seg++;
		if (t->ea_seg != SIZE_MAX && t->ea_seg > i)
			t->ea_seg++;
	}
	if (k == SIZE_MAX)
		return EINVAL;
	/* The item's segments stay in stream order. */
	memmove(&it->segs[k + 2], &it->segs[k + 1], (it->nsegs - k - 1) * sizeof(size_t));
	it->segs[k + 1] = i + 1;
	it->nsegs++;
	return 0;
}

/*
 * Give every segment its place from start on, stepping over fixed metadata:
 * a data segment crossing it is split, a tree slot (written whole) goes past
 * it and the free blocks it leaves are counted in *waste. *end: the block
 * after the last one placed.
 */
static errcode_t place(struct rl_stream *s, blk64_t start, ext2fs_block_bitmap fixed,
		       blk64_t *end, blk64_t *waste)
{
	blk64_t next = start, total = ext2fs_blocks_count(s->fs->super);
	size_t i;
	errcode_t rc;

	*waste = 0;
	for (i = 0; i < s->nsegs; i++) {
		struct rl_seg *g = &s->segs[i];
		blk64_t room;

		if (s->items[g->item].skipped || !g->len)
			continue;
		next = rl_fixed_skip(fixed, next, total);
		room = rl_fixed_room(fixed, next, total);
		if (g->len > room && g->kind == RL_SEG_DATA && room) {
			rc = split_seg(s, i, room);
			if (rc)
				return rc;
			g = &s->segs[i];
		}
		while (g->len > room && next < total) {
			*waste += room;
			next = rl_fixed_skip(fixed, next + room, total);
			room = rl_fixed_room(fixed, next, total);
		}
		if (g->len > room)
			return BP_ET_NO_SPACE;
		g->dst = next;
		next += g->len;
	}
	*end = next;
	return 0;
}

static errcode_t layout(struct rl_stream *s, blk64_t start, ext2fs_block_bitmap fixed,
			blk64_t *end, blk64_t *waste, int *changed)
{
	blk64_t next = start;
	size_t i;
	errcode_t rc;

	*changed = 0;
	rc = place(s, start, fixed, &next, waste);
	if (rc)
		return rc;
	*end = next;
	for (i = 0; i < s->nitems; i++) {
		struct rl_item *it = &s->items[i];
		uint32_t leaves;

		if (it->skipped)
			continue;
		if (!it->extents) {
			if (next > 0xffffffffULL) {
				skip_item(s, it, BP_RL_SKIP_ABOVE_32BIT);
				*changed = 1;
			}
			continue;
		}
		rc = rl_extent_new_map(s->fs, s, it);
		if (rc)
			return rc;
		leaves = rl_extent_tree_blocks(s->fs, it->nnew);
		if (leaves == RL_TREE_TOO_DEEP) {
			skip_item(s, it, BP_RL_SKIP_TOO_FRAGMENTED);
			*changed = 1;
			continue;
		}
		if (leaves != it->new_leaves) {
			it->new_leaves = leaves;
			s->segs[it->tree_seg].len = leaves;
			*changed = 1;
		}
	}
	return 0;
}

errcode_t rl_plan(struct rl_stream *s, const struct bp_relayout_opts *o, blk64_t fixed_start,
		  struct bp_relayout_report *rep, struct bp_err *err)
{
	ext2fs_block_bitmap fixed = NULL;
	blk64_t start = 0, n = 0, span = 0, end = 0, waste = 0, extra = 0;
	size_t i;
	int round, changed = 1;
	errcode_t rc;

	rc = rl_fixed_build(s->fs, &fixed);
	if (rc)
		return bp_err_lib(err, rc, "while listing the fixed metadata");
	rep->discontig_before = rl_stream_discontig(s, 0, &rep->bootset_blocks);
	rep->discontig_fixed_before = rl_stream_discontig_fixed(s, 0, fixed);
	/* Already one stream apart from fixed metadata (e.g. a second run): nothing to gain. */
	if (rep->discontig_before == rep->discontig_fixed_before && !fixed_start)
		changed = 0;
	for (round = 0; round < RL_PLAN_ROUNDS && changed; round++) {
		if (rl_canceled())
			return bp_err_set(err, BP_ET_CANCELED, "canceled while planning");
		n = region_size(s);
		if (!n)
			break;
		if (n == UINT64_MAX || n >= ext2fs_blocks_count(s->fs->super) - extra)
			rc = bp_err_set(err, BP_ET_NO_SPACE,
					"the boot set is larger than %llu blocks or than the "
					"filesystem",
					(unsigned long long)RL_REGION_MAX);
		else if (fixed_start)
			start = fixed_start;
		else
			rc = choose_region(s, o, fixed, n + extra, &start, &span, rep, err);
		if (rc)
			goto out;
		rc = layout(s, start, fixed, &end, &waste, &changed);
		if (rc) {
			bp_err_lib(err, rc, "while planning the new extent trees");
			goto out;
		}
		/* Tree slots moved past a hole left free blocks: the region needs them too. */
		if (!fixed_start && waste > extra) {
			extra = waste;
			changed = 1;
		}
		if (!fixed_start && end - start > span)
			changed = 1;
	}
	if (rep->discontig_before == rep->discontig_fixed_before && !fixed_start)
		n = 0;
	if (changed && n) {
		rc = bp_err_set(err, EAGAIN, "the plan did not converge after %d rounds",
				RL_PLAN_ROUNDS);
		goto out;
	}
	rep->region_start = n ? start : 0;
	rep->region_len = n ? end - start : 0;
	rep->discontig_after = rl_stream_discontig(s, 1, NULL);
	rep->discontig_fixed_after = rl_stream_discontig_fixed(s, 1, fixed);
	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];

		if (s->items[g->item].skipped)
			continue;
		if (g->kind == RL_SEG_DATA)
			rep->blocks_to_move += g->len;
		else
			rep->tree_blocks += g->len;
	}
	rep->bytes_to_move = (rep->blocks_to_move + rep->tree_blocks) * s->fs->blocksize;
	rep->files_traced = s->files_traced;
	rep->files_moved = s->files;
	rep->dirs_moved = s->dirs;
	for (i = 0; i < BP_RL_SKIP_NR; i++)
		rep->files_skipped[i] = s->skipped[i];
	/* Crossing fixed metadata is no fault of the layout: compare the rest. */
	rep->nothing_to_do = !n || (!fixed_start && rep->discontig_before -
				    rep->discontig_fixed_before <= rep->discontig_after -
				    rep->discontig_fixed_after);
	if (rep->nothing_to_do) {
		rep->files_skipped[BP_RL_SKIP_IN_PLACE] += s->files;
		rep->files_moved = 0;
		rep->dirs_moved = 0;
		rep->blocks_to_move = 0;
		rep->tree_blocks = 0;
		rep->bytes_to_move = 0;
		rep->region_start = 0;
		rep->region_len = 0;
		rep->discontig_after = rep->discontig_before;
		rep->discontig_fixed_after = rep->discontig_fixed_before;
	}
out:
	ext2fs_free_block_bitmap(fixed);
	return rc;
}
