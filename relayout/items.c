// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * items.c --- the boot stream's items (files and directories) and segments
 *
 * An item is an inode with its block map (extents or indirect blocks) read
 * once with libext2fs; a segment is a run of the stream: data, an indirect
 * block, an item's new extent-tree slot or its xattr block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "rl-int.h"

#define RL_MAX_ITEMS (1u << 22)

errcode_t rl_grow(void **p, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc ? *alloc : 16;
	void *q;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return ENOMEM;
	*p = q;
	*alloc = n;
	return 0;
}

errcode_t rl_item_add_seg(struct rl_stream *s, uint32_t item, size_t seg)
{
	struct rl_item *it = &s->items[item];

	if (rl_grow((void **)&it->segs, &it->asegs, it->nsegs + 1, sizeof(size_t)))
		return ENOMEM;
	it->segs[it->nsegs++] = seg;
	return 0;
}

/* The item's xattr block and new extent-tree slot, once, before its first block. */
errcode_t rl_push_slots(struct rl_stream *s, uint32_t item)
{
	struct rl_item *it = &s->items[item];

	if (s->move_ea && it->ea_blk && it->ea_seg == SIZE_MAX) {
		if (rl_grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
			return ENOMEM;
		s->segs[s->nsegs] = (struct rl_seg){
			.item = item, .kind = RL_SEG_EA, .src = it->ea_blk, .len = 1,
		};
		it->ea_seg = s->nsegs++;
	}
	if (it->extents && it->tree_seg == SIZE_MAX) {
		if (rl_grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
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
	if (rl_grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
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

static errcode_t push_run(struct rl_item *it, size_t *alloc, blk64_t lblk, blk64_t pblk,
			  blk64_t len, int flag)
{
	struct rl_run *last = it->nmap ? &it->map[it->nmap - 1] : NULL;

	if (flag != RL_IND_MARK && last && last->uninit == flag &&
	    last->lblk + last->len == lblk && last->pblk + last->len == pblk &&
	    last->len + len <= (flag ? EXT_UNINIT_MAX_LEN : EXT_INIT_MAX_LEN)) {
		last->len += len;
		return 0;
	}
	if (rl_grow((void **)&it->map, alloc, it->nmap + 1, sizeof(*it->map)))
		return ENOMEM;
	it->map[it->nmap++] = (struct rl_run){
		.lblk = lblk, .pblk = pblk, .len = (uint32_t)len, .uninit = (uint8_t)flag,
	};
	return 0;
}

static errcode_t load_extents(ext2_filsys fs, struct rl_item *it, struct ext2_inode *inode)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	size_t amap = 0, atree = 0;
	errcode_t rc;
	int op = EXT2_EXTENT_ROOT;

	rc = ext2fs_extent_open2(fs, it->ino, inode, &h);
	if (rc)
		return rc;
	for (;;) {
		rc = ext2fs_extent_get(h, op, &e);
		op = EXT2_EXTENT_NEXT;
		if (rc == EXT2_ET_EXTENT_NO_NEXT || rc == EXT2_ET_NO_CURRENT_NODE) {
			rc = 0;
			break;
		}
		if (rc)
			break;
		if (e.e_flags & EXT2_EXTENT_FLAGS_LEAF) {
			if (!e.e_len)
				continue;
			rc = push_run(it, &amap, e.e_lblk, e.e_pblk, e.e_len,
				      !!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT));
		} else if (!(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)) {
			if (rl_grow((void **)&it->tree, &atree, it->ntree + 1, sizeof(blk64_t))) {
				rc = ENOMEM;
			} else {
				it->tree[it->ntree++] = e.e_pblk;
			}
		}
		if (rc)
			break;
	}
	ext2fs_extent_free(h);
	return rc;
}

struct ind_walk {
	struct rl_item *it;
	size_t amap;
	errcode_t rc;
};

static int ind_cb(ext2_filsys fs _unused_, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		  blk64_t ref_blk _unused_, int ref_offset _unused_, void *priv)
{
	struct ind_walk *w = priv;

	/* Indirect blocks: lblk holds the level (1 IND, 2 DIND, 3 TIND). */
	if (blockcnt < 0)
		w->rc = push_run(w->it, &w->amap, (blk64_t)-blockcnt, *blocknr, 1, RL_IND_MARK);
	else
		w->rc = push_run(w->it, &w->amap, (blk64_t)blockcnt, *blocknr, 1, 0);
	return w->rc ? BLOCK_ABORT : 0;
}

/* Read the inode and its current mapping. 0 or an error; it->skipped set if unusable. */
static errcode_t load_item(ext2_filsys fs, struct rl_item *it, int any)
{
	struct ext2_inode_large inode;
	struct ind_walk w = { .it = it };
	errcode_t rc;

	rc = ext2fs_read_inode_full(fs, it->ino, (struct ext2_inode *)&inode, sizeof(inode));
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
	if ((inode.i_flags & EXT4_INLINE_DATA_FL) ||
	    !ext2fs_inode_has_valid_blocks2(fs, (struct ext2_inode *)&inode)) {
		it->skipped = 1;
		it->skip = BP_RL_SKIP_NO_BLOCKS;
		return 0;
	}
	if (inode.i_flags & EXT4_EXTENTS_FL) {
		if (!ext2fs_has_feature_extents(fs->super))
			return EXT2_ET_EXTENT_NOT_SUPPORTED;
		it->extents = 1;
		return load_extents(fs, it, (struct ext2_inode *)&inode);
	}
	rc = ext2fs_block_iterate3(fs, it->ino, BLOCK_FLAG_READ_ONLY, NULL, ind_cb, &w);
	return rc ? rc : w.rc;
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
	if (rl_grow((void **)&s->items, &s->aitems, s->nitems + 1, sizeof(*s->items)))
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
