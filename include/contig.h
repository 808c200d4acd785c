/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contig.h --- discontiguities of a sequence of reads: the one definition
 *
 * Every verb that prints "discontiguities" (dump, verify --trace,
 * verify --pack, bench, relayout) counts them here, with this rule
 * (documented in bootpack(8)):
 *
 *   Take the reads in first-access order and round each one out to the
 *   filesystem blocks it touches. Consecutive reads that continue each
 *   other form a run. A read continues the current run when its first
 *   block lies inside the run or is the block right after the run's last
 *   block (a block shared with the run is not read twice); it then extends
 *   the run. Every other read starts a new run: one discontiguity. A
 *   stream of n runs has n - 1 discontiguities; 0 means one sequential
 *   read.
 *
 * Reads without a physical position (holes, unmapped pages) are not passed
 * in. Which reads make the stream is up to the verb and is stated where the
 * figure is printed; the counting rule is only this one.
 */
#ifndef BP_CONTIG_H
#define BP_CONTIG_H

#include <stdint.h>

struct bp_contig {
	uint64_t block_size;
	uint64_t run_first, run_last;	/* blocks of the current run */
	uint64_t reads;			/* reads passed in (non-empty) */
	uint64_t discontig;		/* reads that did not continue the stream */
	uint64_t gap_bytes;		/* bytes skipped forward at discontiguities */
};

void bp_contig_init(struct bp_contig *c, uint64_t block_size);

/* One read of length bytes at physical byte offset; empty reads are ignored. */
void bp_contig_add(struct bp_contig *c, uint64_t offset, uint64_t length);

/* Physical runs so far: discontiguities + 1, or 0 before the first read. */
static inline uint64_t bp_contig_runs(const struct bp_contig *c)
{
	return c->reads ? c->discontig + 1 : 0;
}

#endif /* BP_CONTIG_H */
