// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * evict.c --- make room: pick the cheapest window, move other files out of it
 *
 * When no free run is large enough, the region is the window of the needed
 * size with the fewest blocks in use and no fixed metadata inside (group
 * descriptors, bitmaps, inode tables, special inodes, MMP, shared or any
 * xattr blocks, files whose new tree would be too deep); if there is none
 * (without flex_bg, a group is smaller than the boot set), a window that
 * steps over fixed group metadata (fixed.c) but holds none of the other
 * blocks that cannot move, and as many blocks besides. The blocks that
 * cannot move and the owners of the window's blocks are asked of the
 * ownership map owner.c built (imm, rl_owners_in()): no inode is walked
 * again. Eviction is its own epoch with the same discipline as the fill
 * (doc/relayout-safety.md §4.9): targets outside the window are allocated,
 * blocks copied, B1, one inode write per owner (a new
 * extent tree built copy-on-write; block-mapped pointers switched through
 * copies), B2. Evicted blocks are never freed: they stay reserved for the
 * fill, so nothing else can take them and no block has two owners.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "ext2file.h"
#include "rl-int.h"

#define RL_WINDOW_ROUNDS 16

static void mark_range(ext2fs_block_bitmap m, blk64_t b, blk64_t n)
{
	if (n)
		ext2fs_mark_block_bitmap_range2(m, b, (unsigned int)n);
}

/* Blocks no relayout may move, as the ownership walk found them (a copy: rounds add to it). */
static errcode_t copy_immovable(const struct rl_owners *ow, ext2fs_block_bitmap *ret)
{
	*ret = NULL;
	if (!ow || !ow->imm)
		return EINVAL;	/* rl_owners_build() first */
	return ext2fs_copy_bitmap(ow->imm, ret);
}

/* Lowest window of n blocks without immovable blocks and with the fewest in use. */
static errcode_t choose_window(ext2_filsys fs, ext2fs_block_bitmap imm, blk64_t n,
			       blk64_t *start, uint64_t *cost)
{
	blk64_t first = fs->super->s_first_data_block, total = ext2fs_blocks_count(fs->super);
	blk64_t b, best = 0;
	uint64_t used = 0, fixed = 0, best_used = UINT64_MAX;

	if (n > total - first)
		return BP_ET_NO_SPACE;
	for (b = first; b < total; b++) {
		used += !!ext2fs_test_block_bitmap2(fs->block_map, b);
		fixed += !!ext2fs_test_block_bitmap2(imm, b);
		if (b >= first + n) {
			used -= !!ext2fs_test_block_bitmap2(fs->block_map, b - n);
			fixed -= !!ext2fs_test_block_bitmap2(imm, b - n);
		}
		if (b + 1 >= first + n && !fixed && used < best_used) {
			best_used = used;
			best = b + 1 - n;
		}
	}
	if (best_used == UINT64_MAX)
		return BP_ET_NO_SPACE;
	*start = best;
	*cost = best_used;
	return 0;
}

/*
 * As choose_window, but the window steps over fixed group metadata (holes):
 * n blocks that are not holes, none immovable; its length in *span.
 */
static errcode_t choose_window_span(ext2_filsys fs, ext2fs_block_bitmap imm,
				    ext2fs_block_bitmap holes, blk64_t n, blk64_t *start,
				    blk64_t *span, uint64_t *cost)
{
	blk64_t total = ext2fs_blocks_count(fs->super), lo, b, best = 0, best_span = 0;
	uint64_t cnt = 0, used = 0, fixed = 0, best_used = UINT64_MAX;

	lo = rl_fixed_skip(holes, fs->super->s_first_data_block, total);
	for (b = lo; b < total; b++) {
		if (ext2fs_test_block_bitmap2(holes, b))
			continue;
		cnt++;
		used += !!ext2fs_test_block_bitmap2(fs->block_map, b);
		fixed += !!ext2fs_test_block_bitmap2(imm, b);
		if (cnt > n) {
			used -= !!ext2fs_test_block_bitmap2(fs->block_map, lo);
			fixed -= !!ext2fs_test_block_bitmap2(imm, lo);
			cnt--;
			lo = rl_fixed_skip(holes, lo + 1, total);
		}
		if (cnt == n && !fixed && used < best_used) {
			best_used = used;
			best = lo;
			best_span = b + 1 - lo;
		}
	}
	if (best_used == UINT64_MAX)
		return BP_ET_NO_SPACE;
	*start = best;
	*span = best_span;
	*cost = best_used;
	return 0;
}

