// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-layout.c --- how far ahead a sequential reader must run, per layout
 *
 *   bench-layout IMAGE TRACE                 the layout as it is on the image
 *   bench-layout --plan BYTES IMAGE TRACE    as relayout would plan it with
 *                                            that minimum piece (read-only)
 *
 * The boot's demand: every traced block, in first-access order (ranges by
 * first_ns, blocks of a range in file order, each block once). The reader
 * streams the same blocks in physical order (a pack is sorted by physical
 * offset). When the boot asks for its k-th block, the reader must already
 * have read every block up to that one's position in its stream: it must run
 * ahead by pos(k) - k blocks. Printed: the maximum and the 95th percentile
 * of that, in 4 KiB pages, and extents per traced file (runs of logically
 * and physically consecutive data blocks). The "as it is" mode maps blocks
 * with ext2fs_bmap2 only, so it does not share the engine's view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "fsident.h"
#include "rl-int.h"

struct blk {
	ext2_ino_t ino;
	blk64_t lblk, pblk;
	size_t boot;	/* index in the boot's order */
	size_t pos;	/* index in the reader's order */
};

static int cmp_ino_lblk(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->lblk != y->lblk)
		return x->lblk < y->lblk ? -1 : 1;
	return x->boot < y->boot ? -1 : x->boot > y->boot;
}

static int cmp_boot(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return x->boot < y->boot ? -1 : x->boot > y->boot;
}

