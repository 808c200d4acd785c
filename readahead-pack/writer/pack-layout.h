/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-layout.h --- how contiguous a pack's ranges are on the device
 */
#ifndef BP_PACK_LAYOUT_H
#define BP_PACK_LAYOUT_H

#include <stdint.h>

#include "pack-parse.h"

/*
 * Both figures count with the one rule of contig.h (block granularity).
 * "discontig" is the discontiguity figure every verb prints: the ranges in
 * first-access order (budget_pos). "reading_seeks" is another figure: the
 * same rule over the order bootpack-read issues the reads in (metadata by
 * offset, then entries by device offset).
 */
struct bp_pack_layout {
	uint64_t ranges;		/* meta + entries */
	uint64_t meta_bytes, file_bytes;
	uint64_t discontig;		/* in first-access order (budget_pos) */
	uint64_t reading_seeks;		/* in reading order: meta by offset, then entries */
	uint64_t gap_bytes;		/* bytes skipped forward between ranges in that order */
	uint64_t file_phys_min;		/* physical span of the file entries */
	uint64_t file_phys_end;		/* (0, 0 without entries) */
	uint64_t files;			/* distinct paths */
};

/* 0 or -ENOMEM. */
int bp_pack_layout(const struct bp_pack *p, struct bp_pack_layout *l);

#endif /* BP_PACK_LAYOUT_H */
