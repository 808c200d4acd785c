// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * items.c --- the boot stream's items (files and directories) and segments
 *
 * An item is an inode with its block map (extents or indirect blocks) read
 * once with bp_ext2_file_walk() (lib/ext2file.c); a segment is a run of the
 * stream: data, an indirect block, an item's new extent-tree slot or its
 * xattr block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "ext2file.h"
#include "rl-int.h"

#define RL_MAX_ITEMS (1u << 22)

errcode_t rl_item_add_seg(struct rl_stream *s, uint32_t item, size_t seg)
{
	struct rl_item *it = &s->items[item];

	if (bp_array_reserve((void **)&it->segs, &it->asegs, it->nsegs, sizeof(size_t), 16))
		return ENOMEM;
	it->segs[it->nsegs++] = seg;
	return 0;
}

/* The item's xattr block and new extent-tree slot, once, before its first block. */
errcode_t rl_push_slots(struct rl_stream *s, uint32_t item)
{
	struct rl_item *it = &s->items[item];

	if (s->move_ea && it->ea_blk && it->ea_seg == SIZE_MAX) {
		if (bp_array_reserve((void **)&s->segs, &s->asegs, s->nsegs, sizeof(*s->segs), 16))
			return ENOMEM;
		s->segs[s->nsegs] = (struct rl_seg){
			.item = item, .kind = RL_SEG_EA, .src = it->ea_blk, .len = 1,
		};
		it->ea_seg = s->nsegs++;
	}
	if (it->extents && it->tree_seg == SIZE_MAX) {
		if (bp_array_reserve((void **)&s->segs, &s->asegs, s->nsegs, sizeof(*s->segs), 16))
			return ENOMEM;
		s->segs[s->nsegs] = (struct rl_seg){ .item = item, .kind = RL_SEG_TREE };
		it->tree_seg = s->nsegs++;
	}
	return 0;
}

errcode_t rl_push_seg(struct rl_stream *s, uint32_t item, int kind, blk64_t lblk, blk64_t src,
		      blk64_t len, blk64_t dst, int has_dst)
{
	struct rl_seg *last;
	size_t before = s->nsegs;
	errcode_t rc;

	rc = rl_push_slots(s, item);
	if (rc)
		return rc;
	last = s->nsegs && s->nsegs == before ? &s->segs[s->nsegs - 1] : NULL;
	/* Extend the previous segment when logically and physically contiguous. */
	if (kind == RL_SEG_DATA && last && last->item == item && last->kind == RL_SEG_DATA &&
	    last->lblk + last->len == lblk && last->src + last->len == src &&
	    (!has_dst || last->dst + last->len == dst) && last->len + len <= EXT_INIT_MAX_LEN) {
		last->len += len;
		return 0;
	}
	if (bp_array_reserve((void **)&s->segs, &s->asegs, s->nsegs, sizeof(*s->segs), 16))
		return ENOMEM;
	s->segs[s->nsegs] = (struct rl_seg){
		.item = item, .kind = kind, .lblk = lblk, .src = src, .len = len, .dst = dst,
	};
	rc = rl_item_add_seg(s, item, s->nsegs);
	if (rc)
		return rc;
	s->nsegs++;
	return 0;
}

errcode_t rl_run_push(struct rl_run **v, size_t *n, size_t *alloc, blk64_t lblk, blk64_t pblk,
		      blk64_t len, int flag)
{
	struct rl_run *last = *n ? &(*v)[*n - 1] : NULL;

	if (flag != RL_IND_MARK && last && last->uninit == flag &&
	    last->lblk + last->len == lblk && last->pblk + last->len == pblk &&
	    last->len + len <= (flag ? EXT_UNINIT_MAX_LEN : EXT_INIT_MAX_LEN)) {
		last->len += (uint32_t)len;
		return 0;
	}
	if (bp_array_reserve((void **)v, alloc, *n, sizeof(**v), 16))
		return ENOMEM;
	(*v)[(*n)++] = (struct rl_run){
		.lblk = lblk, .pblk = pblk, .len = (uint32_t)len, .uninit = (uint8_t)flag,
	};
	return 0;
}

