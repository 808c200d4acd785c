/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-build-int.h --- the pack builder's state, shared by pack-build.c and pack-map.c
 */
#ifndef BP_PACK_BUILD_INT_H
#define BP_PACK_BUILD_INT_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "ext2file.h"
#include "pack-build.h"
#include "tracefile.h"

/* What a traced file is now. */
struct fstate {
	struct bp_ext2_map map;		/* its runs on disk (ext2file.h) */
	ext2_ino_t ino;
	char *path;			/* canonical (fspath.h), malloc'd; NULL if not found */
	struct bp_file_id id;		/* now (the pack records this) */
	int skip;			/* enum bp_pack_skip, or -1 if usable */
	int changed;
	int in_pack;
	uint32_t path_idx;
	size_t root;			/* first traced name of the same inode (hard links) */
	int linked;			/* root of other names */
	struct span *done;		/* bytes packed (ranges in whole pages may meet), merged */
	size_t ndone, adone;
};

struct span {
	uint64_t start, end;
};

struct builder {
	ext2_filsys fs;
	const struct bp_trace *t;
	struct fstate *fst;
	struct bp_pack_wentry *ents;	/* .file = index into t->files until the end */
	size_t nents, aents;
	struct bp_pack_meta *meta;
	size_t nmeta;
	uint64_t budget, used;
	uint64_t page;			/* page size the pack is for: file ranges in whole pages */
	int full;			/* budget reached: everything else is cut */
	struct bp_pack_report *rep;
};

/* pack-map.c: a traced file now, its ranges mapped and admitted under the budget */
errcode_t pb_resolve_file(struct builder *b, const struct bp_trace_file *f, struct fstate *s);
errcode_t pb_find_links(struct builder *b, size_t nfiles);
errcode_t pb_map_range(struct builder *b, size_t file, uint64_t off, uint64_t len);
errcode_t pb_add_meta(struct builder *b, const struct bp_trace_meta *m);

#endif /* BP_PACK_BUILD_INT_H */
