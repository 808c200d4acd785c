// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strategy.c --- the disk streams of four boot readahead strategies
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "c.h"
#include "contig.h"
#include "strategy.h"

const char *const bp_strategy_names[BP_STRATEGY_NR] = {
	[BP_STRATEGY_STOCK] = "stock",
	[BP_STRATEGY_SREADAHEAD] = "sreadahead",
	[BP_STRATEGY_UREADAHEAD] = "ureadahead",
	[BP_STRATEGY_BOOTPACK] = "bootpack",
};

/* A stream being built; reads at index floor or later may merge. */
struct sb {
	struct bp_stream *s;
	size_t cap, floor;
	uint64_t bytes;		/* added so far */
};

static errcode_t add(struct sb *b, uint64_t off, uint64_t len, int merge)
{
	struct bp_stream *s = b->s;
	struct bp_io *last = s->n > b->floor ? &s->ios[s->n - 1] : NULL;

	if (!len)
		return 0;
	b->bytes += len;
	if (merge && last && last->offset + last->length == off) {
		last->length += len;
		return 0;
	}
	if (bp_array_reserve((void **)&s->ios, &b->cap, s->n, sizeof(*s->ios), 256))
		return ENOMEM;
	memset(&s->ios[s->n], 0, sizeof(s->ios[0]));
	s->ios[s->n].offset = off;
	s->ios[s->n].length = len;
	s->n++;
	return 0;
}

static void finish(struct bp_stream *s, uint64_t block_size)
{
	struct bp_contig c;
	uint64_t total = 0;
	size_t i;

	bp_contig_init(&c, block_size);
	for (i = 0; i < s->n; i++) {
		total += s->ios[i].length;
		bp_contig_add(&c, s->ios[i].offset, s->ios[i].length);
	}
	s->discontig = c.discontig;
	s->file_bytes = total > s->meta_bytes ? total - s->meta_bytes : 0;
}

/* A traced range on disk: whole blocks, clipped at the file's last block. */
struct piece {
	uint64_t foff, phys, len;
};

static int traced_piece(const struct bp_trace *t, const struct bp_trace_file *f,
			const struct bp_trace_range *r, struct piece *p)
{
	uint64_t bs = t->hdr.block_size;
	uint64_t eof = (f->size + bs - 1) / bs * bs;
	uint64_t end = MIN((r->offset + r->length + bs - 1) / bs * bs, eof);

	if (r->phys == BP_PHYS_NONE || r->offset >= end)
		return 0;
	*p = (struct piece){ .foff = r->offset, .phys = r->phys, .len = end - r->offset };
	return 1;
}

static int by_foff(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->foff < y->foff ? -1 : x->foff > y->foff;
}

static int by_phys(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->phys < y->phys ? -1 : x->phys > y->phys;
}

/*
 * A demand read of the kernel: one request per traced range, in requests of
 * at most the readahead window (data) or as the range (metadata is read as
 * the trace saw it, a window at most). Never merged with the read before:
 * each was its own request, as the real boot's disk log shows.
 */
static errcode_t add_split(struct sb *b, uint64_t off, uint64_t len, uint64_t chunk)
{
	errcode_t rc = 0;

	while (len && !rc) {
		uint64_t n = MIN(len, chunk);

		rc = add(b, off, n, 0);
		off += n;
		len -= n;
	}
	return rc;
}

static errcode_t add_demand(struct sb *b, uint64_t off, uint64_t len)
{
	return add_split(b, off, len, BP_STOCK_RA_WINDOW);
}

/* ------------------------------------------------------------------ stock */

static errcode_t build_stock(const struct bp_trace *t, struct bp_stream *s, struct bp_err *err)
{
	struct bp_trace_ref *refs = NULL;
	struct sb b = { .s = s };
	size_t nrefs = 0, i, m = 0;
	uint8_t *seen = calloc(t->nfiles ? t->nfiles : 1, 1);
	errcode_t rc = seen ? 0 : ENOMEM;

	if (!rc)
		rc = bp_trace_ranges_by_time(t, &refs, &nrefs);
	for (i = 0; i <= nrefs && !rc; i++) {
		const struct bp_trace_ref *ref = i < nrefs ? &refs[i] : NULL;
		struct piece p;

		/* Metadata first touched before this range goes first (as stream.c). */
		while (!rc && m < t->nmeta && (!ref || t->meta[m].first_ns <= ref->range->first_ns)) {
			rc = add_demand(&b, t->meta[m].offset, t->meta[m].length);
			s->meta_bytes += t->meta[m].length;
			m++;
		}
		if (!ref || rc || !traced_piece(t, ref->file, ref->range, &p))
			continue;
		/*
		 * A file's first read gets the kernel's initial window first
		 * (mm/readahead.c: 4 pages for a one-page read, as ld.so's
		 * read of an ELF header); the real stock boot's first request
		 * of a file's first range is 16 KiB in 62 of 70 such ranges.
		 */
		if (!seen[ref->file - t->files]++ && p.len > BP_STOCK_INITIAL_WINDOW) {
			rc = add(&b, p.phys, BP_STOCK_INITIAL_WINDOW, 0);
			p.phys += BP_STOCK_INITIAL_WINDOW;
			p.len -= BP_STOCK_INITIAL_WINDOW;
		}
		if (!rc)
			rc = add_demand(&b, p.phys, p.len);
	}
	free(refs);
	free(seen);
	if (rc)
		return bp_err_lib(err, rc, "while building the stock stream");
	return 0;
}

