// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * build.c --- adding records to a trace and normalising it (tracefile.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tracefile.h"

errcode_t bp_trace_set_str(char **field, const char *value)
{
	char *s = strdup(value ? value : "");

	if (!s)
		return ENOMEM;
	free(*field);
	*field = s;
	return 0;
}

struct bp_trace_file *bp_trace_add_file(struct bp_trace *t, uint32_t ino, uint32_t generation,
					uint64_t size, int64_t mtime, const char *path)
{
	struct bp_trace_file *f;

	if (strlen(path) >= BP_TRACE_PATH_MAX)
		return NULL;
	if (bp_array_reserve((void **)&t->files, &t->afiles, t->nfiles, sizeof(*t->files), 16))
		return NULL;
	f = &t->files[t->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	f->ino = ino;
	f->generation = generation;
	f->size = size;
	f->mtime = mtime;
	f->first_ns = UINT64_MAX;
	t->nfiles++;
	return f;
}

errcode_t bp_trace_file_add_range(struct bp_trace_file *f, uint64_t offset, uint64_t length,
				  uint64_t first_ns, uint64_t phys)
{
	struct bp_trace_range *r;

	if (!length || offset + length < offset)
		return EINVAL;
	if (bp_array_reserve((void **)&f->ranges, &f->aranges, f->nranges, sizeof(*f->ranges),
			      16))
		return ENOMEM;
	r = &f->ranges[f->nranges++];
	r->offset = offset;
	r->length = length;
	r->first_ns = first_ns;
	r->phys = phys;
	if (first_ns < f->first_ns)
		f->first_ns = first_ns;
	return 0;
}

errcode_t bp_trace_add_meta(struct bp_trace *t, uint64_t offset, uint64_t length,
			    uint64_t first_ns)
{
	struct bp_trace_meta *m;

	if (!length || offset + length < offset)
		return EINVAL;
	if (bp_array_reserve((void **)&t->meta, &t->ameta, t->nmeta, sizeof(*t->meta), 16))
		return ENOMEM;
	m = &t->meta[t->nmeta++];
	*m = (struct bp_trace_meta){ offset, length, first_ns, BP_OWN_NONE };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct bp_trace_range *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

static int cmp_meta(const void *a, const void *b)
{
	const struct bp_trace_meta *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

static int cmp_file(const void *a, const void *b)
{
	const struct bp_trace_file *x = a, *y = b;

	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* phys of the byte at file offset off within r, or BP_PHYS_NONE. */
static uint64_t phys_at(const struct bp_trace_range *r, uint64_t off)
{
	return r->phys == BP_PHYS_NONE ? BP_PHYS_NONE : r->phys + (off - r->offset);
}

/*
 * Merge a file's ranges, sorted by offset. Two ranges join when they overlap,
 * or touch and belong to the same run of first access (see access_runs());
 * either way only when the second continues the first physically (both
 * holes, or phys in step). Overlapping ranges that disagree physically are
 * clipped: the earlier offset wins for the bytes they share. runs[i] is the
 * run of ranges[i]; NULL joins every touching pair.
 */
static void merge_ranges(struct bp_trace_file *f, const uint32_t *runs)
{
	size_t i, n = 0;
	uint32_t run;

	if (!f->nranges)
		return;
	run = runs ? runs[0] : 0;
	for (i = 1; i < f->nranges; i++) {
		struct bp_trace_range *p = &f->ranges[n], *r = &f->ranges[i];
		uint64_t pend = p->offset + p->length, rend = r->offset + r->length;
		int joins = r->offset < pend || (r->offset == pend && (!runs || runs[i] == run));

		if (joins && phys_at(p, r->offset) == r->phys) {
			if (rend > pend) {
				p->length = rend - p->offset;
				run = runs ? runs[i] : 0;
			}
			if (r->first_ns < p->first_ns)
				p->first_ns = r->first_ns;
			continue;
		}
		if (r->offset < pend) {
			if (rend <= pend)
				continue;	/* inside p, and contradicts it: p wins */
			if (r->phys != BP_PHYS_NONE)
				r->phys += pend - r->offset;
			r->length = rend - pend;
			r->offset = pend;
		}
		f->ranges[++n] = *r;
		run = runs ? runs[i] : 0;
	}
	f->nranges = n + 1;
	f->first_ns = UINT64_MAX;
	for (i = 0; i < f->nranges; i++)
		if (f->ranges[i].first_ns < f->first_ns)
			f->first_ns = f->ranges[i].first_ns;
}

struct access_key {
	uint64_t first_ns;
	size_t file;
	size_t slot;		/* index into the runs array */
};

static int cmp_access(const void *a, const void *b)
{
	const struct access_key *x = a, *y = b;

	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * Runs of first access. Every range of every file, in first-access order,
 * falls into runs: a run is a stretch of that order in which only one file
 * is read. A boot that reads the head of a file, then other files, then the
 * file's tail makes two runs of that file; its two ranges stay apart even
 * where they touch, so relayout can place each where the boot needs it
 * (bootpack-relayout(8), Pieces; bootpack-trace(5), R records). *ret holds
 * one run number per range: files in order, each file's ranges in their
 * sorted order.
 */
static errcode_t access_runs(const struct bp_trace *t, uint32_t **ret)
{
	struct access_key *k;
	uint32_t *runs, run = 0;
	size_t i, j, n = 0, slot = 0;

	*ret = NULL;
	for (i = 0; i < t->nfiles; i++)
		n += t->files[i].nranges;
	if (!n)
		return 0;
	k = malloc(n * sizeof(*k));
	runs = malloc(n * sizeof(*runs));
	if (!k || !runs) {
		free(k);
		free(runs);
		return ENOMEM;
	}
	for (i = 0; i < t->nfiles; i++)
		for (j = 0; j < t->files[i].nranges; j++, slot++) {
			k[slot].first_ns = t->files[i].ranges[j].first_ns;
			k[slot].file = i;
			k[slot].slot = slot;
		}
	qsort(k, n, sizeof(*k), cmp_access);
	for (i = 0; i < n; i++) {
		if (i && k[i].file != k[i - 1].file)
			run++;
		runs[k[i].slot] = run;
	}
	free(k);
	*ret = runs;
	return 0;
}

errcode_t bp_trace_add_owned(struct bp_trace *t, const struct bp_trace_owned *o)
{
	if (!o->count || o->kind == BP_OWN_NONE || o->kind >= BP_OWN_NR ||
	    o->index + o->count < o->index)
		return EINVAL;
	if (bp_array_reserve((void **)&t->owned, &t->aowned, t->nowned, sizeof(*t->owned), 16))
		return ENOMEM;
	t->owned[t->nowned++] = *o;
	t->version = BP_TRACE_VERSION;	/* O lines are version 2's */
	return 0;
}

static int cmp_owned(const void *a, const void *b)
{
	const struct bp_trace_owned *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

/* Does o, starting where p ends, continue p on the device as traced (at=)? */
static int at_follows(const struct bp_trace_owned *p, const struct bp_trace_owned *o,
		      uint64_t bs)
{
	if (!p->has_at && !o->has_at)
		return 1;
	return p->has_at && o->has_at && bs && p->at + p->count * bs == o->at;
}

/*
 * Sort; join what overlaps or touches (one owner), the earliest first
 * access kept. Records that touch join only when their at= offsets are
 * contiguous too (or neither has one): one O line, one run as traced. Of
 * an overlap, p keeps its blocks (and at=), o's blocks past p go on.
 */
static void merge_owned(struct bp_trace *t)
{
	uint64_t bs = t->hdr.block_size;
	size_t i, n = 0;

	if (!t->nowned)
		return;
	qsort(t->owned, t->nowned, sizeof(*t->owned), cmp_owned);
	for (i = 1; i < t->nowned; i++) {
		struct bp_trace_owned *p = &t->owned[n], o = t->owned[i];
		uint64_t pend = p->index + p->count;

		if (o.kind == p->kind && o.id == p->id && o.gen == p->gen && o.index < pend) {
			if (o.first_ns < p->first_ns)
				p->first_ns = o.first_ns;
			if (o.index + o.count <= pend)
				continue;
			if (o.has_at && bs)
				o.at += (pend - o.index) * bs;
			o.count -= pend - o.index;
			o.index = pend;
		}
		if (o.kind == p->kind && o.id == p->id && o.gen == p->gen && o.index == pend &&
		    at_follows(p, &o, bs)) {
			p->count += o.count;
			if (o.first_ns < p->first_ns)
				p->first_ns = o.first_ns;
			continue;
		}
		t->owned[++n] = o;
	}
	t->nowned = n + 1;
}

static void merge_meta(struct bp_trace *t)
{
	size_t i, n = 0;

	if (!t->nmeta)
		return;
	qsort(t->meta, t->nmeta, sizeof(*t->meta), cmp_meta);
	for (i = 1; i < t->nmeta; i++) {
		struct bp_trace_meta *p = &t->meta[n], *m = &t->meta[i];

		/* touching ranges join when of one kind; an owned copy wins over raw */
		if (m->offset < p->offset + p->length ||
		    (m->offset == p->offset + p->length && m->kind == p->kind)) {
			if (p->kind == BP_OWN_NONE)
				p->kind = m->kind;
			if (m->offset + m->length > p->offset + p->length)
				p->length = m->offset + m->length - p->offset;
			if (m->first_ns < p->first_ns)
				p->first_ns = m->first_ns;
			continue;
		}
		t->meta[++n] = *m;
	}
	t->nmeta = n + 1;
}

errcode_t bp_trace_normalize(struct bp_trace *t)
{
	uint32_t *runs;
	size_t i, n = 0, slot = 0;
	errcode_t rc;

	for (i = 0; i < t->nfiles; i++)
		if (t->files[i].nranges)
			qsort(t->files[i].ranges, t->files[i].nranges,
			      sizeof(*t->files[i].ranges), cmp_range);
	rc = access_runs(t, &runs);
	if (rc)
		return rc;
	for (i = 0; i < t->nfiles; i++) {
		size_t nr = t->files[i].nranges;

		merge_ranges(&t->files[i], runs ? runs + slot : NULL);
		slot += nr;
		if (!t->files[i].nranges) {
			free(t->files[i].path);
			free(t->files[i].ranges);
			continue;
		}
		t->files[n++] = t->files[i];
	}
	free(runs);
	t->nfiles = n;
	if (t->nfiles)	/* qsort(NULL, 0, ...) is undefined behaviour (UBSan) */
		qsort(t->files, t->nfiles, sizeof(*t->files), cmp_file);
	merge_meta(t);
	merge_owned(t);
	return 0;
}

/* By offset, then first access (the earliest of a block kept by the merge). */
static int cmp_meta_time(const void *a, const void *b)
{
	const struct bp_trace_meta *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

errcode_t bp_trace_meta_traced(const struct bp_trace *t, struct bp_trace_meta **ret,
			       size_t *nret, uint64_t *unplaced)
{
	uint64_t bs = t->hdr.block_size;
	struct bp_trace_meta *v = NULL;
	size_t n = 0, cap = 0, i, k;

	*ret = NULL;
	*nret = 0;
	if (unplaced)
		*unplaced = 0;
	for (i = 0; i < t->nmeta + t->nowned; i++) {
		struct bp_trace_meta m;

		if (i < t->nmeta) {
			m = t->meta[i];
			if (!m.length || m.kind != BP_OWN_NONE)
				continue;	/* a copy of an O record's blocks: at= has them */
		} else {
			const struct bp_trace_owned *o = &t->owned[i - t->nmeta];

			/* the parser bounds at= + count blocks; a built trace is the resolver's */
			if (!o->has_at || !bs || o->count > (UINT64_MAX - o->at) / bs) {
				if (unplaced)
					*unplaced += o->count;
				continue;
			}
			m = (struct bp_trace_meta){ o->at, o->count * bs, o->first_ns, o->kind };
		}
		if (bp_array_reserve((void **)&v, &cap, n, sizeof(*v), 64)) {
			free(v);
			return ENOMEM;
		}
		v[n++] = m;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_meta_time);
	for (i = 0, k = 0; i < n; i++) {
		struct bp_trace_meta *p = k ? &v[k - 1] : NULL;

		if (p && v[i].offset < p->offset + p->length) {
			uint64_t end = v[i].offset + v[i].length;

			if (end > p->offset + p->length)
				p->length = end - p->offset;
			continue;
		}
		v[k++] = v[i];
	}
	*ret = v;
	*nret = k;
	return 0;
}
