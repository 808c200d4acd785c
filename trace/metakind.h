/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metakind.h --- what a block of an ext2/3/4 filesystem holds, for the
 * blocks a boot read: group metadata (superblock, descriptors, bitmaps),
 * inode table, journal from the group descriptors and the journal inode;
 * directory and extent-tree (or indirect) blocks of the directories on the
 * paths of a trace's files and of the files themselves. Found with
 * libext2fs from the trace alone, never by scanning every inode: a block of
 * a directory the trace does not lead to is "other".
 */
#ifndef BP_METAKIND_H
#define BP_METAKIND_H

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "tracefile.h"

enum bp_mkind {
	BP_MK_DATA = 0,		/* file data */
	BP_MK_DIR,		/* a directory's block */
	BP_MK_ITABLE,		/* inode table */
	BP_MK_EXTENT,		/* extent tree or indirect block of a file or directory */
	BP_MK_GROUP,		/* superblock, group descriptors, bitmaps */
	BP_MK_JOURNAL,		/* the internal journal */
	BP_MK_OTHER,		/* none of these that the trace leads to */
	BP_MK_NR,
};

/* "data", "directory", "inode-table", "extent-tree", "group", "journal", "other". */
const char *bp_mkind_name(enum bp_mkind k);

struct bp_mkmap;

/* Build the map for fs and the files of t (t must outlive the map). */
errcode_t bp_mkmap_build(ext2_filsys fs, const struct bp_trace *t, struct bp_mkmap **ret,
			 struct bp_err *err);
/*
 * The kind of block b; *owner (may be NULL) is set to the path of the
 * directory or file it belongs to (not NUL-terminated: *owner_len bytes),
 * or NULL.
 */
enum bp_mkind bp_mkmap_lookup(const struct bp_mkmap *m, blk64_t b, const char **owner,
			      size_t *owner_len);
void bp_mkmap_free(struct bp_mkmap *m);

#endif /* BP_METAKIND_H */
