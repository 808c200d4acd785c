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

#endif /* BP_PACK_VERIFY_H */
