/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-layout.h --- how contiguous a pack's ranges are on the device
 */
#ifndef BP_PACK_LAYOUT_H
#define BP_PACK_LAYOUT_H

#include <stdint.h>

#include "pack-parse.h"

/*
 * Ranges are compared at block granularity: the next range is contiguous
 * with the previous one when it starts in the block after the previous
 * one's last block, or inside the previous range (shared block).
 */
struct bp_pack_layout {
	uint64_t ranges;		/* meta + entries */
	uint64_t meta_bytes, file_bytes;
	uint64_t discontig;		/* in reading order: meta by offset, then entries */
	uint64_t gap_bytes;		/* bytes skipped forward between ranges in that order */
	uint64_t discontig_time;	/* in first-access order (budget_pos) */
	uint64_t file_phys_min;		/* physical span of the file entries */
	uint64_t file_phys_end;		/* (0, 0 without entries) */
	uint64_t files;			/* distinct paths */
};

/* 0 or -ENOMEM. */
int bp_pack_layout(const struct bp_pack *p, struct bp_pack_layout *l);

#endif /* BP_PACK_LAYOUT_H */
