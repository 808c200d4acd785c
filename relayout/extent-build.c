// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * extent-build.c --- copy-on-write extent trees, committed by one inode write
 *
 * The new mapping is built in memory (old leaves with the moved ranges
 * remapped, coalesced), then written as a whole new tree of the smallest
 * depth: in i_block[] when it has at most 4 extents (depth 0); else full
 * leaves in new blocks under an index root in i_block[] (depth 1, up to 4
 * leaves); else full leaves under full index blocks under the root (depth
 * 2, up to 4 index blocks: 462,400 extents at 4 KiB, 28,224 at 1 KiB).
 * Every new block is checksummed with ext2fs_extent_block_csum_set and
 * written before B1, index blocks first, then leaves, all in the item's
 * tree slot (just before its first data in the boot stream). Live extent
 * blocks are never written; the single inode write is the commit
 * (doc/relayout-safety.md §4.6.1). ext2fs_extent_set_bmap is never used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>
#include <ext2fs/ext3_extents.h>

#include "rl-int.h"

#define RL_ROOT_MAX 4	/* (60 - 12) / 12 entries in i_block[] */

static uint32_t per_block(ext2_filsys fs)
{
	return (fs->blocksize - sizeof(struct ext3_extent_header)) / sizeof(struct ext3_extent);
}

uint32_t rl_extent_leaves_needed(ext2_filsys fs, size_t n)
{
	if (n <= RL_ROOT_MAX)
		return 0;
	return (uint32_t)DIV_ROUND_UP(n, per_block(fs));
}

/* Shape of the smallest tree for n extents. */
struct shape {
	uint32_t depth, leaves, index;	/* index: blocks of the middle level (depth 2) */
};

static int tree_shape(ext2_filsys fs, size_t n, struct shape *t)
{
	uint64_t epb = per_block(fs), l;

	memset(t, 0, sizeof(*t));
	if (n <= RL_ROOT_MAX)
		return 0;
	l = DIV_ROUND_UP(n, epb);
	t->leaves = (uint32_t)l;
	t->depth = 1;
	if (l <= RL_ROOT_MAX)
		return 0;
	t->depth = 2;
	t->index = (uint32_t)DIV_ROUND_UP(l, epb);
	return t->index <= RL_ROOT_MAX ? 0 : -1;
}

