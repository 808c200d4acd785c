// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootset.c --- the boot stream: trace ranges resolved to blocks, in read order
 *
 * Paths are resolved with libext2fs on this filesystem (the trace's phys
 * column is only a hint); the file must be the traced one by the rule of
 * fileid.h (inode, generation, size, mtime; bp_file_compare()). Holes,
 * unwritten extents, inline data and special inodes contribute nothing.
 *
 * Order: first access, piece by piece. Each traced range of a file becomes
 * a run of logical blocks with the rank of its first access; a file's runs
 * are cut into pieces of at least RL_MIN_PIECE_BYTES (a run smaller than
 * that joins a logical neighbour of the same file: one read earlier takes
 * it in; one read later lends it the adjacent blocks it lacks, see
 * rl_make_pieces() in pieces.c; so a merge makes the reader fetch fewer than that many
 * blocks early), and a piece takes the earliest rank of its runs. The
 * stream is then every piece, directory and whole file by rank, in two
 * parts. First the metadata, in the rank of the piece that needs it: the
 * directories on the file's path (whole, at the first access of a file
 * under them), the item's own xattr block, an extent item's new tree slot
 * (at its first piece), and for block-mapped items every indirect block
 * (IND, DIND, TIND) that maps a block of the piece and was not placed by an
 * earlier piece, parents first. Then the file data, piece by piece. Untraced
 * blocks of a file, and indirect blocks mapping only untraced blocks, are
 * not in the stream: they stay.
 *
 * Why metadata first (relayout/BENCH.md, "Metadata first"): bootpack-read
 * reads metadata through the block device before it opens a file, and file
 * data through the files; interleaved, each pass skips the other's blocks
 * and a disk pays a rotation for each skip (113 one-to-nine-block metadata
 * reads inside the region of the traced Debian boot, ~7 ms each on the
 * 5400 rpm model). First, the metadata is one request and the data one
 * stream.
 *
 * Why 64 KiB (relayout/BENCH.md, "Pieces"): the reader streams the region
 * in requests of 1 MiB or more, so lookahead below 256 pages costs nothing;
 * on the traced Debian boot in page order, 64 KiB pieces need 114 pages of
 * lookahead (256 KiB: 1,101; whole files: 3,101) and 1.58 extents per boot
 * file (4 KiB pieces: 0 pages, 1.79 extents). 64 KiB is the largest size
 * under that line: fewest pieces, so files shatter least (a file of N
 * pieces keeps up to 2N+1 extents, its untraced gaps staying behind).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "contig.h"
#include "ext2file.h"
#include "fspath.h"
#include "rl-int.h"
#include "rl-pieces.h"



/*
 * Emission phases: the blocks the reader reads through the block device
 * (directories, indirect blocks, extent-tree slots, xattr blocks) first,
 * then file data; see rl_stream_build_opts().
 */
enum { EMIT_META, EMIT_DATA };

static int run_is_meta(const struct rl_item *it, const struct rl_run *r)
{
	return it->is_dir || r->uninit == RL_IND_MARK;
}

static errcode_t add_whole(struct rl_stream *s, uint32_t idx, int phase)
{
	struct rl_item *it = &s->items[idx];
	size_t i;
	int any = 0;
	errcode_t rc;

	it->whole = 1;
	for (i = 0; i < it->nmap; i++)
		any |= it->map[i].uninit != 1;
	if (phase == EMIT_META && any && !it->is_dir) {
		rc = rl_push_slots(s, idx);
		if (rc)
			return rc;
	}
	for (i = 0; i < it->nmap; i++) {
		const struct rl_run *r = &s->items[idx].map[i];

		if (r->uninit == 1 || run_is_meta(&s->items[idx], r) != (phase == EMIT_META))
			continue;
		rc = rl_push_seg(s, idx, r->uninit == RL_IND_MARK ? RL_SEG_IND : RL_SEG_DATA,
				 r->lblk, r->pblk, r->len, 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Logical blocks [a, b) of an item, traced at rank. Ranges may overlap
 * until tr_disjoint() makes each block belong to its earliest one.
 */
static errcode_t tr_add(struct rl_stream *s, uint32_t idx, blk64_t a, blk64_t b, uint64_t rank)
{
	struct rl_item *it = &s->items[idx];

	if (a >= b)
		return 0;
	if (bp_array_reserve((void **)&it->tr, &it->atr, it->ntr, sizeof(*it->tr), 16))
		return ENOMEM;
	it->tr[it->ntr++] = (struct rl_trange){ .a = a, .b = b, .rank = rank };
	return 0;
}

static int tr_start_cmp(const void *x, const void *y)
{
	const struct rl_trange *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->rank < q->rank ? -1 : p->rank > q->rank;
}

/* Min-heap of the ranges covering the sweep position, by rank. */
static void heap_push(struct rl_trange *h, size_t *n, struct rl_trange v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2].rank > v.rank) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static void heap_pop(struct rl_trange *h, size_t *n)
{
	struct rl_trange v = h[--(*n)];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1].rank < h[c].rank)
			c++;
		if (h[c].rank >= v.rank)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
}

