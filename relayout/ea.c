// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ea.c --- moving an inode's own xattr block
 *
 * Only blocks with h_refcount 1 move: several inode writes cannot switch a
 * shared block atomically (doc/relayout-safety.md §4.6.3). The checksum of an
 * xattr block covers its block number, so the block is not copied raw but
 * rewritten at the new place with ext2fs_write_ext_attr3 (before B1); the
 * inode's i_file_acl changes in the same single inode write as its data
 * (extent items) or in a second one-sector write right after the
 * block-mapped switch; the old block is freed after B2 like any other.
 */
#include <ext2fs/ext2fs.h>
#include <ext2fs/ext2_ext_attr.h>

#include "rl-int.h"

errcode_t rl_ea_owned(ext2_filsys fs, ext2_ino_t ino, blk64_t blk, int *owned)
{
	struct ext2_ext_attr_header *h;
	char *buf;
	errcode_t rc;

	*owned = 0;
	rc = ext2fs_get_mem(fs->blocksize, &buf);
	if (rc)
		return rc;
	rc = ext2fs_read_ext_attr3(fs, blk, buf, ino);
	if (!rc) {
		h = (struct ext2_ext_attr_header *)buf;
		*owned = h->h_magic == EXT2_EXT_ATTR_MAGIC && h->h_refcount == 1;
	} else {
		rc = 0;	/* unreadable or bad checksum: leave it alone */
	}
	ext2fs_free_mem(&buf);
	return rc;
}

blk64_t rl_ea_new(const struct rl_stream *s, const struct rl_item *it)
{
	if (it->ea_seg == SIZE_MAX)
		return 0;
	return s->segs[it->ea_seg].dst;
}

errcode_t rl_ea_copy(ext2_filsys fs, const struct rl_stream *s, const struct rl_item *it,
		     uint64_t *writes)
{
	const struct rl_seg *g;
	char *buf;
	errcode_t rc;

	if (it->ea_seg == SIZE_MAX)
		return 0;
	g = &s->segs[it->ea_seg];
	if (g->src == g->dst)
		return 0;
	rc = ext2fs_get_mem(fs->blocksize, &buf);
	if (rc)
		return rc;
	rc = ext2fs_read_ext_attr3(fs, g->src, buf, it->ino);
	if (!rc)
		rc = ext2fs_write_ext_attr3(fs, g->dst, buf, it->ino);
	(*writes)++;
	ext2fs_free_mem(&buf);
	return rc;
}

errcode_t rl_ea_commit_separate(ext2_filsys fs, const struct rl_stream *s,
				const struct rl_item *it, uint64_t *writes)
{
	struct ext2_inode_large inode;
	blk64_t dst = rl_ea_new(s, it);
	errcode_t rc;

	if (!dst)
		return 0;
	rc = ext2fs_read_inode_full(fs, it->ino, (struct ext2_inode *)&inode, sizeof(inode));
	if (rc)
		return rc;
	ext2fs_file_acl_block_set(fs, (struct ext2_inode *)&inode, dst);
	rc = ext2fs_write_inode_full(fs, it->ino, (struct ext2_inode *)&inode, sizeof(inode));
	(*writes)++;
	return rc;
}