/* ------------------------------------------------------------- sreadahead */

struct meta_ref {
	const struct bp_trace_meta *m;
};

static int meta_by_time(const void *a, const void *b)
{
	const struct bp_trace_meta *x = ((const struct meta_ref *)a)->m;
	const struct bp_trace_meta *y = ((const struct meta_ref *)b)->m;

	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * File f's reads as sreadahead-style issues them: its traced pieces sorted
 * by file offset, touching ones joined, then the closest pair joined until at
 * most BP_SREADAHEAD_MAX_RANGES are left; a joined range reads its gap too,
 * on disk right after the piece before it (where a file in one extent has it).
 */
static errcode_t sread_file(struct sb *b, const struct bp_trace *t, const struct bp_trace_file *f,
			    struct piece *pc, size_t *grp)
{
	size_t n = 0, ng, i, j, g;
	errcode_t rc = 0;

	for (i = 0; i < f->nranges; i++)
		n += traced_piece(t, f, &f->ranges[i], &pc[n]);
	if (!n)
		return 0;
	qsort(pc, n, sizeof(*pc), by_foff);
	/* grp[k]: index of the first piece of group k; groups by file offset */
	ng = 0;
	for (i = 0; i < n; i++) {
		uint64_t end = 0;

		if (ng) {
			for (j = grp[ng - 1]; j < i; j++)
				end = MAX(end, pc[j].foff + pc[j].len);
			if (pc[i].foff <= end)
				continue;	/* touches the group before */
		}
		grp[ng++] = i;
	}
	while (ng > BP_SREADAHEAD_MAX_RANGES) {
		uint64_t best_gap = UINT64_MAX;
		size_t best = 1;

		for (g = 1; g < ng; g++) {
			uint64_t end = 0, gap;

			for (j = grp[g - 1]; j < grp[g]; j++)
				end = MAX(end, pc[j].foff + pc[j].len);
			gap = pc[grp[g]].foff - end;
			if (gap < best_gap) {
				best_gap = gap;
				best = g;
			}
		}
		/* best < ng: the group merges into the one before it */
		if (best + 1 < ng)
			memmove(&grp[best], &grp[best + 1], (ng - best - 1) * sizeof(*grp));
		ng--;
	}
	for (g = 0; g < ng && !rc; g++) {
		size_t last = g + 1 < ng ? grp[g + 1] : n;
		uint64_t pos = pc[grp[g]].foff, phys_end = pc[grp[g]].phys;

		for (j = grp[g]; j < last && !rc; j++) {
			uint64_t skip, end = pc[j].foff + pc[j].len;

			if (end <= pos)
				continue;
			if (pc[j].foff > pos) {
				rc = add(b, phys_end, pc[j].foff - pos, j > grp[g]);	/* the gap */
				pos = pc[j].foff;
			}
			skip = pos - pc[j].foff;
			if (!rc)
				rc = add(b, pc[j].phys + skip, pc[j].len - skip, j > grp[g]);
			pos = end;
			phys_end = pc[j].phys + pc[j].len;
		}
	}
	return rc;
}

/* The 4 threads' reads as a C-LOOK elevator over their next requests. */
static errcode_t sread_interleave(const struct bp_stream *jobs, const size_t *jstart,
				  size_t njobs, struct sb *out)
{
	struct {
		size_t i, end;
	} w[BP_SREADAHEAD_THREADS] = { { 0 } };
	size_t next = 0, k;
	uint64_t head = 0;
	int have_head = 0;
	errcode_t rc = 0;

	for (;;) {
		int best = -1, low = -1;

		for (k = 0; k < BP_SREADAHEAD_THREADS; k++) {
			while (w[k].i == w[k].end && next < njobs) {
				w[k].i = jstart[next];
				w[k].end = jstart[next + 1];
				next++;
			}
			if (w[k].i == w[k].end)
				continue;
			if (low < 0 || jobs->ios[w[k].i].offset < jobs->ios[w[low].i].offset)
				low = (int)k;
			if (have_head && jobs->ios[w[k].i].offset >= head &&
			    (best < 0 || jobs->ios[w[k].i].offset < jobs->ios[w[best].i].offset))
				best = (int)k;
		}
		if (low < 0)
			break;
		if (best < 0)
			best = low;
		rc = add(out, jobs->ios[w[best].i].offset, jobs->ios[w[best].i].length, 0);
		if (rc)
			break;
		head = jobs->ios[w[best].i].offset + jobs->ios[w[best].i].length;
		have_head = 1;
		w[best].i++;
	}
	return rc;
}

static errcode_t build_sreadahead(const struct bp_trace *t, struct bp_stream *s,
				  struct bp_err *err)
{
	struct bp_stream jobs = { 0 };
	struct sb jb = { .s = &jobs }, b = { .s = s };
	struct meta_ref *mt = calloc(t->nmeta ? t->nmeta : 1, sizeof(*mt));
	size_t *jstart = calloc(t->nfiles + 2, sizeof(*jstart));
	struct piece *pc = NULL;
	size_t *grp = NULL, maxr = 1, i, m = 0, njobs = 0;
	errcode_t rc = ENOMEM;

	for (i = 0; i < t->nfiles; i++)
		maxr = MAX(maxr, t->files[i].nranges);
	pc = calloc(maxr, sizeof(*pc));
	grp = calloc(maxr, sizeof(*grp));
	if (!mt || !jstart || !pc || !grp)
		goto out;
	for (i = 0; i < t->nmeta; i++)
		mt[i].m = &t->meta[i];
	qsort(mt, t->nmeta, sizeof(*mt), meta_by_time);

	/* One job per file (files are in first-access order): its metadata, its data. */
	rc = 0;
	for (i = 0; i <= t->nfiles && !rc; i++) {
		const struct bp_trace_file *f = i < t->nfiles ? &t->files[i] : NULL;

		jstart[njobs] = jobs.n;
		jb.floor = jobs.n;
		while (!rc && m < t->nmeta && (!f || mt[m].m->first_ns <= f->first_ns)) {
			rc = add_demand(&jb, mt[m].m->offset, mt[m].m->length);
			s->meta_bytes += mt[m].m->length;
			m++;
		}
		if (f && !rc)
			rc = sread_file(&jb, t, f, pc, grp);
		if (jobs.n > jstart[njobs])
			njobs++;
	}
	jstart[njobs] = jobs.n;
	if (!rc)
		rc = sread_interleave(&jobs, jstart, njobs, &b);
out:
	free(mt);
	free(jstart);
	free(pc);
	free(grp);
	bp_stream_free(&jobs);
	if (rc)
		return bp_err_lib(err, rc, "while building the sreadahead-style stream");
	return 0;
}

/* ------------------------------------------------------------- ureadahead */

/* Add [off, off+len) less what the sorted, disjoint pieces it[0..n) cover. */
static errcode_t add_uncovered(struct sb *b, uint64_t off, uint64_t len, const struct piece *it,
			       size_t n)
{
	uint64_t end = off + len;
	size_t i;
	errcode_t rc = 0;

	for (i = 0; i < n && off < end && !rc; i++) {
		uint64_t a = it[i].phys, z = it[i].phys + it[i].len;

		if (z <= off || a >= end)
			continue;
		if (a > off)
			rc = add_demand(b, off, a - off);
		off = MIN(z, end);
	}
	if (!rc && off < end)
		rc = add_demand(b, off, end - off);
	return rc;
}

static errcode_t build_ureadahead(const struct bp_trace *t, ext2_filsys fs, struct bp_stream *s,
				  struct bp_err *err)
{
	struct sb b = { .s = s };
	uint64_t bs = fs->blocksize, *files = calloc(fs->group_desc_count, sizeof(*files));
	struct piece *it = calloc(fs->group_desc_count, sizeof(*it)), *pc = NULL;
	size_t nit = 0, npc = 0, cap = 0, i, j;
	errcode_t rc = ENOMEM;

	if (!files || !it)
		goto out;
	/* 1. Inode tables of the groups with many traced files, group by group. */
	for (i = 0; i < t->nfiles; i++) {
		uint32_t ino = t->files[i].ino;

		if (ino && ino <= fs->super->s_inodes_count)
			files[(ino - 1) / fs->super->s_inodes_per_group]++;
	}
	rc = 0;
	for (i = 0; i < fs->group_desc_count && !rc; i++) {
		if (files[i] <= BP_UREADAHEAD_ITABLE_FILES)
			continue;
		it[nit].phys = (uint64_t)ext2fs_inode_table_loc(fs, (dgrp_t)i) * bs;
		it[nit].len = (uint64_t)fs->inode_blocks_per_group * bs;
		rc = add_split(&b, it[nit].phys, it[nit].len, BP_UREADAHEAD_PREAD);
		nit++;
	}
	qsort(it, nit, sizeof(*it), by_phys);
	/* 2. Opening the files: the other traced metadata, by position. */
	for (i = 0; i < t->nmeta && !rc; i++)
		rc = add_uncovered(&b, t->meta[i].offset, t->meta[i].length, it, nit);
	s->meta_bytes = b.bytes;
	/* 3. Every traced range, by physical position, overlapping ones once. */
	for (i = 0; i < t->nfiles && !rc; i++) {
		const struct bp_trace_file *f = &t->files[i];

		for (j = 0; j < f->nranges; j++) {
			if (bp_array_reserve((void **)&pc, &cap, npc, sizeof(*pc), 256)) {
				rc = ENOMEM;
				break;
			}
			npc += traced_piece(t, f, &f->ranges[j], &pc[npc]);
		}
	}
	if (!rc && npc) {
		uint64_t end = 0;

		qsort(pc, npc, sizeof(*pc), by_phys);
		for (i = 0; i < npc && !rc; i++) {
			uint64_t a = MAX(pc[i].phys, end), z = pc[i].phys + pc[i].len;

			if (z > a)
				rc = add(&b, a, z - a, 0);
			end = MAX(end, z);
		}
	}
out:
	free(files);
	free(it);
	free(pc);
	if (rc)
		return bp_err_lib(err, rc, "while building the ureadahead-style stream");
	return 0;
}

/* --------------------------------------------------------------- bootpack */

static errcode_t build_bootpack(const struct bp_pack *p, struct bp_stream *s, struct bp_err *err)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	uint64_t bs = in->block_size ? in->block_size : 4096;
	struct sb b = { .s = s };
	uint32_t i, n;
	errcode_t rc = 0;

	/* Metadata in disk order (records are sorted), touching ranges as one. */
	n = bp_pack_nmeta(p);
	for (i = 0; i < n && !rc; i++) {
		struct bp_pack_meta m;

		if (bp_pack_meta(p, i, &m) < 0)
			break;
		rc = add(&b, m.offset, m.length, 1);
		s->meta_bytes += m.length;
	}
	/* Then the entries in pack order, whole blocks, up to the file's size. */
	n = bp_pack_nentries(p);
	for (i = 0; i < n && !rc; i++) {
		struct bp_pack_entry e;
		uint64_t len;

		if (bp_pack_entry(p, i, &e) < 0)
			break;
		if (e.offset >= e.size)
			continue;
		len = MIN(e.length, e.size - e.offset);
		len = (len + bs - 1) / bs * bs;
		rc = add(&b, e.phys, len, 1);
	}
	if (rc)
		return bp_err_lib(err, rc, "while building the bootpack stream");
	return 0;
}

