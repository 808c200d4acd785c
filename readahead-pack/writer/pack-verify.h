/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-verify.h --- which entries of a pack no longer match the filesystem
 */
#ifndef BP_PACK_VERIFY_H
#define BP_PACK_VERIFY_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "pack-parse.h"
#include "tracefile.h"

/* Why an entry is stale; the first reason found, in this order. */
enum bp_pack_stale {
	BP_PACK_FRESH = 0,
	BP_PACK_STALE_MISSING,		/* path not found */
	BP_PACK_STALE_NOT_REGULAR,	/* path is no longer a regular file */
	BP_PACK_STALE_INODE,		/* path resolves to another inode */
	BP_PACK_STALE_GENERATION,	/* same inode number, another generation */
	BP_PACK_STALE_SIZE,
	BP_PACK_STALE_MTIME,
	BP_PACK_STALE_MOVED,		/* the range's blocks are elsewhere now */
	BP_PACK_STALE_NR,
};

struct bp_pack_check {
	int uuid_match;			/* always 1: another filesystem's pack is refused */
	uint8_t *state;			/* enum bp_pack_stale per entry (malloc'd) */
	uint64_t count[BP_PACK_STALE_NR];	/* entries per state */
	uint64_t stale_entries, stale_bytes, stale_files;
};

const char *bp_pack_stale_name(enum bp_pack_stale s);

/*
 * Check every entry of p against fs (read-only). A pack of another filesystem
 * is BP_ET_TRACE_MISMATCH (fsident.h). Free c with bp_pack_check_free().
 */
errcode_t bp_pack_check(ext2_filsys fs, const struct bp_pack *p, struct bp_pack_check *c,
			struct bp_err *err);
void bp_pack_check_free(struct bp_pack_check *c);

/*
 * The invariant of a pack written for a trace: every block the trace read
 * is in the pack or was cut by its budget. bp_pack_cover() takes each block
 * the trace read where it is on fs now (the file ranges through the files'
 * current mapping, the metadata through bp_trace_meta_now(): by owner) and
 * looks it up among the pack's ranges. A block not in the pack counts as
 * cut when the pack says its budget cut something and the blocks not found
 * add up to no more than the bytes it cut; otherwise as missing. Not
 * counted against the pack: the journal (never packed), blocks past the
 * end of the filesystem, files gone or replaced since the trace.
 *
 * Kinds: enum bp_own_kind (tracefile.h) for metadata, BP_COVER_DATA for
 * file data. Also the read requests and seeks of the pack's reading order
 * (metadata by offset, then entries by offset: what bootpack-read issues)
 * against the minimum its layout allows (every range of the pack merged by
 * position, one pass), counted with the rule of contig.h.
 */
#define BP_COVER_DATA BP_OWN_NR
#define BP_COVER_NR (BP_OWN_NR + 1)
#define BP_COVER_EXAMPLES 16

struct bp_pack_cover {
	uint64_t read[BP_COVER_NR];	/* blocks the trace read, where they are now */
	uint64_t packed[BP_COVER_NR];	/* of those, in the pack */
	uint64_t cut[BP_COVER_NR];	/* not in the pack, within what the budget cut */
	uint64_t missing[BP_COVER_NR];	/* not in the pack, not explained by the budget */
	uint64_t journal, past_end, gone;	/* not counted (see above): blocks */
	uint64_t gone_files;		/* traced files gone or replaced */
	uint64_t missing_total;
	struct {
		uint32_t kind;
		uint64_t block;
		const char *path;	/* data: the traced file's path (into the trace) */
	} example[BP_COVER_EXAMPLES];	/* the first missing blocks */
	size_t nexamples;
	uint64_t requests, seeks;	/* the pack's reading order */
	uint64_t min_requests, min_seeks;	/* its ranges merged by position */
};

/* "data" for BP_COVER_DATA, else bp_own_kind_name(). */
const char *bp_cover_kind_name(uint32_t kind);

/* Check p against t on fs (read-only). t must outlive c (example paths). */
errcode_t bp_pack_cover(ext2_filsys fs, const struct bp_pack *p, const struct bp_trace *t,
			struct bp_pack_cover *c, struct bp_err *err);

/*
 * bp_pack_build_write() with the invariant checked before anything is
 * written: the pack is built in memory, parsed back, bp_pack_cover()ed
 * against t; a block missing (neither in the pack nor cut) is
 * BP_ET_PACK_CORRUPT and nothing is written. cover (may be NULL) gets
 * the figures. What the loop calls before it installs a pack.
 */
struct bp_pack_opts;
struct bp_pack_report;
errcode_t bp_pack_build_write_checked(ext2_filsys fs, const struct bp_trace *t,
				      const struct bp_pack_opts *o, struct bp_pack_report *rep,
				      struct bp_pack_cover *cover, struct bp_err *err);

#endif /* BP_PACK_VERIFY_H */
