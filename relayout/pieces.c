// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pieces.c --- a file's traced ranges cut into pieces of the boot stream
 *
 * The rule (why 64 KiB, how a small run joins a neighbour) is in bootset.c's
 * header comment; this file holds the pieces and the cutting.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "rl-int.h"
#include "rl-pieces.h"

errcode_t rl_piece_add(struct pieces *p, uint32_t item, int kind, uint64_t rank,
			   size_t first, size_t n)
{
	if (bp_array_reserve((void **)&p->v, &p->a, p->n, sizeof(*p->v), 16))
		return ENOMEM;
	p->v[p->n] = (struct piece){
		.rank = rank, .seq = p->n, .item = item, .kind = (uint8_t)kind,
		.first = first, .n = n,
	};
	p->n++;
	return 0;
}

int rl_piece_cmp(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->front != y->front)
		return x->front > y->front ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int tr_cmp(const void *a, const void *b)
{
	const struct rl_trange *x = a, *y = b;

	return x->a < y->a ? -1 : x->a > y->a;
}

#define NONE SIZE_MAX

/*
 * A group: traced blocks of a file at positions [p0, p1) of the sequence of
 * all its traced blocks in logical order. Groups tile that sequence.
 */
struct grp {
	blk64_t p0, p1;
	uint64_t rank;
	size_t prev, next;
};

struct tiling {
	const struct rl_trange *tr;
	const blk64_t *pos;	/* pos[i]: position of tr[i].a; pos[n] = total */
	size_t n;
};

/* Index of the range holding position q. */
static size_t tr_at(const struct tiling *t, blk64_t q)
{
	size_t lo = 0, hi = t->n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (t->pos[mid] <= q)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t span_rank(const struct tiling *t, blk64_t p0, blk64_t p1)
{
	uint64_t r = UINT64_MAX;
	size_t i;

	for (i = tr_at(t, p0); i < t->n && t->pos[i] < p1; i++)
		r = MIN(r, t->tr[i].rank);
	return r;
}

/*
 * Cut an item's traced ranges (sorted here by logical block) into pieces of
 * at least minb blocks, each ranked by its earliest first access. A group
 * smaller than minb joins a logical neighbour, whichever makes the reader
 * fetch fewer blocks before the boot needs them:
 *  - a neighbour first read earlier absorbs it (its blocks come early: the
 *    group's size, < minb);
 *  - a neighbour first read later lends it the blocks next to it until the
 *    group reaches minb (those come early: < minb), or is absorbed whole
 *    when what it would keep were smaller than minb.
 * Linear in the ranges (each step merges, or moves on, or fills a group).
 */
errcode_t rl_make_pieces(struct pieces *p, uint32_t idx, struct rl_item *it, blk64_t minb)
{
	size_t n = it->ntr, i, head = 0, cur = 0, nt = 0;
	struct rl_trange *out = NULL;
	struct tiling t;
	blk64_t *pos;
	struct grp *g;
	errcode_t rc = 0;

	if (!n)
		return 0;
	qsort(it->tr, n, sizeof(*it->tr), tr_cmp);
	g = malloc(n * sizeof(*g));
	pos = malloc((n + 1) * sizeof(*pos));
	if (!g || !pos) {
		rc = ENOMEM;
		goto out;
	}
	pos[0] = 0;
	for (i = 0; i < n; i++) {
		pos[i + 1] = pos[i] + (it->tr[i].b - it->tr[i].a);
		g[i] = (struct grp){
			.p0 = pos[i], .p1 = pos[i + 1], .rank = it->tr[i].rank,
			.prev = i ? i - 1 : NONE, .next = i + 1 < n ? i + 1 : NONE,
		};
	}
	t = (struct tiling){ .tr = it->tr, .pos = pos, .n = n };
	while (cur != NONE) {
		struct grp *x = &g[cur];
		blk64_t size = x->p1 - x->p0, need = minb - size, best = ~(blk64_t)0;
		size_t q = NONE, c;

		if (size >= minb || (x->prev == NONE && x->next == NONE)) {
			cur = x->next;
			continue;
		}
		for (c = 0; c < 2; c++) {
			size_t y = c ? x->next : x->prev;
			blk64_t cost;

			if (y == NONE)
				continue;
			if (g[y].rank <= x->rank)
				cost = size;
			else if (g[y].p1 - g[y].p0 >= need + minb)
				cost = need;
			else
				cost = g[y].p1 - g[y].p0;
			if (cost < best) {
				best = cost;
				q = y;
			}
		}
		if (g[q].rank > x->rank && g[q].p1 - g[q].p0 >= need + minb) {
			/* Borrow the blocks of q next to x. */
			if (q == x->next) {
				x->p1 += need;
				g[q].p0 += need;
			} else {
				x->p0 -= need;
				g[q].p1 -= need;
			}
			g[q].rank = span_rank(&t, g[q].p0, g[q].p1);
			cur = x->next;
			continue;
		}
		/* Merge x and q into the one of them that stays in the list: q. */
		g[q].p0 = MIN(g[q].p0, x->p0);
		g[q].p1 = MAX(g[q].p1, x->p1);
		g[q].rank = MIN(g[q].rank, x->rank);
		if (q == x->prev) {
			g[q].next = x->next;
			if (x->next != NONE)
				g[x->next].prev = q;
		} else {
			g[q].prev = x->prev;
			if (x->prev != NONE)
				g[x->prev].next = q;
			else
				head = q;
		}
		cur = q;
	}
	/* The ranges again, cut at the group boundaries. */
	out = malloc((2 * n) * sizeof(*out));
	if (!out) {
		rc = ENOMEM;
		goto out;
	}
	for (cur = head; cur != NONE && !rc; cur = g[cur].next) {
		size_t first = nt;

		for (i = tr_at(&t, g[cur].p0); i < n && pos[i] < g[cur].p1; i++) {
			blk64_t lo = MAX(g[cur].p0, pos[i]), hi = MIN(g[cur].p1, pos[i + 1]);

			if (lo >= hi)
				continue;
			if (nt == 2 * n) {	/* cannot happen: each boundary cuts one range */
				rc = EINVAL;
				break;
			}
			out[nt++] = (struct rl_trange){
				.a = it->tr[i].a + (lo - pos[i]), .b = it->tr[i].a + (hi - pos[i]),
				.rank = g[cur].rank,
			};
		}
		if (!rc)
			rc = rl_piece_add(p, idx, PIECE_RANGES, g[cur].rank, first, nt - first);
	}
	if (!rc) {
		free(it->tr);
		it->tr = out;
		it->ntr = nt;
		it->atr = 2 * n;
		out = NULL;
	}
out:
	free(out);
	free(pos);
	free(g);
	return rc;
}