static int in_win(blk64_t b, blk64_t len, blk64_t ws, blk64_t we)
{
	return b < we && b + len > ws;
}

static int item_in_window(const struct rl_item *it, blk64_t ws, blk64_t we)
{
	size_t i;

	for (i = 0; i < it->nmap; i++)
		if (in_win(it->map[i].pblk, it->map[i].len, ws, we))
			return 1;
	for (i = 0; i < it->ntree; i++)
		if (in_win(it->tree[i], 1, ws, we))
			return 1;
	return 0;
}

static void drop_last_item(struct rl_stream *s)
{
	struct rl_item *it = &s->items[--s->nitems];

	free(it->map);
	free(it->tree);
	free(it->nmap_new);
	free(it->segs);
	free(it->cov);
	memset(it, 0, sizeof(*it));
}

/*
 * Items owning blocks in [ws, we). *blocked = 1 if an owner cannot be moved;
 * its blocks in the window are then added to imm.
 */
static errcode_t scan_owners(ext2_filsys fs, const struct rl_owners *ow, blk64_t ws, blk64_t we,
			     ext2fs_block_bitmap imm, struct rl_stream *s, int *blocked)
{
	struct ext2_inode_large inode;
	ext2_ino_t *inos = NULL;
	size_t ninos = 0, k;
	uint32_t idx;
	errcode_t rc;

	*blocked = 0;
	/* Who owns blocks of the window: asked of the map, not found by another scan. */
	rc = rl_owners_in(ow, ws, we, &inos, &ninos);
	for (k = 0; k < ninos && !rc; k++) {
		ext2_ino_t ino = inos[k];
		struct rl_item *it;
		blk64_t acl;
		size_t i, hits = 0;

		if (rl_canceled()) {
			rc = BP_ET_CANCELED;
			break;
		}
		rc = bp_ext2_read_inode(fs, ino, &inode);
		if (rc)
			break;
		acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode);
		if (acl && acl >= ws && acl < we) {
			ext2fs_mark_block_bitmap2(imm, acl);
			*blocked = 1;
		}
		if (!bp_ext2_has_blocks(fs, &inode))
			continue;
		rc = rl_item_load_any(s, ino, &idx);
		if (rc)
			break;
		it = &s->items[idx];
		if (it->skipped || !item_in_window(it, ws, we)) {
			drop_last_item(s);
			continue;
		}
		for (i = 0; i < it->nmap; i++)
			hits += in_win(it->map[i].pblk, it->map[i].len, ws, we);
		if (it->extents && rl_extent_leaves_needed(fs, it->nmap + 2 * hits + 2) > 4 &&
		    hits) {
			/* Its new tree could need depth 2: leave it where it is. */
			for (i = 0; i < it->nmap; i++) {
				blk64_t lo = MAX(it->map[i].pblk, ws);
				blk64_t hi = MIN(it->map[i].pblk + it->map[i].len, we);

				if (lo < hi)
					mark_range(imm, lo, hi - lo);
			}
			*blocked = 1;
			drop_last_item(s);
		}
	}
	free(inos);
	return rc;
}