/*
 * Each traced block once, in the earliest range that reads it: the ranges
 * become disjoint, sorted by logical block. One sweep over the starts with
 * the covering ranges in a heap by rank: O(n log n) (this was a scan of
 * every earlier range per range, quadratic in a file's ranges).
 */
static errcode_t tr_disjoint(struct rl_item *it)
{
	size_t n = it->ntr, i = 0, nh = 0, no = 0;
	struct rl_trange *h, *out;
	blk64_t x = 0;

	if (n < 2)
		return 0;
	qsort(it->tr, n, sizeof(*it->tr), tr_start_cmp);
	h = malloc(n * sizeof(*h));
	out = malloc(2 * n * sizeof(*out));	/* each start or end cuts at most once */
	if (!h || !out) {
		free(h);
		free(out);
		return ENOMEM;
	}
	while (i < n || nh) {
		blk64_t next;

		if (!nh && x < it->tr[i].a)
			x = it->tr[i].a;
		while (i < n && it->tr[i].a <= x)
			heap_push(h, &nh, it->tr[i++]);
		while (nh && h[0].b <= x)
			heap_pop(h, &nh);
		if (!nh)
			continue;
		next = h[0].b;
		if (i < n && it->tr[i].a < next)
			next = it->tr[i].a;
		if (no && out[no - 1].b == x && out[no - 1].rank == h[0].rank) {
			out[no - 1].b = next;
		} else if (no < 2 * n) {
			out[no++] = (struct rl_trange){ .a = x, .b = next, .rank = h[0].rank };
		} else {	/* cannot happen */
			free(h);
			free(out);
			return EINVAL;
		}
		x = next;
	}
	free(h);
	free(it->tr);
	it->tr = out;
	it->ntr = no;
	it->atr = 2 * n;
	return 0;
}

/*
 * First run of the map that may hold logical block a: extent maps are in
 * logical order (binary search, so a file's pieces cost O(log n) each, not a
 * scan of its whole map); block maps, in visit order, are scanned.
 */