errcode_t bp_strategy_build(enum bp_strategy k, const struct bp_strategy_in *in,
			    struct bp_stream *s, struct bp_err *err)
{
	errcode_t rc = EINVAL;
	uint64_t bs = in->t->hdr.block_size;
	/*
	 * The traced boot's metadata where it read it (M ranges and the O
	 * records' at=): the strategies model that boot, before any relayout.
	 * A shallow copy of the trace with them as its meta.
	 */
	struct bp_trace tt = *in->t;

	memset(s, 0, sizeof(*s));
	if (k != BP_STRATEGY_BOOTPACK && (rc = bp_trace_meta_traced(in->t, &tt.meta, &tt.nmeta,
								    NULL)))
		return bp_err_lib(err, rc, "while listing the traced metadata");
	switch (k) {
	case BP_STRATEGY_STOCK:
		rc = build_stock(&tt, s, err);
		break;
	case BP_STRATEGY_SREADAHEAD:
		rc = build_sreadahead(&tt, s, err);
		break;
	case BP_STRATEGY_UREADAHEAD:
		rc = build_ureadahead(&tt, in->fs, s, err);
		break;
	case BP_STRATEGY_BOOTPACK:
		rc = build_bootpack(in->pack, s, err);
		break;
	default:
		rc = bp_err_set(err, EINVAL, "no strategy %d", (int)k);
		break;
	}
	if (k != BP_STRATEGY_BOOTPACK)
		free(tt.meta);
	if (rc) {
		bp_stream_free(s);
		return rc;
	}
	finish(s, bs);
	return 0;
}
