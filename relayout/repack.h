/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repack.h --- after a relayout, write the pack again for the new layout
 */
#ifndef BP_REPACK_H
#define BP_REPACK_H

#include "pack-build.h"
#include "relayout.h"
#include "tracefile.h"

enum bp_repack_mode {
	BP_REPACK_AUTO = 0,	/* rewrite the default pack if it is of this filesystem */
	BP_REPACK_PATH,		/* write the given pack */
	BP_REPACK_NEVER,
};

/*
 * The pack's budget: automatic (in: the machine's inputs, have_in set), or
 * size (0: none). Not given (no --budget): the default pack rewritten
 * keeps its kind, automatic (when have_in) or its size.
 */
struct bp_repack_budget {
	int automatic;
	int given;
	int have_in;
	uint64_t size;
	struct bp_budget_in in;
};

/*
 * Policy of bootpack relayout (CLI layer: prints what it does). Returns an
 * exit code: BP_EX_OK, or BP_EX_STALE when the pack could not be written
 * and no longer describes the filesystem.
 */
int bp_relayout_repack(enum bp_repack_mode mode, const char *path, const char *device,
		       const struct bp_trace *t, const struct bp_relayout_report *rep,
		       const struct bp_repack_budget *budget, int quiet);

#endif /* BP_REPACK_H */