uint32_t rl_extent_tree_blocks(ext2_filsys fs, size_t n)
{
	struct shape t;

	if (tree_shape(fs, n, &t))
		return RL_TREE_TOO_DEEP;
	return t.leaves + t.index;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct rl_seg *x = *(const struct rl_seg *const *)a;
	const struct rl_seg *y = *(const struct rl_seg *const *)b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

errcode_t rl_extent_new_map(ext2_filsys fs _unused_, struct rl_stream *s, struct rl_item *it)
{
	const struct rl_seg **v;
	size_t alloc = 0, i, k = 0, n = it->nsegs;
	errcode_t rc = 0;

	it->nnew = 0;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = &s->segs[it->segs[i]];
	qsort(v, n, sizeof(*v), seg_cmp);
	for (i = 0; i < it->nmap && !rc; i++) {
		const struct rl_run *r = &it->map[i];
		blk64_t l = r->lblk, end = r->lblk + r->len;

		while (l < end && !rc) {
			while (k < n && v[k]->lblk + v[k]->len <= l)
				k++;
			if (k < n && v[k]->lblk <= l) {
				/* Moved: segments never straddle a run boundary. */
				blk64_t take = MIN(end, v[k]->lblk + v[k]->len) - l;

				rc = rl_run_push(&it->nmap_new, &it->nnew, &alloc, l,
						 v[k]->dst + (l - v[k]->lblk), take, r->uninit);
				l += take;
			} else {
				blk64_t stop = (k < n && v[k]->lblk < end) ? v[k]->lblk : end;

				rc = rl_run_push(&it->nmap_new, &it->nnew, &alloc, l,
						 r->pblk + (l - r->lblk), stop - l, r->uninit);
				l = stop;
			}
		}
	}
	free(v);
	return rc;
}

static void put_extent(struct ext3_extent *x, const struct rl_run *r)
{
	x->ee_block = ext2fs_cpu_to_le32((uint32_t)r->lblk);
	x->ee_len = ext2fs_cpu_to_le16((uint16_t)(r->len + (r->uninit ? EXT_INIT_MAX_LEN : 0)));
	x->ee_start = ext2fs_cpu_to_le32((uint32_t)(r->pblk & 0xffffffffULL));
	x->ee_start_hi = ext2fs_cpu_to_le16((uint16_t)(r->pblk >> 32));
}

static void put_header(struct ext3_extent_header *eh, uint32_t entries, uint32_t max,
		       uint32_t depth)
{
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = ext2fs_cpu_to_le16((uint16_t)entries);
	eh->eh_max = ext2fs_cpu_to_le16((uint16_t)max);
	eh->eh_depth = ext2fs_cpu_to_le16((uint16_t)depth);
	eh->eh_generation = 0;
}

static void put_index(struct ext3_extent_idx *x, blk64_t lblk, blk64_t blk)
{
	x->ei_block = ext2fs_cpu_to_le32((uint32_t)lblk);
	x->ei_leaf = ext2fs_cpu_to_le32((uint32_t)(blk & 0xffffffffULL));
	x->ei_leaf_hi = ext2fs_cpu_to_le16((uint16_t)(blk >> 32));
	x->ei_unused = 0;
}

/* First logical block of leaf l. */
static blk64_t leaf_lblk(ext2_filsys fs, const struct rl_item *it, uint32_t l)
{
	return it->nmap_new[(size_t)l * per_block(fs)].lblk;
}

/*
 * The tree slot holds the index blocks (depth 2), then the leaves; the
 * root in i_block[] points to the first level of it.
 */
errcode_t rl_extent_write_leaves(ext2_filsys fs, const struct rl_stream *s,
				 const struct rl_item *it, uint64_t *writes)
{
	uint32_t epb = per_block(fs), l;
	struct shape t;
	blk64_t dst, leaf0;
	char *buf;
	errcode_t rc = 0;

	if (!it->new_leaves)
		return 0;
	if (tree_shape(fs, it->nnew, &t) || t.leaves + t.index != it->new_leaves)
		return EXT2_ET_EXTENT_NO_SPACE;	/* the plan and the map disagree */
	dst = s->segs[it->tree_seg].dst;
	leaf0 = dst + t.index;
	rc = ext2fs_get_memalign(fs->blocksize, fs->blocksize, &buf);
	if (rc)
		return rc;
	for (l = 0; l < t.index && !rc; l++) {
		struct ext3_extent_header *eh = (struct ext3_extent_header *)buf;
		struct ext3_extent_idx *x = (struct ext3_extent_idx *)(eh + 1);
		uint32_t first = l * epb, cnt = MIN(epb, t.leaves - first), i;

		memset(buf, 0, fs->blocksize);
		put_header(eh, cnt, epb, 1);
		for (i = 0; i < cnt; i++)
			put_index(&x[i], leaf_lblk(fs, it, first + i), leaf0 + first + i);
		rc = ext2fs_extent_block_csum_set(fs, it->ino, eh);
		if (!rc)
			rc = io_channel_write_blk64(fs->io, dst + l, 1, buf);
		(*writes)++;
	}
	for (l = 0; l < t.leaves && !rc; l++) {
		struct ext3_extent_header *eh = (struct ext3_extent_header *)buf;
		struct ext3_extent *x = (struct ext3_extent *)(eh + 1);
		size_t first = (size_t)l * epb, cnt = MIN((size_t)epb, it->nnew - first), i;

		memset(buf, 0, fs->blocksize);
		put_header(eh, (uint32_t)cnt, epb, 0);
		for (i = 0; i < cnt; i++)
			put_extent(&x[i], &it->nmap_new[first + i]);
		rc = ext2fs_extent_block_csum_set(fs, it->ino, eh);
		if (!rc)
			rc = io_channel_write_blk64(fs->io, leaf0 + l, 1, buf);
		(*writes)++;
	}
	ext2fs_free_mem(&buf);
	return rc;
}

errcode_t rl_extent_commit(ext2_filsys fs, const struct rl_stream *s, const struct rl_item *it,
			   uint64_t *writes)
{
	struct ext2_inode_large inode;
	struct ext3_extent_header *eh;
	uint32_t epb = per_block(fs), i;
	blk64_t oldtree = it->ntree;
	struct shape t;
	errcode_t rc;

	if (tree_shape(fs, it->nnew, &t) || t.leaves + t.index != it->new_leaves)
		return EXT2_ET_EXTENT_NO_SPACE;
	rc = ext2fs_read_inode_full(fs, it->ino, (struct ext2_inode *)&inode, sizeof(inode));
	if (rc)
		return rc;
	if (!(inode.i_flags & EXT4_EXTENTS_FL))
		return EXT2_ET_INODE_NOT_EXTENT;
	memset(inode.i_block, 0, sizeof(inode.i_block));
	eh = (struct ext3_extent_header *)inode.i_block;
	if (!t.depth) {
		struct ext3_extent *x = (struct ext3_extent *)(eh + 1);

		put_header(eh, (uint32_t)it->nnew, RL_ROOT_MAX, 0);
		for (i = 0; i < it->nnew; i++)
			put_extent(&x[i], &it->nmap_new[i]);
	} else {
		struct ext3_extent_idx *x = (struct ext3_extent_idx *)(eh + 1);
		blk64_t dst = s->segs[it->tree_seg].dst;
		uint32_t top = t.depth == 1 ? t.leaves : t.index;

		put_header(eh, top, RL_ROOT_MAX, t.depth);
		for (i = 0; i < top; i++)
			put_index(&x[i], leaf_lblk(fs, it, t.depth == 1 ? i : i * epb), dst + i);
	}
	if (oldtree > it->new_leaves)
		rc = ext2fs_iblk_sub_blocks(fs, (struct ext2_inode *)&inode,
					    oldtree - it->new_leaves);
	else if (oldtree < it->new_leaves)
		rc = ext2fs_iblk_add_blocks(fs, (struct ext2_inode *)&inode,
					    it->new_leaves - oldtree);
	if (rc)
		return rc;
	if (rl_ea_new(s, it))
		ext2fs_file_acl_block_set(fs, (struct ext2_inode *)&inode, rl_ea_new(s, it));
	rc = ext2fs_write_inode_full(fs, it->ino, (struct ext2_inode *)&inode, sizeof(inode));
	(*writes)++;
	return rc;
}