static size_t map_from(const struct rl_item *it, blk64_t a)
{
	size_t lo = 0, hi = it->nmap;

	if (!it->extents)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (it->map[mid].lblk + it->map[mid].len <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The mapped, initialized data blocks of [a, b) as segments. */
static errcode_t push_data(struct rl_stream *s, uint32_t idx, blk64_t a, blk64_t b)
{
	size_t i;
	errcode_t rc;

	for (i = map_from(&s->items[idx], a); i < s->items[idx].nmap; i++) {
		const struct rl_run r = s->items[idx].map[i];
		blk64_t lo = MAX(a, r.lblk), hi = MIN(b, r.lblk + r.len);

		if (s->items[idx].extents && r.lblk >= b)
			break;
		if (r.uninit || lo >= hi)
			continue;
		rc = rl_push_seg(s, idx, RL_SEG_DATA, lo, r.pblk + (lo - r.lblk), hi - lo, 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Block-mapped item: the data blocks each indirect block maps, directly or
 * through its children (visit order puts them right after it, up to the
 * next indirect block of the same or a higher level).
 */
static errcode_t ind_coverage(struct rl_item *it)
{
	size_t i, k;

	it->icov = calloc(2 * (it->nmap ? it->nmap : 1), sizeof(blk64_t));
	if (!it->icov)
		return ENOMEM;
	for (i = 0; i < it->nmap; i++) {
		blk64_t lo = ~(blk64_t)0, hi = 0;

		if (it->map[i].uninit != RL_IND_MARK)
			continue;
		for (k = i + 1; k < it->nmap; k++) {
			const struct rl_run *r = &it->map[k];

			if (r->uninit == RL_IND_MARK) {
				if (r->lblk >= it->map[i].lblk)
					break;
				continue;
			}
			lo = MIN(lo, r->lblk);
			hi = MAX(hi, r->lblk + r->len);
		}
		if (lo < hi) {
			it->icov[2 * i] = lo;
			it->icov[2 * i + 1] = hi;
		}
	}
	return 0;
}

/* Indirect blocks mapping a block of the piece, not yet in the stream (visit order). */
static errcode_t push_inds(struct rl_stream *s, const struct piece *pc)
{
	struct rl_item *it = &s->items[pc->item];
	size_t i, k;
	errcode_t rc;

	for (i = 0; i < it->nmap; i++) {
		blk64_t lo = it->icov[2 * i], hi = it->icov[2 * i + 1];
		int hit = 0;

		if (it->map[i].uninit != RL_IND_MARK || lo >= hi)
			continue;
		for (k = pc->first; k < pc->first + pc->n && !hit; k++)
			hit = it->tr[k].a < hi && it->tr[k].b > lo;
		if (!hit)
			continue;
		rc = rl_push_seg(s, pc->item, RL_SEG_IND, it->map[i].lblk, it->map[i].pblk, 1, 0, 0);
		if (rc)
			return rc;
		it = &s->items[pc->item];
		it->icov[2 * i] = it->icov[2 * i + 1] = 0;
	}
	return 0;
}

/* 1 if [a, b) of the item maps a written block. */
static int has_data(const struct rl_item *it, blk64_t a, blk64_t b)
{
	size_t i;

	for (i = map_from(it, a); i < it->nmap; i++) {
		const struct rl_run *r = &it->map[i];

		if (it->extents && r->lblk >= b)
			break;
		if (!r->uninit && MAX(a, r->lblk) < MIN(b, r->lblk + r->len))
			return 1;
	}
	return 0;
}

static errcode_t emit_piece(struct rl_stream *s, const struct piece *pc, int phase)
{
	const struct rl_item *it = &s->items[pc->item];
	size_t k;
	errcode_t rc;

	if (pc->kind == PIECE_WHOLE)
		return add_whole(s, pc->item, phase);
	if (phase == EMIT_META) {
		for (k = pc->first; k < pc->first + pc->n; k++) {
			if (has_data(it, it->tr[k].a, it->tr[k].b))
				break;
		}
		if (k == pc->first + pc->n)
			return 0;	/* holes only: no slot for an item that may stay */
		rc = rl_push_slots(s, pc->item);
		if (!rc && !s->items[pc->item].extents)
			rc = push_inds(s, pc);
		return rc;
	}
	for (k = pc->first; k < pc->first + pc->n; k++) {
		const struct rl_trange r = s->items[pc->item].tr[k];

		rc = push_data(s, pc->item, r.a, r.b);
		if (rc)
			return rc;
	}
	return 0;
}

/* Resolve one traced file: -1 if unusable (counted as skipped), else its item. */
static errcode_t resolve_file(struct rl_stream *s, struct pieces *p,
			      const struct bp_trace_file *f, int whole_files, uint64_t rank,
			      int *ret)
{
	struct ext2_inode_large inode;
	struct bp_file_id id, then;
	char path[BP_TRACE_PATH_MAX + 1];
	ext2_ino_t ino;
	uint32_t idx;
	int found;
	errcode_t rc;

	*ret = -1;
	/* The rule pack and verify --pack apply too (fspath.h). */
	rc = bp_fs_path_resolve(s->fs, f->path, path, sizeof(path), &ino);
	if (rc) {
		s->skipped[BP_RL_SKIP_MISSING]++;
		return 0;
	}
	found = rl_item_find(s, ino);
	if (found >= 0 && !s->items[found].is_dir) {
		*ret = s->items[found].skipped ? -1 : found;
		return 0;
	}
	rc = bp_ext2_file_read(s->fs, ino, &inode, &id);
	if (rc)
		return rc;
	if (!LINUX_S_ISREG(inode.i_mode) || found >= 0) {
		s->skipped[BP_RL_SKIP_NOT_REGULAR]++;
		return 0;
	}
	then = bp_trace_file_id(f);
	if (bp_file_compare(&id, &then, 0) != BP_FILE_SAME) {
		s->skipped[BP_RL_SKIP_CHANGED]++;
		return 0;
	}
	rc = rl_add_dirs(s, p, path, rank);
	if (rc)
		return rc;
	rc = rl_item_new(s, ino, 0, &idx);
	if (rc)
		return rc;
	if (s->items[idx].skipped) {
		s->skipped[s->items[idx].skip]++;
		return 0;
	}
	s->files++;
	if (whole_files) {
		s->items[idx].whole = 1;
		rc = rl_piece_add(p, idx, PIECE_WHOLE, rank, 0, 0);
		if (rc)
			return rc;
	} else if (!s->items[idx].extents) {
		rc = ind_coverage(&s->items[idx]);
		if (rc)
			return rc;
	}
	*ret = (int)idx;
	return 0;
}

errcode_t rl_stream_build_opts(ext2_filsys fs, const struct bp_trace *t,
			       const struct rl_build *how, struct rl_stream *s, struct bp_err *err)
{
	int whole_files = how->whole_files;
	uint64_t min_piece = how->min_piece ? how->min_piece : RL_MIN_PIECE_BYTES;
	struct bp_trace_ref *refs = NULL;
	struct pieces p = { 0 };
	int *fidx = NULL;
	size_t nrefs = 0, i;
	blk64_t bs = fs->blocksize, minb = MAX(1, DIV_ROUND_UP(min_piece, fs->blocksize));
	int phase;
	errcode_t rc;

	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->move_ea = 1;
	s->files_traced = t->nfiles;
	fidx = malloc((t->nfiles ? t->nfiles : 1) * sizeof(*fidx));
	if (!fidx)
		return bp_err_set(err, ENOMEM, "out of memory");
	for (i = 0; i < t->nfiles; i++)
		fidx[i] = -2;	/* not resolved yet */
	rc = bp_trace_ranges_by_time(t, &refs, &nrefs);
	if (rc) {
		free(fidx);
		return bp_err_lib(err, rc, "while ordering the trace ranges");
	}
	rc = rl_add_first(s, &p, how);
	if (rc) {
		bp_err_lib(err, rc, "while adding the files read first");
		goto out;
	}
	/* Resolve in first-access order; collect each file's traced blocks. */
	for (i = 0; i < nrefs; i++) {
		const struct bp_trace_file *f = refs[i].file;
		const struct bp_trace_range *r = refs[i].range;
		size_t fi = (size_t)(f - t->files);
		struct rl_item *it;
		blk64_t a, b;

		if (rl_canceled()) {
			rc = bp_err_set(err, BP_ET_CANCELED, "canceled while planning");
			goto out;
		}
		if (fidx[fi] == -2) {
			rc = resolve_file(s, &p, f, whole_files, i, &fidx[fi]);
			if (rc) {
				bp_err_lib(err, rc, "while resolving %s", f->path);
				goto out;
			}
		}
		if (fidx[fi] < 0)
			continue;
		it = &s->items[fidx[fi]];
		if (it->whole || !r->length)
			continue;
		a = r->offset / bs;
		b = DIV_ROUND_UP(MIN(r->offset + r->length, it->size), bs);
		rc = tr_add(s, (uint32_t)fidx[fi], a, b, i);
		if (rc) {
			bp_err_lib(err, rc, "while adding the ranges of %s", f->path);
			goto out;
		}
	}
	rc = rl_add_traced_dirs(s, &p, t, refs, nrefs);
	if (rc) {
		bp_err_lib(err, rc, "while looking for the directories the boot listed");
		goto out;
	}
	/* Pieces of each file, then everything in first-access order. */
	for (i = 0; i < s->nitems; i++) {
		if (s->items[i].skipped || s->items[i].is_dir || s->items[i].whole)
			continue;
		if (rl_canceled()) {
			rc = bp_err_set(err, BP_ET_CANCELED, "canceled while planning");
			goto out;
		}
		rc = tr_disjoint(&s->items[i]);
		if (!rc)
			rc = rl_make_pieces(&p, (uint32_t)i, &s->items[i], minb);
		if (rc) {
			bp_err_lib(err, rc, "while grouping traced ranges");
			goto out;
		}
	}
	if (p.n)	/* qsort(NULL, 0) is undefined (UBSan): every file may be skipped */
		qsort(p.v, p.n, sizeof(*p.v), rl_piece_cmp);
	/*
	 * Metadata, then data; what is read first goes whole (its data too)
	 * before everything, as it is read before the metadata pass.
	 */
	for (phase = EMIT_META; phase <= EMIT_DATA; phase++) {
		for (i = 0; i < p.n; i++) {
			int first = p.v[i].front == RL_FRONT_FIRST;

			if (first && phase == EMIT_DATA)
				continue;
			if (rl_canceled()) {
				rc = bp_err_set(err, BP_ET_CANCELED, "canceled while planning");
				goto out;
			}
			rc = emit_piece(s, &p.v[i], phase);
			if (!rc && first)
				rc = emit_piece(s, &p.v[i], EMIT_DATA);
			if (rc) {
				bp_err_lib(err, rc, "while laying out the boot stream");
				goto out;
			}
		}
	}
	/* Files whose every range was a hole or unwritten have nothing to move. */
	for (i = 0; i < s->nitems; i++) {
		struct rl_item *it = &s->items[i];

		if (!it->skipped && !it->nsegs) {
			it->skipped = 1;
			it->skip = BP_RL_SKIP_NO_BLOCKS;
			if (it->is_dir) {
				s->dirs--;
			} else {
				s->files--;
				s->skipped[BP_RL_SKIP_NO_BLOCKS]++;
			}
		}
	}
out:
	free(p.v);
	free(refs);
	free(fidx);
	return rc;
}

errcode_t rl_stream_build(ext2_filsys fs, const struct bp_trace *t, int whole_files,
			  struct rl_stream *s, struct bp_err *err)
{
	struct rl_build b = { .whole_files = whole_files };

	return rl_stream_build_opts(fs, t, &b, s, err);
}

void rl_stream_free(struct rl_stream *s)
{
	size_t i;

	for (i = 0; i < s->nitems; i++) {
		free(s->items[i].map);
		free(s->items[i].tree);
		free(s->items[i].nmap_new);
		free(s->items[i].segs);
		free(s->items[i].cov);
		free(s->items[i].tr);
		free(s->items[i].icov);
	}
	free(s->items);
	free(s->segs);
	if (s->ow) {
		rl_owners_free(s->ow);
		free(s->ow);
	}
	memset(s, 0, sizeof(*s));
}

void rl_stream_walk(const struct rl_stream *s, int planned, rl_run_fn fn, void *ctx)
{
	size_t i, j;

	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];
		const struct rl_item *it = &s->items[g->item];

		if (it->skipped)
			continue;
		if (g->kind != RL_SEG_TREE) {
			fn(ctx, planned ? g->dst : g->src, g->len);
		} else if (planned) {
			if (g->len)
				fn(ctx, g->dst, g->len);
		} else {
			for (j = 0; j < it->ntree; j++)
				fn(ctx, it->tree[j], 1);
		}
	}
}

struct disc_ctx {
	struct bp_contig c;	/* in blocks: block size 1 */
	uint64_t blocks;
};

static void disc_cb(void *ctx, blk64_t start, blk64_t len)
{
	struct disc_ctx *d = ctx;

	bp_contig_add(&d->c, start, len);
	d->blocks += len;
}

uint64_t rl_stream_discontig(const struct rl_stream *s, int planned, uint64_t *blocks)
{
	struct disc_ctx d = { .blocks = 0 };

	bp_contig_init(&d.c, 1);
	rl_stream_walk(s, planned, disc_cb, &d);
	if (blocks)
		*blocks = d.blocks;
	return d.c.discontig;
}