struct load {
	struct rl_item *it;
	size_t amap, atree;
};

static errcode_t load_run(const struct bp_ext2_run *r, void *priv)
{
	struct load *l = priv;
	struct rl_item *it = l->it;

	switch (r->kind) {
	case BP_EXT2_TREE:
		if (bp_array_reserve((void **)&it->tree, &l->atree, it->ntree, sizeof(blk64_t), 16))
			return ENOMEM;
		it->tree[it->ntree++] = r->pblk;
		return 0;
	case BP_EXT2_IND:	/* lblk holds the level (1 IND, 2 DIND, 3 TIND) */
		return rl_run_push(&it->map, &it->nmap, &l->amap, r->lblk, r->pblk, 1, RL_IND_MARK);
	default:
		return rl_run_push(&it->map, &it->nmap, &l->amap, r->lblk, r->pblk, r->len,
				   r->kind == BP_EXT2_UNINIT);
	}
}

/* Read the inode and its current mapping. 0 or an error; it->skipped set if unusable. */
static errcode_t load_item(ext2_filsys fs, struct rl_item *it, int any)
{
	struct ext2_inode_large inode;
	struct load l = { .it = it };
	errcode_t rc;

	rc = bp_ext2_read_inode(fs, it->ino, &inode);
	if (rc)
		return rc;
	it->size = EXT2_I_SIZE(&inode);
	if (any)
		it->is_dir = LINUX_S_ISDIR(inode.i_mode);
	else if (it->is_dir ? !LINUX_S_ISDIR(inode.i_mode) : !LINUX_S_ISREG(inode.i_mode)) {
		it->skipped = 1;
		it->skip = BP_RL_SKIP_NOT_REGULAR;
		return 0;
	}
	if (ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode)) {
		int owned = 0;
		blk64_t acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode);

		rc = rl_ea_owned(fs, it->ino, acl, &owned);
		if (rc)
			return rc;
		if (owned)
			it->ea_blk = acl;
	}
	if (!bp_ext2_has_blocks(fs, &inode)) {
		it->skipped = 1;
		it->skip = BP_RL_SKIP_NO_BLOCKS;
		return 0;
	}
	it->extents = !!(inode.i_flags & EXT4_EXTENTS_FL);
	return bp_ext2_file_walk(fs, it->ino, &inode, BP_EXT2_WALK_META, load_run, &l);
}

int rl_item_find(const struct rl_stream *s, ext2_ino_t ino)
{
	size_t i;

	for (i = s->nitems; i-- > 0;)
		if (s->items[i].ino == ino)
			return (int)i;
	return -1;
}

static errcode_t item_new2(struct rl_stream *s, ext2_ino_t ino, int is_dir, int any,
			   uint32_t *ret)
{
	struct rl_item *it;
	errcode_t rc;

	if (s->nitems >= RL_MAX_ITEMS)
		return EFBIG;
	if (bp_array_reserve((void **)&s->items, &s->aitems, s->nitems, sizeof(*s->items), 16))
		return ENOMEM;
	it = &s->items[s->nitems];
	memset(it, 0, sizeof(*it));
	it->ino = ino;
	it->is_dir = (uint8_t)is_dir;
	it->tree_seg = SIZE_MAX;
	it->ea_seg = SIZE_MAX;
	if (ino < EXT2_FIRST_INODE(s->fs->super) && ino != EXT2_ROOT_INO) {
		it->skipped = 1;
		it->skip = BP_RL_SKIP_NOT_REGULAR;
	} else {
		rc = load_item(s->fs, it, any);
		if (rc)
			return rc;
	}
	*ret = (uint32_t)s->nitems++;
	return 0;
}

errcode_t rl_item_new(struct rl_stream *s, ext2_ino_t ino, int is_dir, uint32_t *ret)
{
	return item_new2(s, ino, is_dir, 0, ret);
}

errcode_t rl_item_load_any(struct rl_stream *s, ext2_ino_t ino, uint32_t *ret)
{
	return item_new2(s, ino, 0, 1, ret);
}

/* All blocks of an item: tree slot + data (extents), or visit order (indirect). */
