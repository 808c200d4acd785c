// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * build.c --- adding records to a trace and normalising it (tracefile.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracefile.h"

/* Arrays grow to powers of two (at least 16): capacity follows from n. */
static int grow(void **arr, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n != 0 && (n < 16 || (n & (n - 1))))
		return 0;
	ncap = n ? n * 2 : 16;
	if (ncap > SIZE_MAX / size)
		return -1;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -1;
	*arr = p;
	return 0;
}

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
	if (grow((void **)&t->files, t->nfiles, sizeof(*t->files)) < 0)
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
	if (grow((void **)&f->ranges, f->nranges, sizeof(*f->ranges)) < 0)
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
	if (grow((void **)&t->meta, t->nmeta, sizeof(*t->meta)) < 0)
		return ENOMEM;
	m = &t->meta[t->nmeta++];
	m->offset = offset;
	m->length = length;
	m->first_ns = first_ns;
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
 * Merge sorted ranges. Two ranges join when they overlap or touch and the
 * second continues the first physically (both holes, or phys in step).
 * Overlapping ranges that disagree physically are clipped: the earlier
 * offset wins for the bytes they share.
 */
static void merge_ranges(struct bp_trace_file *f)
{
	size_t i, n = 0;

	if (!f->nranges)
		return;
	qsort(f->ranges, f->nranges, sizeof(*f->ranges), cmp_range);
	for (i = 1; i < f->nranges; i++) {
		struct bp_trace_range *p = &f->ranges[n], *r = &f->ranges[i];
		uint64_t pend = p->offset + p->length, rend = r->offset + r->length;

		if (r->offset <= pend && phys_at(p, r->offset) == r->phys) {
			if (rend > pend)
				p->length = rend - p->offset;
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
	}
	f->nranges = n + 1;
	f->first_ns = UINT64_MAX;
	for (i = 0; i < f->nranges; i++)
		if (f->ranges[i].first_ns < f->first_ns)
			f->first_ns = f->ranges[i].first_ns;
}

static void merge_meta(struct bp_trace *t)
{
	size_t i, n = 0;

	if (!t->nmeta)
		return;
	qsort(t->meta, t->nmeta, sizeof(*t->meta), cmp_meta);
	for (i = 1; i < t->nmeta; i++) {
		struct bp_trace_meta *p = &t->meta[n], *m = &t->meta[i];

		if (m->offset <= p->offset + p->length) {
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
	size_t i, n = 0;

	for (i = 0; i < t->nfiles; i++) {
		merge_ranges(&t->files[i]);
		if (!t->files[i].nranges) {
			free(t->files[i].path);
			free(t->files[i].ranges);
			continue;
		}
		t->files[n++] = t->files[i];
	}
	t->nfiles = n;
	qsort(t->files, t->nfiles, sizeof(*t->files), cmp_file);
	merge_meta(t);
	return 0;
}