errcode_t rl_window_choose(ext2_filsys fs, const struct rl_owners *ow, blk64_t n, blk64_t fixed,
			   blk64_t *start, blk64_t *span, uint64_t *cost, struct bp_err *err)
{
	ext2fs_block_bitmap imm = NULL, holes = NULL;
	struct rl_stream s;
	int round, blocked = 1;
	errcode_t rc;

	rc = copy_immovable(ow, &imm);
	if (!rc)
		rc = rl_fixed_build(fs, &holes);
	if (rc) {
		bp_err_lib(err, rc, "while listing the blocks that cannot move");
		goto out;
	}
	for (round = 0; round < RL_WINDOW_ROUNDS && blocked; round++) {
		*span = n;
		if (fixed) {
			blk64_t b, total = ext2fs_blocks_count(fs->super);

			*start = fixed;
			*cost = 0;
			/* The region steps over fixed group metadata. */
			if (fixed < total && !ext2fs_test_block_bitmap2(holes, fixed))
				*span = rl_fixed_span(holes, fixed, n, total);
			if (fixed >= total || n > total - fixed || !*span) {
				rc = bp_err_set(err, BP_ET_NO_SPACE,
						"the region %llu+%llu lies outside the filesystem",
						(unsigned long long)fixed, (unsigned long long)n);
				goto out;
			}
			for (b = fixed; b < fixed + *span; b++) {
				if (b > fixed && ext2fs_test_block_bitmap2(holes, b))
					continue;
				if (ext2fs_test_block_bitmap2(imm, b)) {
					rc = bp_err_set(err, BP_ET_NO_SPACE,
							"the region %llu+%llu holds block %llu, which "
							"cannot move (filesystem metadata, a special "
							"inode or an xattr block); choose another",
							(unsigned long long)fixed,
							(unsigned long long)n, (unsigned long long)b);
					goto out;
				}
				*cost += !!ext2fs_test_block_bitmap2(fs->block_map, b);
			}
		} else if (choose_window(fs, imm, n, start, cost) &&
			   choose_window_span(fs, imm, holes, n, start, span, cost)) {
			rc = bp_err_set(err, BP_ET_NO_SPACE,
					"no window of %llu blocks without blocks that cannot move "
					"(special inodes such as the journal, xattr blocks) for the "
					"boot set",
					(unsigned long long)n);
			goto out;
		}
		memset(&s, 0, sizeof(s));
		s.fs = fs;
		rc = scan_owners(fs, ow, *start, *start + *span, imm, &s, &blocked);
		rl_stream_free(&s);
		if (rc) {
			bp_err_lib(err, rc, "while finding the owners of blocks %llu+%llu",
				   (unsigned long long)*start, (unsigned long long)*span);
			goto out;
		}
	}
	if (blocked) {
		rc = bp_err_set(err, BP_ET_NO_SPACE,
				"no window of %llu blocks whose files can all be moved out",
				(unsigned long long)n);
	} else {
		/* Room outside the window for the evicted blocks (and their new leaves). */
		uint64_t sb_free = ext2fs_free_blocks_count(fs->super), in_win = n - *cost;
		/* The superblock's count may be stale or wrong: never let it wrap. */
		uint64_t free_out = sb_free > in_win ? sb_free - in_win : 0;

		if (free_out < *cost + *cost / 64 + 64)
			rc = bp_err_set(err, BP_ET_NO_SPACE,
					"not enough free space to make room for the boot set: "
					"%llu blocks would move out of blocks %llu+%llu, %llu are "
					"free elsewhere",
					(unsigned long long)*cost, (unsigned long long)*start,
					(unsigned long long)n, (unsigned long long)free_out);
	}
out:
	if (holes)
		ext2fs_free_block_bitmap(holes);
	if (imm)
		ext2fs_free_block_bitmap(imm);
	return rc;
}

/*
 * Where evicted blocks go: free runs of map (the block bitmap, or in a trial a
 * copy of it with the window reserved), found with the bitmap's own bounded
 * searches. Never a library allocator: with EXT2_NEWRANGE_MIN_LENGTH,
 * ext2fs_new_range() of libext2fs 1.47.0 loops forever when no free run is
 * long enough and the filesystem's last block is in use (a full, fragmented
 * root). First fit from a cursor that follows the allocations, else the
 * longest run there is (pieces). Eviction only takes blocks, so the longest
 * free run only shrinks: max_run, an upper bound on it, spares most scans.
 */
struct out_alloc {
	ext2_filsys fs;
	ext2fs_block_bitmap map;
	int trial;		/* mark map only: fs and its bitmap stay as they are */
	blk64_t cursor;
	blk64_t max_run;	/* no free run of map is longer */
};

/*
 * First free run of at least want blocks in [lo, hi), looking from `from` to
 * hi, then from lo up to `from`; the longest run seen goes to *ls, *ll. Each
 * step moves past one free run, so the loops end.
 */
static int find_run(ext2fs_block_bitmap map, blk64_t lo, blk64_t hi, blk64_t from, blk64_t want,
		    blk64_t *rs, blk64_t *ls, blk64_t *ll)
{
	int pass;

	*ll = 0;
	for (pass = 0; pass < 2; pass++) {
		blk64_t b = pass ? lo : from, stop = pass ? from : hi, s, e;

		while (b < stop) {
			if (ext2fs_find_first_zero_block_bitmap2(map, b, stop - 1, &s))
				break;
			if (ext2fs_find_first_set_block_bitmap2(map, s, hi - 1, &e))
				e = hi;
			if (e - s > *ll) {
				*ls = s;
				*ll = e - s;
			}
			if (e - s >= want) {
				*rs = s;
				return 1;
			}
			b = e;
		}
	}
	return 0;
}

/*
 * Target blocks outside the window for len blocks: *p, *l (*l <= len, one
 * piece of several when no run is long enough). whole: all len or nothing.
 */
