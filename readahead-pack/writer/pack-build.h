/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-build.h --- build a readahead pack from a trace and a filesystem
 *
 * The engine behind `bootpack pack`, also meant for relayout: after it moved
 * blocks, relayout calls bp_pack_build_write() on its still-open filesystem
 * so the pack describes the new layout:
 *
 *	struct bp_pack_opts po = { .output = BP_PACK_DEFAULT_PATH,
 *				   .budget = BP_PACK_DEFAULT_BUDGET,
 *				   .meta = BP_PACK_META_FILES,
 *				   .compat = BP_PACK_COMPAT_RELAYOUT };
 *	rc = bp_pack_build_write(fs, trace, &po, NULL, &err);
 *
 * Each traced file is looked up again by path with libext2fs (read-only):
 * its current inode number, generation, size and mtime go into the pack,
 * and each traced range is mapped to its current physical blocks
 * (ext2fs_bmap2; holes and unwritten extents are not read) and split where
 * it is not physically contiguous. Metadata ranges are taken from the trace
 * (clamped to the filesystem) and/or found on the filesystem (see
 * BP_PACK_META_* below). Budget: all ranges, metadata and file, are
 * admitted in first-access order until the next one would exceed the
 * budget; that one and all later ones are cut. The admitted entries are
 * then sorted by physical position.
 *
 * Returns errcode_t (errno, libext2fs or BP_ET_* codes), fills err, never
 * prints. BP_ET_TRACE_MISMATCH: the trace is of another filesystem (the rule
 * of fsident.h: UUID and block size). Open fs with bp_fs_open_ro().
 */
#ifndef BP_PACK_BUILD_H
#define BP_PACK_BUILD_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "fsident.h"
#include "pack-budget.h"
#include "pack-write.h"
#include "tracefile.h"

#define BP_PACK_DEFAULT_BUDGET (75ULL << 20)	/* 75 MiB */

struct bp_pack_opts {
	const char *output;		/* pack path (bp_pack_build_write) */
	uint64_t budget;		/* bytes; 0: no limit */
	/*
	 * Non-NULL: the budget is automatic (pack-budget.h), budget above is
	 * ignored. Give mem_total, rate_bps (0: no probe) and boot_ns (0:
	 * the trace's last first access); the builder fills traced_bytes (a
	 * first build with no limit), builds again cut to the result, and
	 * records the bound term in the pack.
	 */
	const struct bp_budget_in *budget_auto;
	enum bp_pack_compress compress;
	uint32_t compat;		/* extra BP_PACK_COMPAT_* bits, e.g. RELAYOUT */
	uint32_t dev_major, dev_minor;	/* 0:0: taken from the trace */
	int64_t created;		/* 0: now */
	/*
	 * Page size of the machine the pack is for (a power of two,
	 * BP_PACK_PAGE_SIZE_MIN to _MAX); 0: this one's. File ranges are
	 * rounded out to whole pages (clamped to the file's size), the budget
	 * counts them, and the pack records it (pack-format.h).
	 */
	uint32_t page_size;
	unsigned int meta;		/* BP_PACK_META_* bits; 0: TRACE | FILES */
	/*
	 * What a relayout just moved (triples of old start block, length, new
	 * start or UINT64_MAX; sorted by old start, disjoint): traced metadata
	 * there moves along, or is left out where it has no one new place.
	 * NULL: every traced metadata block is kept where it was.
	 */
	const uint64_t *moved_from;
	size_t nmoved_from;
};

/*
 * Where the metadata ranges come from. TRACE: the trace's M ranges (what
 * the traced boot read through the block device, at the positions of the
 * time of the trace). FILES: what opening the packed files needs on the
 * filesystem now: every directory on their paths (data and mapping
 * blocks), the inode table block of each inode, each file's extent or
 * indirect blocks; each block at the first access of the first file that
 * needs it. relayout moves directories and mapping blocks, so after it
 * the trace's M ranges are partly out of date: given the blocks it moved
 * away from (opts.moved_from, relayout's own repack), TRACE leaves those
 * out (bp_meta_live()); FILES adds the new places. The default is both.
 * Since trace version 2 the trace names most metadata by owner
 * (tracefile.h): TRACE takes those blocks where they are now
 * (bp_trace_meta_now(); the journal left out), and FILES adds each
 * directory the trace names, whole, as relayout lays it out.
 */
#define BP_PACK_META_TRACE	0x1
#define BP_PACK_META_FILES	0x2

/* Why traced files are not in the pack. */
enum bp_pack_skip {
	BP_PACK_SKIP_MISSING = 0,	/* path not found now */
	BP_PACK_SKIP_NOT_REGULAR,	/* not a regular file now */
	BP_PACK_SKIP_BAD_PATH,		/* its canonical path (fspath.h) is too long */
	BP_PACK_SKIP_NO_BLOCKS,		/* inline data, or only holes/unwritten in range */
	BP_PACK_SKIP_CUT,		/* every range cut by the budget */
	BP_PACK_SKIP_LINK,		/* another name (hard link) of a file packed under its first */
	BP_PACK_SKIP_NR,
};

struct bp_pack_report {
	uint64_t nmeta, nentries, nfiles;	/* in the pack */
	uint64_t meta_bytes, file_bytes;	/* bytes to read */
	uint64_t cut_ranges, cut_bytes;		/* left out by the budget */
	uint64_t budget;			/* the budget applied, 0: none */
	struct bp_budget_in budget_in;		/* with opts.budget_auto: the rule's inputs */
	struct bp_budget_out budget_auto;	/* and its result; .bound GIVEN otherwise */
	uint64_t meta_stale_blocks;		/* traced metadata blocks moved, no new place */
	uint64_t meta_moved_blocks;		/* traced metadata blocks moved along */
	uint64_t meta_owned_blocks;		/* traced blocks named by owner, found now */
	uint64_t meta_gone_blocks;		/* traced blocks whose owner has them no more */
	uint64_t files_traced;
	uint64_t files_changed;			/* ino/generation/size/mtime differ from the trace */
	uint64_t files_skipped[BP_PACK_SKIP_NR];
	uint64_t page_size;			/* the pack is for */
	uint64_t pack_size;			/* bytes of the pack file */
	uint64_t body_raw_size;			/* bytes of the body before deflate */
	int compressed;
};

/* Names of enum bp_pack_skip values ("missing", ...). */
const char *bp_pack_skip_name(enum bp_pack_skip s);

/* The running system's page size (sysconf), 4096 if it cannot say. */
uint32_t bp_pack_system_page_size(void);

/* Build the pack bytes (malloc'd) for trace t on the open filesystem fs. */
errcode_t bp_pack_build(ext2_filsys fs, const struct bp_trace *t, const struct bp_pack_opts *o,
			void **ret_buf, size_t *ret_len, struct bp_pack_report *rep,
			struct bp_err *err);

/* bp_pack_build() then bp_pack_save() to o->output. rep may be NULL. */
errcode_t bp_pack_build_write(ext2_filsys fs, const struct bp_trace *t,
			      const struct bp_pack_opts *o, struct bp_pack_report *rep,
			      struct bp_err *err);

#endif /* BP_PACK_BUILD_H */
