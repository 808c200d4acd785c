// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * collect.c --- filemap events to page ranges per inode, with first access
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "trace-engine.h"

/* At most this many events are held (about 40 bytes each). */
#define BP_COLLECT_MAX_EVENTS (64UL << 20)

struct bp_event {
	uint64_t ts;
	uint64_t ino;
	uint64_t start, end;
	uint32_t kdev;
	uint32_t kind;
};

struct bp_collect {
	struct bp_event *ev;
	size_t n, cap;
	uint64_t lost;
};

struct bp_collect *bp_collect_new(void)
{
	return calloc(1, sizeof(struct bp_collect));
}

void bp_collect_free(struct bp_collect *c)
{
	if (!c)
		return;
	free(c->ev);
	free(c);
}

errcode_t bp_collect_event(struct bp_collect *c, enum bp_ev_kind kind, uint32_t kdev,
			   uint64_t ino, uint64_t start, uint64_t end, uint64_t ts_ns)
{
	struct bp_event *e;

	if (end <= start)
		return EINVAL;
	if (c->n == c->cap && c->n >= BP_COLLECT_MAX_EVENTS)
		return E2BIG;
	if (bp_array_reserve((void **)&c->ev, &c->cap, c->n, sizeof(*c->ev), 4096))
		return ENOMEM;
	e = &c->ev[c->n++];
	e->ts = ts_ns;
	e->ino = ino;
	e->start = start;
	e->end = end;
	e->kdev = kdev;
	e->kind = kind;
	return 0;
}

void bp_collect_lost(struct bp_collect *c, uint64_t n)
{
	c->lost += n;
}

uint64_t bp_collect_get_lost(const struct bp_collect *c)
{
	return c->lost;
}

void bp_collect_set_lost(struct bp_collect *c, uint64_t n)
{
	c->lost = n;
}

uint64_t bp_collect_nevents(const struct bp_collect *c)
{
	return c->n;
}

size_t bp_collect_devices(const struct bp_collect *c, uint32_t *kdevs, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < c->n; i++) {
		uint32_t k = c->ev[i].kdev;

		if (!BP_KDEV_MAJOR(k))
			continue;
		for (j = 0; j < n && j < max; j++)
			if (kdevs[j] == k)
				break;
		if (j < n)
			continue;
		if (n < max)
			kdevs[n] = k;
		n++;
	}
	/* insertion sort: a handful of devices */
	for (i = 1; i < MIN(n, max); i++)
		for (j = i; j > 0 && kdevs[j - 1] > kdevs[j]; j--) {
			uint32_t x = kdevs[j];

			kdevs[j] = kdevs[j - 1];
			kdevs[j - 1] = x;
		}
	return n;
}

void bp_collected_free(struct bp_collected *col)
{
	size_t i;

	for (i = 0; i < col->nfiles; i++)
		free(col->files[i].r);
	free(col->files);
	free(col->meta);
	memset(col, 0, sizeof(*col));
}