static errcode_t alloc_out(struct out_alloc *a, blk64_t len, int below32, int whole, blk64_t *p,
			   blk64_t *l)
{
	ext2_filsys fs = a->fs;
	blk64_t lo = fs->super->s_first_data_block, hi = ext2fs_blocks_count(fs->super);
	blk64_t want, rs = 0, ls = 0, ll = 0, from;

	if (below32 && hi > 0x100000000ULL)
		hi = 0x100000000ULL;
	if (lo >= hi || !len)
		return BP_ET_NO_SPACE;
	from = a->cursor >= lo && a->cursor < hi ? a->cursor : lo;
	want = whole ? len : MIN(len, a->max_run);
	if (!want)
		return BP_ET_NO_SPACE;
	if (find_run(a->map, lo, hi, from, want, &rs, &ls, &ll)) {
		/* At least want blocks free from rs: take up to len of them. */
		blk64_t end = MIN(hi, rs + len), e;

		if (ext2fs_find_first_set_block_bitmap2(a->map, rs, end - 1, &e))
			e = end;
		*p = rs;
		*l = e - rs;
	} else {
		if (hi == ext2fs_blocks_count(fs->super))
			a->max_run = ll;
		if (whole || !ll)
			return BP_ET_NO_SPACE;
		*p = ls;
		*l = MIN(ll, len);
	}
	if (below32 && *p + *l > 0xffffffffULL)
		return BP_ET_NO_SPACE;
	if (a->trial)
		ext2fs_mark_block_bitmap_range2(a->map, *p, (unsigned int)*l);
	else
		ext2fs_block_alloc_stats_range(fs, *p, (blk_t)*l, +1);
	a->cursor = *p + *l;
	return 0;
}

static errcode_t plan_item(struct out_alloc *a, struct rl_stream *s, uint32_t idx, blk64_t ws,
			   blk64_t we, uint64_t *moved)
{
	ext2_filsys fs = a->fs;
	size_t i;
	errcode_t rc;

	for (i = 0; i < s->items[idx].nmap; i++) {
		const struct rl_run r = s->items[idx].map[i];
		blk64_t lo = MAX(r.pblk, ws), hi = MIN(r.pblk + r.len, we);
		int kind = r.uninit == RL_IND_MARK ? RL_SEG_IND : RL_SEG_DATA;

		while (lo < hi) {
			blk64_t p, l;

			rc = alloc_out(a, hi - lo, !s->items[idx].extents, 0, &p, &l);
			if (rc)
				return rc;
			rc = rl_push_seg(s, idx, kind, r.lblk + (lo - r.pblk), lo, l, p, 1);
			if (rc)
				return rc;
			*moved += l;
			lo += l;
		}
	}
	if (s->items[idx].extents) {
		struct rl_item *it = &s->items[idx];
		uint32_t leaves;
		blk64_t p, l;

		rc = rl_extent_new_map(fs, s, it);
		if (rc)
			return rc;
		leaves = rl_extent_leaves_needed(fs, it->nnew);
		if (leaves > 4)
			return EXT2_ET_EXTENT_NO_SPACE;
		if (it->tree_seg == SIZE_MAX) {
			/* Only tree blocks in the window: a seg-less tree slot. */
			struct rl_seg *v = realloc(s->segs, (s->nsegs + 1) * sizeof(*v));

			if (!v)
				return ENOMEM;
			s->segs = v;
			s->asegs = s->nsegs + 1;
			s->segs[s->nsegs] = (struct rl_seg){ .item = idx, .kind = RL_SEG_TREE };
			it->tree_seg = s->nsegs++;
		}
		it->new_leaves = leaves;
		s->segs[it->tree_seg].len = leaves;
		if (leaves) {
			/* The new leaves are written as one run. */
			rc = alloc_out(a, leaves, 0, 1, &p, &l);
			if (rc)
				return rc;
			s->segs[it->tree_seg].dst = p;
		}
	}
	return 0;
}

/*
 * The eviction epoch's plan: the owners of blocks in [ws, ws+wlen) and a
 * target outside the window for each of their blocks there, in s.
 */
