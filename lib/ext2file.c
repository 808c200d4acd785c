// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ext2file.c --- a file on disk: identity and physical extents (ext2file.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "ext2file.h"

errcode_t bp_ext2_read_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in)
{
	memset(in, 0, sizeof(*in));
	return ext2fs_read_inode_full(fs, ino, (struct ext2_inode *)in, sizeof(*in));
}

errcode_t bp_ext2_inodes_walk(ext2_filsys fs, bp_ext2_inode_fn fn, void *priv)
{
	struct ext2_inode_large inode;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	errcode_t rc;

	rc = ext2fs_open_inode_scan(fs, 0, &scan);
	if (rc)
		return rc;
	for (;;) {
		rc = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&inode,
						sizeof(inode));
		if (rc == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (rc || !ino)
			break;
		if (!inode.i_links_count || inode.i_dtime)
			continue;
		rc = fn(fs, ino, &inode, priv);
		if (rc)
			break;
	}
	ext2fs_close_inode_scan(scan);
	return rc;
}

void bp_ext2_file_id(const struct ext2_inode_large *in, unsigned int inode_size, ext2_ino_t ino,
		     struct bp_file_id *id)
{
	unsigned int have = EXT2_GOOD_OLD_INODE_SIZE;

	/* The bytes of the inode that are fields: 128 plus what i_extra_isize claims. */
	if (inode_size > EXT2_GOOD_OLD_INODE_SIZE) {
		have += in->i_extra_isize;
		if (have > inode_size)
			have = inode_size;
	}
	id->ino = ino;
	id->generation = in->i_generation;
	id->size = EXT2_I_SIZE(in);
	id->mtime_sec = (int32_t)in->i_mtime;
	id->mtime_nsec = 0;
	if (inode_includes(have, i_mtime_extra)) {
		id->mtime_sec += (int64_t)(in->i_mtime_extra & EXT4_EPOCH_MASK) << 32;
		id->mtime_nsec = in->i_mtime_extra >> EXT4_EPOCH_BITS;
	}
}

errcode_t bp_ext2_file_read(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			    struct bp_file_id *id)
{
	errcode_t rc = bp_ext2_read_inode(fs, ino, in);

	if (!rc)
		bp_ext2_file_id(in, EXT2_INODE_SIZE(fs->super), ino, id);
	return rc;
}

int bp_ext2_file_unchanged(ext2_filsys fs, const struct bp_file_id *then, unsigned int how,
			   struct ext2_inode_large *in)
{
	struct bp_file_id now;

	if (!then->ino || then->ino > fs->super->s_inodes_count ||
	    bp_ext2_file_read(fs, (ext2_ino_t)then->ino, in, &now))
		return 0;
	return in->i_links_count && !in->i_dtime && LINUX_S_ISREG(in->i_mode) &&
	       bp_file_compare(&now, then, how) == BP_FILE_SAME;
}

static errcode_t walk_extents(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			      unsigned int flags, bp_ext2_run_fn fn, void *priv)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	struct bp_ext2_run r;
	errcode_t rc;
	int op = EXT2_EXTENT_ROOT;

	if (!ext2fs_has_feature_extents(fs->super))
		return EXT2_ET_EXTENT_NOT_SUPPORTED;
	rc = ext2fs_extent_open2(fs, ino, (struct ext2_inode *)in, &h);
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
			r = (struct bp_ext2_run){
				.lblk = e.e_lblk, .pblk = e.e_pblk, .len = e.e_len,
				.kind = (e.e_flags & EXT2_EXTENT_FLAGS_UNINIT) ? BP_EXT2_UNINIT
									       : BP_EXT2_DATA,
			};
		} else if (!(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) &&
			   (flags & BP_EXT2_WALK_META)) {
			/* an index entry: e_pblk is the tree block it points to */
			r = (struct bp_ext2_run){ .pblk = e.e_pblk, .len = 1,
						  .kind = BP_EXT2_TREE };
		} else {
			continue;
		}
		rc = fn(&r, priv);
		if (rc)
			break;
	}
	ext2fs_extent_free(h);
	return rc;
}