static int cmp_pblk(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	if (x->pblk != y->pblk)
		return x->pblk < y->pblk ? -1 : 1;
	return x->boot < y->boot ? -1 : x->boot > y->boot;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Planned place of (item, lblk), or 0 when the plan does not move it. */
static blk64_t planned(const struct rl_stream *s, ext2_ino_t ino, blk64_t lblk)
{
	size_t i, k;

	for (i = 0; i < s->nitems; i++) {
		const struct rl_item *it = &s->items[i];

		if (it->ino != ino || it->skipped)
			continue;
		for (k = 0; k < it->nsegs; k++) {
			const struct rl_seg *g = &s->segs[it->segs[k]];

			if (g->kind == RL_SEG_DATA && lblk >= g->lblk && lblk < g->lblk + g->len)
				return g->dst + (lblk - g->lblk);
		}
	}
	return 0;
}

static void die(const char *what, errcode_t rc)
{
	fprintf(stderr, "bench-layout: %s: %s\n", what, error_message(rc));
	exit(1);
}

int main(int argc, char **argv)
{
	struct bp_err err = { 0 };
	struct bp_trace *t = NULL;
	struct bp_trace_ref *refs = NULL;
	struct rl_stream s;
	struct bp_relayout_opts o;
	struct bp_relayout_report rep;
	ext2_filsys fs;
	struct blk *v = NULL;
	int64_t *ahead;
	size_t nrefs = 0, n = 0, cap = 0, i, k, files = 0, ext = 0, maxext = 0;
	long long min_piece = -1;
	int64_t amax = 0;
	double per_page;
	errcode_t rc;

	add_error_table(&et_bp_error_table);
	if (argc == 5 && !strcmp(argv[1], "--plan")) {
		min_piece = atoll(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: bench-layout [--plan MIN_PIECE_BYTES] IMAGE TRACE\n");
		return 2;
	}
	if (bp_fs_open_ro(argv[1], &fs, &err)) {
		fprintf(stderr, "bench-layout: %s\n", bp_err_str(&err));
		return 1;
	}
	if (bp_trace_load(argv[2], &t, &err)) {
		fprintf(stderr, "bench-layout: %s\n", bp_err_str(&err));
		return 1;
	}
	memset(&s, 0, sizeof(s));
	if (min_piece >= 0) {
		/* 0 bytes = no minimum: one block */
		struct rl_build b = { .min_piece = min_piece ? (uint64_t)min_piece : 1 };

		rc = ext2fs_read_block_bitmap(fs);
		if (rc)
			die("block bitmap", rc);
		memset(&o, 0, sizeof(o));
		memset(&rep, 0, sizeof(rep));
		o.device = argv[1];
		o.trace = t;
		/* The plan may need eviction: it asks the ownership map. */
		if (rl_stream_build_opts(fs, t, &b, &s, &err) ||
		    !(s.ow = calloc(1, sizeof(*s.ow))) ||
		    rl_owners_build(fs, argv[1], s.ow, &err) ||
		    rl_plan(&s, &o, 0, &rep, &err)) {
			fprintf(stderr, "bench-layout: %s\n", bp_err_str(&err));
			return 1;
		}
	}
	rc = bp_trace_ranges_by_time(t, &refs, &nrefs);
	if (rc)
		die("trace", rc);
	for (i = 0; i < nrefs; i++) {
		const struct bp_trace_file *f = refs[i].file;
		const struct bp_trace_range *r = refs[i].range;
		struct ext2_inode inode;
		blk64_t a, b, l;

		if (ext2fs_read_inode(fs, f->ino, &inode) || inode.i_generation != f->generation ||
		    !LINUX_S_ISREG(inode.i_mode))
			continue;
		a = r->offset / fs->blocksize;
		b = (MIN(r->offset + r->length, EXT2_I_SIZE(&inode)) + fs->blocksize - 1) /
		    fs->blocksize;
		for (l = a; l < b; l++) {
			blk64_t p = 0;
			int flags = 0;

			rc = ext2fs_bmap2(fs, f->ino, &inode, NULL, 0, l, &flags, &p);
			if (rc)
				die(f->path, rc);
			if (!p || (flags & BMAP_RET_UNINIT))
				continue;
			if (min_piece >= 0) {
				blk64_t q = planned(&s, f->ino, l);

				if (q)
					p = q;
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					die("memory", ENOMEM);
			}
			v[n] = (struct blk){ .ino = f->ino, .lblk = l, .pblk = p, .boot = n };
			n++;
		}
	}
	/* Each block once, at its first access; extents per file. */
	qsort(v, n, sizeof(*v), cmp_ino_lblk);
	for (i = 0, k = 0; i < n; i++) {
		if (k && v[k - 1].ino == v[i].ino && v[k - 1].lblk == v[i].lblk)
			continue;
		v[k++] = v[i];
	}
	n = k;
	for (i = 0; i < n;) {
		size_t runs = 1;

		for (k = i + 1; k < n && v[k].ino == v[i].ino; k++)
			if (v[k].lblk != v[k - 1].lblk + 1 || v[k].pblk != v[k - 1].pblk + 1)
				runs++;
		files++;
		ext += runs;
		maxext = MAX(maxext, runs);
		i = k;
	}
	qsort(v, n, sizeof(*v), cmp_boot);
	for (i = 0; i < n; i++)
		v[i].boot = i;
	qsort(v, n, sizeof(*v), cmp_pblk);
	ahead = malloc((n ? n : 1) * sizeof(*ahead));
	if (!ahead)
		die("memory", ENOMEM);
	for (i = 0; i < n; i++) {
		v[i].pos = i;
		ahead[i] = (int64_t)v[i].pos - (int64_t)v[i].boot;
		amax = MAX(amax, ahead[i]);
	}
	qsort(ahead, n, sizeof(*ahead), cmp_i64);
	per_page = (double)fs->blocksize / 4096;
	printf("%s min_piece=%lld blocks=%zu pages=%.0f ahead_max_pages=%.0f ahead_p95_pages=%.0f "
	       "ahead_max_mib=%.1f files=%zu traced_runs_per_file=%.2f traced_runs_max=%zu\n",
	       min_piece >= 0 ? "planned" : "on-disk", min_piece, n, n * per_page,
	       amax * per_page, n ? ahead[(n * 95) / 100] * per_page : 0.0,
	       amax * (double)fs->blocksize / 1048576, files, files ? (double)ext / files : 0.0,
	       maxext);
	if (min_piece >= 0) {
		size_t ne = 0, nf = 0, mx = 0, deep = 0;

		for (i = 0; i < s.nitems; i++) {
			const struct rl_item *it = &s.items[i];

			if (it->skipped || it->is_dir || !it->extents)
				continue;
			nf++;
			ne += it->nnew;
			mx = MAX(mx, it->nnew);
			deep += rl_extent_tree_blocks(fs, it->nnew) > 4;
		}
		printf("planned extent files=%zu extents_per_file=%.2f extents_max=%zu "
		       "depth2=%zu too_fragmented=%llu region_blocks=%llu\n",
		       nf, nf ? (double)ne / nf : 0.0, mx, deep,
		       (unsigned long long)rep.files_skipped[BP_RL_SKIP_TOO_FRAGMENTED],
		       (unsigned long long)rep.region_len);
	}
	free(ahead);
	free(v);
	free(refs);
	rl_stream_free(&s);
	bp_trace_free(t);
	ext2fs_close_free(&fs);
	return 0;
}
