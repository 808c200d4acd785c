// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plan.c --- size the region, place it, give every boot-stream segment its target
 *
 * The region is one run of free blocks: the lowest one large enough (outer
 * tracks of a disk), or the one --region names. Segments are laid out in
 * stream order; an extent item's new leaves (if it needs more than the 4
 * extents i_block[] holds) go just before its first data block. Placement
 * and leaf counts depend on each other, so the layout is repeated until it
 * is stable (in practice once or twice). Pure: reads the bitmap, writes
 * nothing.
 */
#include <errno.h>
#include <stdio.h>

#include <ext2fs/ext2fs.h>

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

/* No free run: the cheapest window to clear (evict.c), reported in rep. */
static errcode_t choose_window(const struct rl_stream *s, blk64_t n, blk64_t fixed,
			       blk64_t *start, struct bp_relayout_report *rep, struct bp_err *err)
{
	uint64_t cost = 0;
	errcode_t rc;

	rc = rl_window_choose(s->fs, n + RL_EVICT_SLACK, fixed, start, &cost, err);
	if (rc)
		return rc;
	rep->needs_eviction = 1;
	rep->window_blocks = n + RL_EVICT_SLACK;
	rep->evicted_blocks = cost;
	return 0;
}

static errcode_t choose_region(const struct rl_stream *s, const struct bp_relayout_opts *o,
			       blk64_t n, blk64_t *start, struct bp_relayout_report *rep,
			       struct bp_err *err)
{
	ext2_filsys fs = s->fs;
	blk64_t total = ext2fs_blocks_count(fs->super), largest = 0;

	rep->needs_eviction = 0;
	rep->window_blocks = n;
	rep->evicted_blocks = 0;

	if (o->region_start) {
		blk64_t st = o->region_start;

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
		*start = st;
		if (ext2fs_test_block_bitmap_range2(fs->block_map, st, (unsigned int)n))
			return 0;
		if (n + RL_EVICT_SLACK > total - st)
			return bp_err_set(err, BP_ET_NO_SPACE,
					  "the region %llu+%llu is not free and too close to the end "
					  "of the filesystem (%llu blocks) to be cleared",
					  (unsigned long long)st, (unsigned long long)n,
					  (unsigned long long)total);
		return choose_window(s, n, st, start, rep, err);
	}
	if (!find_free_run(fs, n, start, &largest))
		return 0;
	return choose_window(s, n, 0, start, rep, err);
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

static errcode_t layout(struct rl_stream *s, blk64_t start, int *changed)
{
	blk64_t next = start;
	size_t i;
	errcode_t rc;

	*changed = 0;
	for (i = 0; i < s->nsegs; i++) {
		struct rl_seg *g = &s->segs[i];

		if (s->items[g->item].skipped)
			continue;
		g->dst = next;
		next += g->len;
	}
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
	blk64_t start = 0, n = 0;
	size_t i;
	int round, changed = 1;
	errcode_t rc;

	rep->discontig_before = rl_stream_discontig(s, 0, &rep->bootset_blocks);
	/* Already one stream (e.g. a second run): nothing could get better. */
	if (!rep->discontig_before && !fixed_start)
		changed = 0;
	for (round = 0; round < RL_PLAN_ROUNDS && changed; round++) {
		if (rl_canceled())
			return bp_err_set(err, BP_ET_CANCELED, "canceled while planning");
		n = region_size(s);
		if (!n)
			break;
		if (n == UINT64_MAX || n >= ext2fs_blocks_count(s->fs->super))
			return bp_err_set(err, BP_ET_NO_SPACE,
					  "the boot set is larger than %llu blocks or than the "
					  "filesystem",
					  (unsigned long long)RL_REGION_MAX);
		rc = 0;
		if (fixed_start)
			start = fixed_start;
		else
			rc = choose_region(s, o, n, &start, rep, err);
		if (rc)
			return rc;
		rc = layout(s, start, &changed);
		if (rc)
			return bp_err_lib(err, rc, "while planning the new extent trees");
	}
	if (!rep->discontig_before && !fixed_start)
		n = 0;
	if (changed && n)
		return bp_err_set(err, EAGAIN, "the plan did not converge after %d rounds",
				  RL_PLAN_ROUNDS);
	rep->region_start = n ? start : 0;
	rep->region_len = n;
	rep->discontig_after = rl_stream_discontig(s, 1, NULL);
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
	rep->nothing_to_do = !n || (!fixed_start && rep->discontig_before <= rep->discontig_after);
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
	}
	return 0;
}
