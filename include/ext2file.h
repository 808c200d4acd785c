/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ext2file.h --- a file on disk: its identity and its physical extents (libext2fs)
 *
 * Inodes. bp_ext2_inodes_walk() visits every inode in use.
 *
 * Identity. bp_ext2_file_id() fills the bp_file_id of fileid.h from an
 * inode: i_generation, EXT2_I_SIZE, and the mtime with its nanoseconds and
 * epoch bits from i_mtime_extra only where the inode includes that field
 * (inode_includes(): the inode is larger than 128 bytes and i_extra_isize
 * is 12 or more; with i_extra_isize 8 the bytes there are not the mtime's).
 * Whether it is still the file a trace or pack recorded: bp_file_compare().
 *
 * Extents. bp_ext2_file_walk() is the one walk of a file's blocks. It calls
 * fn for each run in logical order: DATA (written blocks), UNINIT (an
 * unwritten extent: allocated, reads as zeros, nothing to read on disk) and,
 * with BP_EXT2_WALK_META, the blocks that map them: TREE (an extent-tree
 * block, before the leaves under it) and IND (an indirect block, before the
 * blocks it maps; lblk holds its level, 1 IND, 2 DIND, 3 TIND). Holes are
 * the logical blocks no run covers. Inline data and fast symlinks have no
 * blocks: no run. Extent-mapped files are read with libext2fs's extent
 * API (the only one that says which extents are unwritten), block-mapped
 * ones with ext2fs_block_iterate3() (the only one that gives their
 * indirect blocks); a block-mapped file's contiguous blocks are given as
 * runs of at most EXT_INIT_MAX_LEN blocks, as an extent would hold them.
 *
 * bp_ext2_map_load() keeps the DATA and UNINIT runs of one file in a
 * table and bp_ext2_map_find() answers "where is logical block n" from it.
 */
#ifndef BP_EXT2FILE_H
#define BP_EXT2FILE_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "fileid.h"

/*
 * Read inode ino into *in: all of its on-disk bytes (up to sizeof(*in)),
 * the rest of *in zeroed. Errors: libext2fs's.
 */
errcode_t bp_ext2_read_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in);

/*
 * Identity of inode ino as read into in, on a filesystem whose inodes are
 * inode_size bytes (EXT2_INODE_SIZE(fs->super)).
 */
void bp_ext2_file_id(const struct ext2_inode_large *in, unsigned int inode_size, ext2_ino_t ino,
		     struct bp_file_id *id);

/* bp_ext2_read_inode() and bp_ext2_file_id() in one call. */
errcode_t bp_ext2_file_read(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			    struct bp_file_id *id);

/*
 * Is inode then->ino still the file then names? 1 when it is in use, a
 * regular file and bp_file_compare(now, then, how) finds nothing changed;
 * 0 otherwise or when it cannot be read. *in holds the inode as read.
 */
int bp_ext2_file_unchanged(ext2_filsys fs, const struct bp_file_id *then, unsigned int how,
			   struct ext2_inode_large *in);

/* Called for each inode in use; a nonzero return stops the walk and is its result. */
typedef errcode_t (*bp_ext2_inode_fn)(ext2_filsys fs, ext2_ino_t ino,
				      struct ext2_inode_large *in, void *priv);

/*
 * The one walk of the inode tables (libext2fs's inode scan): fn for every
 * inode in use (links, no deletion time), in inode order; a bad block of an
 * inode table is passed over. 0, fn's nonzero result, or libext2fs's error.
 */
errcode_t bp_ext2_inodes_walk(ext2_filsys fs, bp_ext2_inode_fn fn, void *priv);

enum bp_ext2_kind {
	BP_EXT2_DATA,
	BP_EXT2_UNINIT,
	BP_EXT2_TREE,
	BP_EXT2_IND,
};

struct bp_ext2_run {
	uint64_t lblk;		/* first logical block (IND: the level) */
	uint64_t pblk;		/* first physical block */
	uint64_t len;		/* blocks (TREE, IND: 1) */
	enum bp_ext2_kind kind;
};

/* Called for each run; a nonzero return stops the walk and is its result. */
typedef errcode_t (*bp_ext2_run_fn)(const struct bp_ext2_run *r, void *priv);

/* Whether the file has blocks at all (not inline data, not a fast symlink). */
int bp_ext2_has_blocks(ext2_filsys fs, struct ext2_inode_large *in);

#define BP_EXT2_WALK_META	0x1	/* also TREE and IND runs */

/*
 * Walk the blocks of inode ino (its inode in *in, as read). 0, fn's
 * nonzero result, EXT2_ET_EXTENT_NOT_SUPPORTED (an extent-mapped file on a
 * filesystem without the extents feature), or libext2fs's error.
 */
errcode_t bp_ext2_file_walk(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			    unsigned int flags, bp_ext2_run_fn fn, void *priv);

/* A file's DATA and UNINIT runs, in logical order; adjacent DATA runs joined. */
struct bp_ext2_map {
	struct bp_ext2_run *v;
	size_t n, cap;
};

/* Load the runs of ino into m (emptied first; m zeroed before the first use). */
errcode_t bp_ext2_map_load(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			   struct bp_ext2_map *m);

/*
 * Where logical block lblk is: *pblk its physical block, or 0 in a hole or
 * an unwritten extent (nothing on disk to read). Returns how many blocks
 * from lblk on stay so (*pblk + i for a DATA run; a hole after the last
 * run reaches UINT64_MAX).
 */
uint64_t bp_ext2_map_find(const struct bp_ext2_map *m, uint64_t lblk, uint64_t *pblk);

void bp_ext2_map_free(struct bp_ext2_map *m);

#endif /* BP_EXT2FILE_H */
