// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-contig.c --- the one discontiguity rule (include/contig.h)
 */
#include "contig.h"
#include "unit.h"

int main(void)
{
	struct bp_contig c;

	bp_contig_init(&c, 4096);
	CHECK(bp_contig_runs(&c) == 0 && c.discontig == 0);
	bp_contig_add(&c, 0, 4096);		/* block 0 */
	bp_contig_add(&c, 4096, 8192);		/* 1-2: next block */
	bp_contig_add(&c, 4096, 100);		/* inside the run */
	bp_contig_add(&c, 3 * 4096 + 10, 5);	/* block 3, unaligned start */
	bp_contig_add(&c, 0, 0);		/* empty: ignored */
	CHECK(c.discontig == 0 && bp_contig_runs(&c) == 1 && c.reads == 4);
	bp_contig_add(&c, 10 * 4096, 4096);	/* skips 4-9 */
	CHECK(c.discontig == 1 && c.gap_bytes == 6 * 4096);
	bp_contig_add(&c, 5 * 4096, 4096);	/* backwards */
	CHECK(c.discontig == 2 && c.gap_bytes == 6 * 4096 && bp_contig_runs(&c) == 3);
	bp_contig_add(&c, 6 * 4096, 4 * 4096);	/* 6-9 */
	bp_contig_add(&c, 10 * 4096, 4096);	/* 10: continues 6-9 */
	CHECK(c.discontig == 2);

	/* A re-read inside a run does not shrink it. */
	bp_contig_init(&c, 1024);
	bp_contig_add(&c, 0, 20 * 1024);	/* 0-19 */
	bp_contig_add(&c, 5 * 1024, 1024);	/* 5 */
	bp_contig_add(&c, 20 * 1024, 1024);	/* 20 */
	CHECK(c.discontig == 0);
	return unit_exit();
}
