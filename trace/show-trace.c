// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * show-trace.c --- bootpack dump TRACE: per-file rows and a summary, text or JSON
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_et.h"
#include "cli.h"
#include "contig.h"
#include "jsonwrt.h"
#include "log.h"
#include "show.h"
#include "strutils.h"
#include "tracefile.h"

struct row {
	const struct bp_trace_file *f;
	uint64_t bytes;
	uint64_t first_phys;	/* lowest physical offset, BP_PHYS_NONE if none */
	size_t extents;
};

struct summary {
	uint64_t bytes, meta_bytes, discontig, spread, phys_min, phys_max;
};

/* Physically contiguous runs of a file (ranges in offset order). */
static size_t count_extents(const struct bp_trace_file *f)
{
	size_t i, n = 0;
	uint64_t next = BP_PHYS_NONE;

	for (i = 0; i < f->nranges; i++) {
		const struct bp_trace_range *r = &f->ranges[i];

		if (r->phys == BP_PHYS_NONE) {
			next = BP_PHYS_NONE;
			continue;
		}
		if (r->phys != next)
			n++;
		next = r->phys + r->length;
	}
	return n;
}

/* One physical read in first-access order: a file range or a metadata range. */
struct piece {
	uint64_t t, seq, phys, len;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;	/* metadata first, then by offset */
}

/*
 * The trace's reads where the trace recorded them, in first-access order
 * (metadata first on a tie, as bench builds its "traced" stream), counted
 * with the one rule of contig.h.
 */
static int summarize(const struct bp_trace *t, struct summary *s)
{
	struct bp_contig c;
	struct bp_trace_ref *refs;
	struct piece *p;
	size_t i, n, np = 0;

	memset(s, 0, sizeof(*s));
	s->phys_min = UINT64_MAX;
	if (bp_trace_ranges_by_time(t, &refs, &n))
		return -1;
	p = malloc((n + t->nmeta + 1) * sizeof(*p));
	if (!p) {
		free(refs);
		return -1;
	}
	/* Metadata first, so that on a tie it sorts before the file ranges. */
	for (i = 0; i < t->nmeta; i++) {
		s->meta_bytes += t->meta[i].length;
		p[np].t = t->meta[i].first_ns;
		p[np].seq = np;
		p[np].phys = t->meta[i].offset;
		p[np++].len = t->meta[i].length;
	}
	/* named by owner: no position without the device; counted in bytes only */
	for (i = 0; i < t->nowned; i++)
		s->meta_bytes += t->owned[i].count * t->hdr.block_size;
	/* refs are in time order; ties keep this order. */
	for (i = 0; i < n; i++) {
		s->bytes += refs[i].range->length;
		if (refs[i].range->phys == BP_PHYS_NONE)
			continue;
		p[np].t = refs[i].range->first_ns;
		p[np].seq = np;
		p[np].phys = refs[i].range->phys;
		p[np++].len = refs[i].range->length;
	}
	qsort(p, np, sizeof(*p), cmp_piece);
	bp_contig_init(&c, t->hdr.block_size);
	for (i = 0; i < np; i++) {
		bp_contig_add(&c, p[i].phys, p[i].len);
		if (p[i].phys < s->phys_min)
			s->phys_min = p[i].phys;
		if (p[i].phys + p[i].len > s->phys_max)
			s->phys_max = p[i].phys + p[i].len;
	}
	s->discontig = c.discontig;
	s->spread = np ? s->phys_max - s->phys_min : 0;
	if (!np)
		s->phys_min = 0;
	free(p);
	free(refs);
	return 0;
}

static enum bp_sort sort_key;

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	switch (sort_key) {
	case BP_SORT_DISK:
		if (x->first_phys != y->first_phys)
			return x->first_phys < y->first_phys ? -1 : 1;
		break;
	case BP_SORT_SIZE:
		if (x->bytes != y->bytes)
			return x->bytes > y->bytes ? -1 : 1;
		break;
	default:
		break;
	}
	if (x->f->first_ns != y->f->first_ns)
		return x->f->first_ns < y->f->first_ns ? -1 : 1;
	return x->f->ino < y->f->ino ? -1 : x->f->ino > y->f->ino;
}

