// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-layout.c --- contiguity of a pack's ranges (for dump and verify)
 */
#include <errno.h>
#include <stdlib.h>

#include "contig.h"
#include "pack-layout.h"

struct span {
	uint64_t pos, phys, len;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->phys < y->phys ? -1 : x->phys > y->phys;
}

int bp_pack_layout(const struct bp_pack *p, struct bp_pack_layout *l)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	struct bp_contig w, wt;
	struct bp_pack_entry e;
	struct bp_pack_meta m;
	struct span *s;
	uint64_t n = (uint64_t)in->nmeta + in->nentries;
	uint32_t i;

	*l = (struct bp_pack_layout){ .ranges = n, .files = in->nfiles };
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	bp_contig_init(&w, in->block_size);
	bp_contig_init(&wt, in->block_size);
	for (i = 0; i < in->nmeta; i++) {
		bp_pack_meta(p, i, &m);
		bp_contig_add(&w, m.offset, m.length);
		l->meta_bytes += m.length;
		s[i] = (struct span){ m.budget_pos, m.offset, m.length };
	}
	for (i = 0; i < in->nentries; i++) {
		bp_pack_entry(p, i, &e);
		bp_contig_add(&w, e.phys, e.length);
		l->file_bytes += e.length;
		if (i == 0)
			l->file_phys_min = e.phys;
		if (e.phys + e.length > l->file_phys_end)
			l->file_phys_end = e.phys + e.length;
		s[in->nmeta + i] = (struct span){ e.budget_pos, e.phys, e.length };
	}
	qsort(s, n, sizeof(*s), cmp_span);
	for (i = 0; i < n; i++)
		bp_contig_add(&wt, s[i].phys, s[i].len);
	l->reading_seeks = w.discontig;
	l->gap_bytes = w.gap_bytes;
	l->discontig = wt.discontig;
	free(s);
	return 0;
}
