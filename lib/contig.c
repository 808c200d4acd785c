// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * contig.c --- discontiguities of a sequence of reads (rule in contig.h)
 */
#include <string.h>

#include "contig.h"

void bp_contig_init(struct bp_contig *c, uint64_t block_size)
{
	memset(c, 0, sizeof(*c));
	c->block_size = block_size ? block_size : 1;
}

void bp_contig_add(struct bp_contig *c, uint64_t offset, uint64_t length)
{
	uint64_t first, last;

	if (!length)
		return;
	first = offset / c->block_size;
	last = (offset + length - 1) / c->block_size;
	if (c->reads && first >= c->run_first && first <= c->run_last + 1) {
		if (last > c->run_last)
			c->run_last = last;
		c->reads++;
		return;
	}
	if (c->reads) {
		c->discontig++;
		if (first > c->run_last + 1)
			c->gap_bytes += (first - c->run_last - 1) * c->block_size;
	}
	c->reads++;
	c->run_first = first;
	c->run_last = last;
}