static void print_json(const struct bp_trace *t, const struct row *rows, const struct summary *s)
{
	const struct bp_trace_hdr *h = &t->hdr;
	struct bp_json j;
	char dev[32];
	size_t i, k;

	bp_json_init(&j, stdout, 1);
	bp_json_open_object(&j, NULL);
	bp_json_open_object(&j, "trace");
	bp_json_u64(&j, "version", BP_TRACE_VERSION);
	bp_json_string(&j, "uuid", h->uuid);
	bp_json_u64(&j, "block_size", h->block_size);
	bp_json_string(&j, "device", h->device);
	snprintf(dev, sizeof(dev), "%u:%u", h->dev_major, h->dev_minor);
	bp_json_string(&j, "dev", dev);
	bp_json_string(&j, "kernel", h->kernel);
	bp_json_string(&j, "source", h->source);
	bp_json_i64(&j, "created", h->created);
	bp_json_u64(&j, "events_added", h->events_added);
	bp_json_u64(&j, "events_accessed", h->events_accessed);
	bp_json_u64(&j, "events_lost", h->events_lost);
	bp_json_close_object(&j);
	bp_json_open_array(&j, "files");
	for (i = 0; i < t->nfiles; i++) {
		const struct bp_trace_file *f = rows[i].f;

		bp_json_open_object(&j, NULL);
		bp_json_string(&j, "path", f->path);
		bp_json_u64(&j, "ino", f->ino);
		bp_json_u64(&j, "generation", f->generation);
		bp_json_u64(&j, "size", f->size);
		bp_json_i64(&j, "mtime", f->mtime);
		bp_json_u64(&j, "bytes", rows[i].bytes);
		bp_json_u64(&j, "extents", rows[i].extents);
		bp_json_u64(&j, "first_access", f->first_ns);
		bp_json_open_array(&j, "ranges");
		for (k = 0; k < f->nranges; k++) {
			const struct bp_trace_range *r = &f->ranges[k];

			bp_json_open_object(&j, NULL);
			bp_json_u64(&j, "offset", r->offset);
			bp_json_u64(&j, "length", r->length);
			bp_json_u64(&j, "first_access", r->first_ns);
			if (r->phys == BP_PHYS_NONE)
				bp_json_null(&j, "phys");
			else
				bp_json_u64(&j, "phys", r->phys);
			bp_json_close_object(&j);
		}
		bp_json_close_array(&j);
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);
	bp_json_open_array(&j, "metadata");
	for (i = 0; i < t->nmeta; i++) {
		bp_json_open_object(&j, NULL);
		bp_json_u64(&j, "offset", t->meta[i].offset);
		bp_json_u64(&j, "length", t->meta[i].length);
		bp_json_u64(&j, "first_access", t->meta[i].first_ns);
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);
	bp_json_open_array(&j, "owners");
	for (i = 0; i < t->nowned; i++) {
		const struct bp_trace_owned *o = &t->owned[i];

		bp_json_open_object(&j, NULL);
		bp_json_string(&j, "kind", bp_own_kind_name(o->kind));
		bp_json_u64(&j, "id", o->id);
		bp_json_u64(&j, "generation", o->gen);
		bp_json_u64(&j, "index", o->index);
		bp_json_u64(&j, "blocks", o->count);
		bp_json_u64(&j, "first_access", o->first_ns);
		bp_json_close_object(&j);
	}
	bp_json_close_array(&j);
	bp_json_open_object(&j, "summary");
	bp_json_u64(&j, "files", t->nfiles);
	bp_json_u64(&j, "bytes", s->bytes);
	bp_json_u64(&j, "metadata_bytes", s->meta_bytes);
	bp_json_u64(&j, "metadata_ranges", t->nmeta + t->nowned);
	bp_json_u64(&j, "discontiguities", s->discontig);
	bp_json_u64(&j, "spread", s->spread);
	bp_json_close_object(&j);
	bp_json_close_object(&j);
	bp_json_finish(&j);
}

