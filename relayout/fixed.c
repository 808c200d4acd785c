// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fixed.c --- fixed group metadata: the holes a region may step over
 *
 * Without flex_bg every block group starts with metadata that cannot move
 * (a backup superblock and group descriptors in sparse groups, the reserved
 * GDT blocks, the block and inode bitmaps, the inode table), so a region
 * larger than one group's free space must span groups. Such a region is a
 * run of blocks in which fixed metadata is allowed and skipped: nothing is
 * placed on it, reserved or freed there, and a stream crossing it has a
 * discontiguity that no layout can avoid (doc/relayout-safety.md §4.2).
 */
#include <ext2fs/ext2fs.h>

#include "contig.h"
#include "rl-int.h"

static void mark_range(ext2fs_block_bitmap m, blk64_t b, blk64_t n)
{
	if (n)
		ext2fs_mark_block_bitmap_range2(m, b, (unsigned int)n);
}

void rl_fixed_mark(ext2_filsys fs, ext2fs_block_bitmap m)
{
	dgrp_t g;

	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_reserve_super_and_bgd(fs, g, m);
		mark_range(m, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group);
		mark_range(m, ext2fs_block_bitmap_loc(fs, g), 1);
		mark_range(m, ext2fs_inode_bitmap_loc(fs, g), 1);
	}
}

errcode_t rl_fixed_build(ext2_filsys fs, ext2fs_block_bitmap *ret)
{
	ext2fs_block_bitmap m;
	errcode_t rc;

	rc = ext2fs_allocate_block_bitmap(fs, "bootpack fixed metadata", &m);
	if (rc)
		return rc;
	rl_fixed_mark(fs, m);
	*ret = m;
	return 0;
}

blk64_t rl_fixed_skip(ext2fs_block_bitmap fixed, blk64_t b, blk64_t end)
{
	blk64_t x;

	if (b >= end)
		return end;
	if (ext2fs_find_first_zero_block_bitmap2(fixed, b, end - 1, &x))
		return end;
	return x;
}

blk64_t rl_fixed_room(ext2fs_block_bitmap fixed, blk64_t b, blk64_t end)
{
	blk64_t x;

	if (b >= end)
		return 0;
	if (ext2fs_find_first_set_block_bitmap2(fixed, b, end - 1, &x))
		return end - b;
	return x - b;
}

int rl_fixed_gap(ext2fs_block_bitmap fixed, blk64_t a, blk64_t b)
{
	blk64_t x;

	return fixed && a < b && ext2fs_find_first_zero_block_bitmap2(fixed, a, b - 1, &x) != 0;
}

int rl_range_free(ext2_filsys fs, ext2fs_block_bitmap fixed, blk64_t start, blk64_t len)
{
	blk64_t b = start, end = start + len, s, e;

	if (!fixed)
		return ext2fs_test_block_bitmap_range2(fs->block_map, start, (unsigned int)len);
	/* Every block in use must be fixed metadata. */
	while (b < end) {
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, b, end - 1, &s))
			return 1;
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, s, end - 1, &e))
			e = end;
		if (!rl_fixed_gap(fixed, s, e))
			return 0;
		b = e;
	}
	return 1;
}

blk64_t rl_fixed_span(ext2fs_block_bitmap fixed, blk64_t start, blk64_t n, blk64_t end)
{
	blk64_t b = start;

	while (n && b < end) {
		blk64_t r;

		b = rl_fixed_skip(fixed, b, end);
		r = MIN(rl_fixed_room(fixed, b, end), n);
		if (!r)
			break;
		b += r;
		n -= r;
	}
	return n ? 0 : b - start;
}

void rl_release(ext2_filsys fs, ext2fs_block_bitmap fixed, blk64_t start, blk64_t len)
{
	blk64_t b = start, end = start + len, s, e;

	while (b < end) {
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, b, end - 1, &s))
			break;
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, s, end - 1, &e))
			e = end;
		if (fixed) {
			/* Only the blocks that are not fixed metadata. */
			e = s + MAX(rl_fixed_room(fixed, s, e), 1);
			if (ext2fs_test_block_bitmap2(fixed, s)) {
				b = rl_fixed_skip(fixed, s, end);
				continue;
			}
		}
		ext2fs_block_alloc_stats_range(fs, s, (blk_t)(e - s), -1);
		b = e;
	}
}

struct hole_ctx {
	struct bp_contig c;	/* in blocks: block size 1 */
	ext2fs_block_bitmap fixed;
	uint64_t holes;
};

static void hole_cb(void *ctx, blk64_t start, blk64_t len)
{
	struct hole_ctx *h = ctx;
	uint64_t before = h->c.discontig, last = h->c.run_last;
	int any = h->c.reads != 0;

	bp_contig_add(&h->c, start, len);
	if (any && h->c.discontig != before && rl_fixed_gap(h->fixed, last + 1, start))
		h->holes++;
}

uint64_t rl_stream_discontig_fixed(const struct rl_stream *s, int planned,
				   ext2fs_block_bitmap fixed)
{
	struct hole_ctx h = { .fixed = fixed };

	if (!fixed)
		return 0;
	bp_contig_init(&h.c, 1);
	rl_stream_walk(s, planned, hole_cb, &h);
	return h.holes;
}