static int cmp_ev(const void *a, const void *b)
{
	const struct bp_event *x = a, *y = b;

	if (x->kdev != y->kdev)
		return x->kdev < y->kdev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Index of the first boundary >= v in the sorted array b[0..n). */
static size_t lower(const uint64_t *b, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Events ev[0..n) of one inode to disjoint ranges. The events' boundaries
 * cut the byte axis into segments; each segment gets the earliest add and
 * the earliest access time of the events covering it. A segment is kept if
 * added (and accessed, with access), timed by its first access.
 */
static errcode_t one_inode(const struct bp_event *ev, size_t n, int use_access, uint64_t t0,
			   struct bp_prange **ret, size_t *nret)
{
	uint64_t *b, *tadd, *tacc;
	struct bp_prange *r = NULL;
	size_t i, j, nb = 0, nr = 0;
	errcode_t rc = ENOMEM;

	*ret = NULL;
	*nret = 0;
	b = malloc(2 * n * sizeof(*b));
	tadd = malloc(2 * n * sizeof(*tadd));
	tacc = malloc(2 * n * sizeof(*tacc));
	if (!b || !tadd || !tacc)
		goto out;
	for (i = 0; i < n; i++) {
		b[nb++] = ev[i].start;
		b[nb++] = ev[i].end;
	}
	qsort(b, nb, sizeof(*b), cmp_u64);
	for (i = 1, j = 0; i < nb; i++)
		if (b[i] != b[j])
			b[++j] = b[i];
	nb = j + 1;
	for (i = 0; i < nb; i++)
		tadd[i] = tacc[i] = UINT64_MAX;
	for (i = 0; i < n; i++) {
		uint64_t *tt = ev[i].kind == BP_EV_ADD ? tadd : tacc;

		for (j = lower(b, nb, ev[i].start); j + 1 < nb && b[j] < ev[i].end; j++)
			if (ev[i].ts < tt[j])
				tt[j] = ev[i].ts;
	}
	r = malloc(nb * sizeof(*r));
	if (!r)
		goto out;
	for (j = 0; j + 1 < nb; j++) {
		uint64_t t;

		if (tadd[j] == UINT64_MAX)
			continue;
		if (use_access) {
			if (tacc[j] == UINT64_MAX)
				continue;
			t = tacc[j];
		} else {
			t = tadd[j];
		}
		t -= t0;
		/*
		 * Touching segments are joined only when they were first read
		 * in one go (the same time); the rest is for bp_trace_normalize,
		 * which sees every file and keeps apart what the boot read apart.
		 */
		if (nr && r[nr - 1].end == b[j] && r[nr - 1].first_ns == t) {
			r[nr - 1].end = b[j + 1];
			continue;
		}
		r[nr].start = b[j];
		r[nr].end = b[j + 1];
		r[nr].first_ns = t;
		nr++;
	}
	rc = 0;
	if (nr) {
		*ret = r;
		*nret = nr;
		r = NULL;
	}
out:
	free(r);
	free(b);
	free(tadd);
	free(tacc);
	return rc;
}

errcode_t bp_collect_finish(struct bp_collect *c, uint32_t kdev, struct bp_collected *out,
			    struct bp_err *err)
{
	size_t i, j, kept = 0, cap = 0;
	uint64_t t0 = UINT64_MAX, naccess_all = 0;
	struct bp_event *fe;
	errcode_t rc;

	memset(out, 0, sizeof(*out));
	out->lost = c->lost;
	/* Partition in place: file events of kdev first, then metadata. */
	for (i = 0; i < c->n; i++) {
		struct bp_event *e = &c->ev[i];

		if (e->kind == BP_EV_ACCESS)
			naccess_all++;
		if (e->kdev == kdev) {
			if (e->kind == BP_EV_ADD)
				out->added++;
			else
				out->accessed++;
		} else if (!(BP_KDEV_MAJOR(e->kdev) == 0 && e->ino == kdev &&
			     e->kind == BP_EV_ADD)) {
			continue;
		} else {
			out->added++;
		}
		if (e->ts < t0)
			t0 = e->ts;
		c->ev[kept++] = *e;
	}
	c->n = kept;
	out->used_access = naccess_all > 0;
	/* Sorted by device, inode, offset: metadata is one group, each file one. */
	qsort(c->ev, c->n, sizeof(*c->ev), cmp_ev);
	fe = c->ev;
	for (i = 0; i < c->n; i = j) {
		struct bp_cfile *cf;

		for (j = i; j < c->n && fe[j].ino == fe[i].ino && fe[j].kdev == fe[i].kdev; j++)
			;
		if (fe[i].kdev != kdev) {
			/* metadata: every page read counts (buffer heads have no access event) */
			struct bp_prange *mr;
			size_t n;

			rc = one_inode(&fe[i], j - i, 0, t0, &mr, &n);
			if (rc)
				goto fail;
			if (out->meta) {
				struct bp_prange *p = realloc(out->meta,
							      (out->nmeta + n) * sizeof(*p));

				if (!p) {
					free(mr);
					rc = ENOMEM;
					goto fail;
				}
				memcpy(p + out->nmeta, mr, n * sizeof(*p));
				free(mr);
				out->meta = p;
				out->nmeta += n;
			} else {
				out->meta = mr;
				out->nmeta = n;
			}
			continue;
		}
		rc = bp_array_reserve((void **)&out->files, &cap, out->nfiles,
				      sizeof(*out->files), 64);
		if (rc)
			goto fail;
		cf = &out->files[out->nfiles];
		cf->ino = fe[i].ino;
		rc = one_inode(&fe[i], j - i, out->used_access, t0, &cf->r, &cf->n);
		if (rc)
			goto fail;
		if (cf->n)
			out->nfiles++;
	}
	return 0;
fail:
	bp_collected_free(out);
	return bp_err_set(err, rc, "while collecting trace events: %s", strerror((int)rc));
}