static void print_text(const char *path, const struct bp_trace *t, const struct row *rows,
		       const struct summary *s, int bytes)
{
	const struct bp_trace_hdr *h = &t->hdr;
	char b1[32], b2[32], b3[32];
	size_t i;

	printf("trace %s: filesystem %s, block size %u, device %s (%u:%u)\n", path, h->uuid,
	       h->block_size, h->device && *h->device ? h->device : "-", h->dev_major,
	       h->dev_minor);
	printf("source %s, kernel %s, events %" PRIu64 " added, %" PRIu64 " accessed, %" PRIu64
	       " lost\n\n",
	       h->source, h->kernel && *h->kernel ? h->kernel : "-", h->events_added,
	       h->events_accessed, h->events_lost);
	printf("%12s %10s %7s  %s\n", "FIRST-MS", "BYTES", "EXTENTS", "PATH");
	for (i = 0; i < t->nfiles; i++)
		printf("%12.3f %10s %7zu  %s\n", (double)rows[i].f->first_ns / 1e6,
		       bp_size_str(rows[i].bytes, bytes, b1, sizeof(b1)), rows[i].extents,
		       rows[i].f->path);
	printf("\n%zu files, %s of data, %s of metadata in %zu ranges, %" PRIu64
	       " discontiguities in first-access order, spread %s on disk\n",
	       t->nfiles, bp_size_str(s->bytes, bytes, b1, sizeof(b1)),
	       bp_size_str(s->meta_bytes, bytes, b2, sizeof(b2)), t->nmeta + t->nowned,
	       s->discontig, bp_size_str(s->spread, bytes, b3, sizeof(b3)));
	if (t->nowned) {
		uint64_t blocks[BP_OWN_NR] = { 0 };
		const char *sep = "";

		for (i = 0; i < t->nowned; i++)
			if (t->owned[i].kind < BP_OWN_NR)
				blocks[t->owned[i].kind] += t->owned[i].count;
		printf("metadata blocks by owner:");
		for (i = 1; i < BP_OWN_NR; i++)
			if (blocks[i]) {
				printf("%s %s %" PRIu64, sep, bp_own_kind_name((uint32_t)i), blocks[i]);
				sep = ",";
			}
		printf("\n");
	}
}

int bp_dump_trace(const char *path, const struct bp_show_opts *o)
{
	struct bp_err err = { 0 };
	struct summary s;
	struct bp_trace *t;
	struct row *rows;
	size_t i, k;

	if (bp_trace_load(path, &t, &err)) {
		bp_log_error("%s", bp_err_str(&err));
		return bp_exit_code(err.code);
	}
	rows = calloc(t->nfiles ? t->nfiles : 1, sizeof(*rows));
	if (!rows || summarize(t, &s) < 0) {
		free(rows);
		bp_trace_free(t);
		bp_log_error("out of memory");
		return BP_EX_FAILURE;
	}
	for (i = 0; i < t->nfiles; i++) {
		rows[i].f = &t->files[i];
		rows[i].first_phys = BP_PHYS_NONE;
		for (k = 0; k < t->files[i].nranges; k++) {
			rows[i].bytes += t->files[i].ranges[k].length;
			if (t->files[i].ranges[k].phys < rows[i].first_phys)
				rows[i].first_phys = t->files[i].ranges[k].phys;
		}
		rows[i].extents = count_extents(&t->files[i]);
	}
	sort_key = o->sort;
	qsort(rows, t->nfiles, sizeof(*rows), cmp_row);
	if (o->json)
		print_json(t, rows, &s);
	else
		print_text(path, t, rows, &s, o->bytes);
	free(rows);
	bp_trace_free(t);
	return BP_EX_OK;
}