static errcode_t evict_plan(struct out_alloc *a, const struct rl_owners *ow, blk64_t ws,
			    blk64_t wlen, const struct bp_relayout_opts *o, struct rl_stream *s,
			    uint64_t *moved, struct bp_err *err)
{
	ext2_filsys fs = a->fs;
	ext2fs_block_bitmap imm = NULL;
	size_t i;
	int blocked = 0;
	errcode_t rc;

	memset(s, 0, sizeof(*s));
	s->fs = fs;
	*moved = 0;
	rc = copy_immovable(ow, &imm);
	if (!rc)
		rc = scan_owners(fs, ow, ws, ws + wlen, imm, s, &blocked);
	if (imm)
		ext2fs_free_block_bitmap(imm);
	if (!rc && blocked)
		rc = BP_ET_NO_SPACE;
	if (rc)
		return bp_err_lib(err, rc, "while finding the files to move out of blocks %llu+%llu",
				  (unsigned long long)ws, (unsigned long long)wlen);
	a->cursor = ws + wlen;
	a->max_run = ext2fs_blocks_count(fs->super);
	for (i = 0; i < s->nitems && !rc; i++) {
		if (rl_canceled())
			return bp_err_set(err, BP_ET_CANCELED, "canceled while planning");
		rc = plan_item(a, s, (uint32_t)i, ws, ws + wlen, moved);
	}
	if (rc == BP_ET_NO_SPACE || rc == EXT2_ET_EXTENT_NO_SPACE)
		return bp_err_set(err, BP_ET_NO_SPACE,
				  "not enough free space outside blocks %llu+%llu for the blocks of "
				  "other files that would have to move out of them (and their new "
				  "extent leaves, which need runs of free blocks)",
				  (unsigned long long)ws, (unsigned long long)wlen);
	if (rc)
		return bp_err_lib(err, rc,
				  "while allocating room for the blocks moved out of the region");
	return 0;
}

/*
 * Plan the eviction without changing anything (a dry run, and before the
 * real run writes): a plan the real run could not carry out is refused here.
 */
errcode_t rl_evict_trial(ext2_filsys fs, const struct rl_owners *ow, blk64_t ws, blk64_t wlen,
			 const struct bp_relayout_opts *o, uint64_t *moved, struct bp_err *err)
{
	struct out_alloc a = { .fs = fs, .trial = 1 };
	struct rl_stream s;
	errcode_t rc;

	rc = ext2fs_copy_bitmap(fs->block_map, &a.map);
	if (rc)
		return bp_err_lib(err, rc, "while copying the block bitmap");
	mark_range(a.map, ws, wlen);
	rc = evict_plan(&a, ow, ws, wlen, o, &s, moved, err);
	rl_stream_free(&s);
	ext2fs_free_block_bitmap(a.map);
	return rc;
}

/* A stop before the eviction's commits: its targets are referenced by nobody. */
static void free_targets(ext2_filsys fs, const struct rl_stream *s)
{
	size_t i;

	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];

		if ((g->kind == RL_SEG_DATA || g->kind == RL_SEG_IND || g->kind == RL_SEG_TREE) &&
		    g->len && g->dst)
			ext2fs_block_alloc_stats_range(fs, g->dst, (blk_t)g->len, -1);
	}
}

/* After the eviction epoch: the window blocks its owners left (kept reserved by rl_epoch). */
static void mark_left(const struct rl_stream *s, blk64_t ws, blk64_t we,
		      ext2fs_block_bitmap spare)
{
	size_t i, j;

	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];
		blk64_t lo, hi;

		if (g->kind == RL_SEG_TREE || g->kind == RL_SEG_EA || !g->len)
			continue;
		lo = MAX(g->src, ws);
		hi = MIN(g->src + g->len, we);
		if (lo < hi)
			mark_range(spare, lo, hi - lo);
	}
	for (i = 0; i < s->nitems; i++)
		for (j = 0; s->items[i].extents && j < s->items[i].ntree; j++)
			if (in_win(s->items[i].tree[j], 1, ws, we))
				mark_range(spare, s->items[i].tree[j], 1);
}

errcode_t rl_evict(ext2_filsys fs, const struct rl_owners *ow, blk64_t ws, blk64_t wlen,
		   const struct bp_relayout_opts *o, struct bp_relayout_report *rep,
		   ext2fs_block_bitmap spare, struct bp_err *err)
{
	struct out_alloc a = { .fs = fs, .map = fs->block_map };
	struct rl_stream s;
	uint64_t moved = 0;
	errcode_t rc;

	rc = evict_plan(&a, ow, ws, wlen, o, &s, &moved, err);
	if (rc == BP_ET_CANCELED)
		free_targets(fs, &s);
	if (!rc) {
		rc = rl_epoch(fs, &s, o, rep, err, ws, ws + wlen);
		if (rc == BP_ET_CANCELED)
			free_targets(fs, &s);
		if (!rc) {
			rep->evicted_blocks = moved;
			mark_left(&s, ws, ws + wlen, spare);
		}
	}
	rl_stream_free(&s);
	return rc;
}
