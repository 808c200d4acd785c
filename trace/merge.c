// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * merge.c --- merging traces of the same filesystem (bp_trace_merge)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bp_et.h"
#include "tracefile.h"

static const struct bp_trace *sort_base;

static int cmp_idx(const void *a, const void *b)
{
	uint32_t x = sort_base->files[*(const size_t *)a].ino;
	uint32_t y = sort_base->files[*(const size_t *)b].ino;

	return x < y ? -1 : x > y;
}

static long find(const struct bp_trace *t, const size_t *idx, size_t n, uint32_t ino)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t v = t->files[idx[mid]].ino;

		if (v == ino)
			return (long)idx[mid];
		if (v < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static errcode_t copy_ranges(struct bp_trace_file *dst, const struct bp_trace_file *src)
{
	size_t j;
	errcode_t rc;

	for (j = 0; j < src->nranges; j++) {
		const struct bp_trace_range *r = &src->ranges[j];

		rc = bp_trace_file_add_range(dst, r->offset, r->length, r->first_ns, r->phys);
		if (rc)
			return rc;
	}
	return 0;
}

errcode_t bp_trace_merge(struct bp_trace *dst, const struct bp_trace *src, struct bp_err *err)
{
	size_t i, n = dst->nfiles, *idx = NULL;
	int src_newer = src->hdr.created > dst->hdr.created;
	errcode_t rc = 0;

	/*
	 * A version 1 trace's M ranges stay M ranges (raw, see tracefile.h):
	 * two version 1 traces merge into one, anything else into version 2.
	 */
	if (!dst->hdr.uuid[0] && !dst->nfiles && !dst->nmeta && !dst->nowned)
		dst->version = src->version;
	else if (src->version > dst->version)
		dst->version = src->version;
	if (!dst->hdr.uuid[0]) {
		memcpy(&dst->hdr.uuid, src->hdr.uuid, sizeof(dst->hdr.uuid));
		dst->hdr.block_size = src->hdr.block_size;
		dst->hdr.dev_major = src->hdr.dev_major;
		dst->hdr.dev_minor = src->hdr.dev_minor;
		dst->hdr.created = src->hdr.created;
		if (bp_trace_set_str(&dst->hdr.device, src->hdr.device) ||
		    bp_trace_set_str(&dst->hdr.kernel, src->hdr.kernel))
			return bp_err_set(err, ENOMEM, "out of memory");
	} else if (strcmp(dst->hdr.uuid, src->hdr.uuid) != 0) {
		return bp_err_set(err, BP_ET_TRACE_MISMATCH,
				  "traces of different filesystems (UUID %s and %s) cannot be merged",
				  dst->hdr.uuid, src->hdr.uuid);
	} else if (dst->hdr.block_size != src->hdr.block_size) {
		return bp_err_set(err, BP_ET_TRACE_MISMATCH,
				  "traces disagree on the block size (%u and %u)",
				  dst->hdr.block_size, src->hdr.block_size);
	}
	if (src->hdr.created > dst->hdr.created)
		dst->hdr.created = src->hdr.created;
	if (bp_trace_set_str(&dst->hdr.source, "merge"))
		return bp_err_set(err, ENOMEM, "out of memory");
	dst->hdr.events_added += src->hdr.events_added;
	dst->hdr.events_accessed += src->hdr.events_accessed;
	dst->hdr.events_lost += src->hdr.events_lost;

	if (n) {
		idx = malloc(n * sizeof(*idx));
		if (!idx)
			return bp_err_set(err, ENOMEM, "out of memory");
		for (i = 0; i < n; i++)
			idx[i] = i;
		sort_base = dst;
		qsort(idx, n, sizeof(*idx), cmp_idx);
	}
	for (i = 0; i < src->nfiles && !rc; i++) {
		const struct bp_trace_file *sf = &src->files[i];
		long k = find(dst, idx, n, sf->ino);
		struct bp_trace_file *df;

		if (k >= 0) {
			df = &dst->files[k];
			if (df->generation != sf->generation || df->size != sf->size ||
			    df->mtime != sf->mtime) {
				/* The file changed between the traces: the newer one wins. */
				if (!src_newer)
					continue;
				free(df->ranges);
				df->ranges = NULL;
				df->nranges = 0;
				df->aranges = 0;
				df->first_ns = UINT64_MAX;
				df->generation = sf->generation;
				df->size = sf->size;
				df->mtime = sf->mtime;
				if (bp_trace_set_str(&df->path, sf->path)) {
					rc = ENOMEM;
					break;
				}
			}
		} else {
			df = bp_trace_add_file(dst, sf->ino, sf->generation, sf->size, sf->mtime,
					       sf->path);
			if (!df) {
				rc = ENOMEM;
				break;
			}
		}
		rc = copy_ranges(df, sf);
	}
	for (i = 0; i < src->nmeta && !rc; i++) {
		rc = bp_trace_add_meta(dst, src->meta[i].offset, src->meta[i].length,
				       src->meta[i].first_ns);
		if (!rc)
			dst->meta[dst->nmeta - 1].kind = src->meta[i].kind;
	}
	for (i = 0; i < src->nowned && !rc; i++)
		rc = bp_trace_add_owned(dst, &src->owned[i]);
	free(idx);
	if (rc)
		return bp_err_set(err, rc, "while merging traces: %s", strerror((int)rc));
	return bp_trace_normalize(dst);
}