struct blk_walk {
	bp_ext2_run_fn fn;
	void *priv;
	struct bp_ext2_run run;	/* DATA blocks not given yet (len 0: none) */
	errcode_t rc;
};

static int flush(struct blk_walk *w)
{
	if (w->run.len) {
		w->rc = w->fn(&w->run, w->priv);
		w->run.len = 0;
	}
	return w->rc ? BLOCK_ABORT : 0;
}

static int blk_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		  int ref_offset, void *priv)
{
	struct blk_walk *w = priv;
	struct bp_ext2_run *r = &w->run;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0) {	/* an indirect block, given before the blocks it maps */
		if (flush(w))
			return BLOCK_ABORT;
		w->rc = w->fn(&(struct bp_ext2_run){ .lblk = (uint64_t)-blockcnt,
						     .pblk = *blocknr, .len = 1,
						     .kind = BP_EXT2_IND }, w->priv);
		return w->rc ? BLOCK_ABORT : 0;
	}
	if (r->len && r->lblk + r->len == (uint64_t)blockcnt && r->pblk + r->len == *blocknr &&
	    r->len < EXT_INIT_MAX_LEN) {
		r->len++;
		return 0;
	}
	if (flush(w))
		return BLOCK_ABORT;
	*r = (struct bp_ext2_run){ .lblk = (uint64_t)blockcnt, .pblk = *blocknr, .len = 1,
				   .kind = BP_EXT2_DATA };
	return 0;
}

int bp_ext2_has_blocks(ext2_filsys fs, struct ext2_inode_large *in)
{
	return !(in->i_flags & EXT4_INLINE_DATA_FL) &&
	       ext2fs_inode_has_valid_blocks2(fs, (struct ext2_inode *)in);
}

errcode_t bp_ext2_file_walk(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			    unsigned int flags, bp_ext2_run_fn fn, void *priv)
{
	struct blk_walk w = { .fn = fn, .priv = priv };
	errcode_t rc;

	if (!bp_ext2_has_blocks(fs, in))
		return 0;	/* the data lives in the inode: no blocks */
	if (in->i_flags & EXT4_EXTENTS_FL)
		return walk_extents(fs, ino, in, flags, fn, priv);
	rc = ext2fs_block_iterate3(fs, ino,
				   BLOCK_FLAG_READ_ONLY |
					   ((flags & BP_EXT2_WALK_META) ? 0 : BLOCK_FLAG_DATA_ONLY),
				   NULL, blk_cb, &w);
	if (!rc && !w.rc)
		flush(&w);
	return rc ? rc : w.rc;
}

static errcode_t map_add(const struct bp_ext2_run *r, void *priv)
{
	struct bp_ext2_map *m = priv;
	struct bp_ext2_run *last = m->n ? &m->v[m->n - 1] : NULL;

	if (last && last->kind == BP_EXT2_DATA && r->kind == BP_EXT2_DATA &&
	    last->lblk + last->len == r->lblk && last->pblk + last->len == r->pblk) {
		last->len += r->len;
		return 0;
	}
	if (bp_array_reserve((void **)&m->v, &m->cap, m->n, sizeof(*m->v), 16))
		return ENOMEM;
	m->v[m->n++] = *r;
	return 0;
}

errcode_t bp_ext2_map_load(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			   struct bp_ext2_map *m)
{
	m->n = 0;
	return bp_ext2_file_walk(fs, ino, in, 0, map_add, m);
}

uint64_t bp_ext2_map_find(const struct bp_ext2_map *m, uint64_t lblk, uint64_t *pblk)
{
	size_t lo = 0, hi = m->n;

	/* the first run that ends after lblk */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].lblk + m->v[mid].len <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pblk = 0;
	if (lo == m->n)
		return UINT64_MAX - lblk;	/* past the last run */
	if (m->v[lo].lblk > lblk)
		return m->v[lo].lblk - lblk;	/* a hole up to the run */
	if (m->v[lo].kind == BP_EXT2_DATA)
		*pblk = m->v[lo].pblk + (lblk - m->v[lo].lblk);
	return m->v[lo].lblk + m->v[lo].len - lblk;
}

void bp_ext2_map_free(struct bp_ext2_map *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
