/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-meta.h --- the metadata blocks needed to open a set of files (internal)
 *
 * For bp_pack_opts.meta & BP_PACK_META_FILES: the blocks of every directory
 * on a file's path (data, extent and indirect blocks), the inode table block
 * holding its inode, and its own extent or indirect blocks, found with
 * libext2fs on the filesystem as it is now (so after relayout they describe
 * the new layout). Each block is listed once, at the first access time of
 * the first file that needs it.
 */
#ifndef BP_PACK_META_H
#define BP_PACK_META_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "tracefile.h"

struct bp_meta_list {
	struct bp_trace_meta *v;	/* one block each, in the order found */
	size_t n, alloc;
	uint64_t *set;			/* open-addressed set of blocks seen (+1, 0 = empty) */
	size_t set_n, set_cap;
	ext2_ino_t *dirs;		/* directories already walked */
	size_t ndirs, adirs;
};

/* Blocks of [offset, offset + length) are already covered (trace M ranges). */
errcode_t bp_meta_mark(struct bp_meta_list *l, ext2_filsys fs, uint64_t offset, uint64_t length);

/* Add the blocks needed to open path (inode ino) at time first_ns. */
errcode_t bp_meta_add_file(struct bp_meta_list *l, ext2_filsys fs, const char *path,
			   ext2_ino_t ino, uint64_t first_ns);

/*
 * Add directory ino, whole (its data and mapping blocks and inode table
 * block), at first_ns, if it still is the directory of generation gen:
 * a directory the trace names by owner (tracefile.h), which relayout lays
 * out whole in its region.
 */
errcode_t bp_meta_add_dir(struct bp_meta_list *l, ext2_filsys fs, ext2_ino_t ino, uint32_t gen,
			  uint64_t first_ns);

void bp_meta_list_free(struct bp_meta_list *l);

/*
 * The trace's metadata ranges in, moved along the nmoved runs of moved
 * (triples of old start block, length, new start or UINT64_MAX for "left
 * out"; sorted by old start; may be NULL: all kept as they are). *ret
 * malloc'd (unsorted once moved); *nmovedb blocks moved along, *dropped
 * left out.
 */
errcode_t bp_meta_live(ext2_filsys fs, const struct bp_trace_meta *in, size_t n,
		       const uint64_t *moved, size_t nmoved,
		       struct bp_trace_meta **ret, size_t *nret, uint64_t *nmovedb, uint64_t *dropped);

#endif /* BP_PACK_META_H */
