// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootset.c --- the boot stream: trace ranges resolved to blocks, in read order
 *
 * Paths are resolved with libext2fs on this filesystem (the trace's phys
 * column is only a hint); generation and size must match the trace. Holes,
 * unwritten extents, inline data and special inodes contribute nothing.
 *
 * Order: first access, piece by piece. Each traced range of a file becomes
 * a run of logical blocks with the rank of its first access; a file's runs
 * are cut into pieces of at least RL_MIN_PIECE_BYTES (a run smaller than
 * that joins a logical neighbour of the same file: one read earlier takes
 * it in; one read later lends it the adjacent blocks it lacks, see
 * make_pieces(); so a merge makes the reader fetch fewer than that many
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

#include "bp_et.h"
#include "contig.h"
#include "rl-int.h"

#define RL_MAX_ITEMS (1u << 22)


static errcode_t grow(void **p, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc ? *alloc : 16;
	void *q;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return ENOMEM;
	*p = q;
	*alloc = n;
	return 0;
}

errcode_t rl_item_add_seg(struct rl_stream *s, uint32_t item, size_t seg)
{
	struct rl_item *it = &s->items[item];

	if (grow((void **)&it->segs, &it->asegs, it->nsegs + 1, sizeof(size_t)))
		return ENOMEM;
	it->segs[it->nsegs++] = seg;
	return 0;
}

/* The item's xattr block and new extent-tree slot, once, before its first block. */
static errcode_t push_slots(struct rl_stream *s, uint32_t item)
{
	struct rl_item *it = &s->items[item];

	if (s->move_ea && it->ea_blk && it->ea_seg == SIZE_MAX) {
		if (grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
			return ENOMEM;
		s->segs[s->nsegs] = (struct rl_seg){
			.item = item, .kind = RL_SEG_EA, .src = it->ea_blk, .len = 1,
		};
		it->ea_seg = s->nsegs++;
	}
	if (it->extents && it->tree_seg == SIZE_MAX) {
		if (grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
			return ENOMEM;
		s->segs[s->nsegs] = (struct rl_seg){ .item = item, .kind = RL_SEG_TREE };
		it->tree_seg = s->nsegs++;
	}
	return 0;
}

errcode_t rl_push_seg(struct rl_stream *s, uint32_t item, int kind, blk64_t lblk, blk64_t src,
		      blk64_t len, blk64_t dst, int has_dst)
{
	struct rl_seg *last;
	size_t before = s->nsegs;
	errcode_t rc;

	rc = push_slots(s, item);
	if (rc)
		return rc;
	last = s->nsegs && s->nsegs == before ? &s->segs[s->nsegs - 1] : NULL;
	/* Extend the previous segment when logically and physically contiguous. */
	if (kind == RL_SEG_DATA && last && last->item == item && last->kind == RL_SEG_DATA &&
	    last->lblk + last->len == lblk && last->src + last->len == src &&
	    (!has_dst || last->dst + last->len == dst) && last->len + len <= EXT_INIT_MAX_LEN) {
		last->len += len;
		return 0;
	}
	if (grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
		return ENOMEM;
	s->segs[s->nsegs] = (struct rl_seg){
		.item = item, .kind = kind, .lblk = lblk, .src = src, .len = len, .dst = dst,
	};
	rc = rl_item_add_seg(s, item, s->nsegs);
	if (rc)
		return rc;
	s->nsegs++;
	return 0;
}

static errcode_t push_run(struct rl_item *it, size_t *alloc, blk64_t lblk, blk64_t pblk,
			  blk64_t len, int flag)
{
	struct rl_run *last = it->nmap ? &it->map[it->nmap - 1] : NULL;

	if (flag != RL_IND_MARK && last && last->uninit == flag &&
	    last->lblk + last->len == lblk && last->pblk + last->len == pblk &&
	    last->len + len <= (flag ? EXT_UNINIT_MAX_LEN : EXT_INIT_MAX_LEN)) {
		last->len += len;
		return 0;
	}
	if (grow((void **)&it->map, alloc, it->nmap + 1, sizeof(*it->map)))
		return ENOMEM;
	it->map[it->nmap++] = (struct rl_run){
		.lblk = lblk, .pblk = pblk, .len = (uint32_t)len, .uninit = (uint8_t)flag,
	};
	return 0;
}

static errcode_t load_extents(ext2_filsys fs, struct rl_item *it, struct ext2_inode *inode)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	size_t amap = 0, atree = 0;
	errcode_t rc;
	int op = EXT2_EXTENT_ROOT;

	rc = ext2fs_extent_open2(fs, it->ino, inode, &h);
	if (rc)
		return rc;
	for (;;) {
		rc = ext2fs_extent_get(h, op, &e);
		op = EXT2_EXTENT_NEXT;
		if (rc == EXT2_ET_EXTENT_NO_NEXT || rc == EXT2_ET_NO_CURRENT_NODE) {
			rc = 0;
			break;
		}
		if (rc)
			break;
		if (e.e_flags & EXT2_EXTENT_FLAGS_LEAF) {
			if (!e.e_len)
				continue;
			rc = push_run(it, &amap, e.e_lblk, e.e_pblk, e.e_len,
				      !!(e.e_flags & EXT2_EXTENT_FLAGS_UNINIT));
		} else if (!(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)) {
			if (grow((void **)&it->tree, &atree, it->ntree + 1, sizeof(blk64_t))) {
				rc = ENOMEM;
			} else {
				it->tree[it->ntree++] = e.e_pblk;
			}
		}
		if (rc)
			break;
	}
	ext2fs_extent_free(h);
	return rc;
}

struct ind_walk {
	struct rl_item *it;
	size_t amap;
	errcode_t rc;
};

static int ind_cb(ext2_filsys fs _unused_, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		  blk64_t ref_blk _unused_, int ref_offset _unused_, void *priv)
{
	struct ind_walk *w = priv;

	/* Indirect blocks: lblk holds the level (1 IND, 2 DIND, 3 TIND). */
	if (blockcnt < 0)
		w->rc = push_run(w->it, &w->amap, (blk64_t)-blockcnt, *blocknr, 1, RL_IND_MARK);
	else
		w->rc = push_run(w->it, &w->amap, (blk64_t)blockcnt, *blocknr, 1, 0);
	return w->rc ? BLOCK_ABORT : 0;
}

/* Read the inode and its current mapping. 0 or an error; it->skipped set if unusable. */
static errcode_t load_item(ext2_filsys fs, struct rl_item *it, int any)
{
	struct ext2_inode_large inode;
	struct ind_walk w = { .it = it };
	errcode_t rc;

	rc = ext2fs_read_inode_full(fs, it->ino, (struct ext2_inode *)&inode, sizeof(inode));
	if (rc)
		return rc;
	it->size = EXT2_I_SIZE(&inode);
	if (any)
		it->is_dir = LINUX_S_ISDIR(inode.i_mode);
	else if (it->is_dir ? !LINUX_S_ISDIR(inode.i_mode) : !LINUX_S_ISREG(inode.i_mode)) {
		it->skipped = 1;
		it->skip = BP_RL_SKIP_NOT_REGULAR;
		return 0;
	}
	if (ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode)) {
		int owned = 0;
		blk64_t acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)&inode);

		rc = rl_ea_owned(fs, it->ino, acl, &owned);
		if (rc)
			return rc;
		if (owned)
			it->ea_blk = acl;
	}
	if ((inode.i_flags & EXT4_INLINE_DATA_FL) ||
	    !ext2fs_inode_has_valid_blocks2(fs, (struct ext2_inode *)&inode)) {
		it->skipped = 1;
		it->skip = BP_RL_SKIP_NO_BLOCKS;
		return 0;
	}
	if (inode.i_flags & EXT4_EXTENTS_FL) {
		if (!ext2fs_has_feature_extents(fs->super))
			return EXT2_ET_EXTENT_NOT_SUPPORTED;
		it->extents = 1;
		return load_extents(fs, it, (struct ext2_inode *)&inode);
	}
	rc = ext2fs_block_iterate3(fs, it->ino, BLOCK_FLAG_READ_ONLY, NULL, ind_cb, &w);
	return rc ? rc : w.rc;
}

static int item_find(const struct rl_stream *s, ext2_ino_t ino)
{
	size_t i;

	for (i = s->nitems; i-- > 0;)
		if (s->items[i].ino == ino)
			return (int)i;
	return -1;
}

static errcode_t item_new2(struct rl_stream *s, ext2_ino_t ino, int is_dir, int any,
			   uint32_t *ret)
{
	struct rl_item *it;
	errcode_t rc;

	if (s->nitems >= RL_MAX_ITEMS)
		return EFBIG;
	if (grow((void **)&s->items, &s->aitems, s->nitems + 1, sizeof(*s->items)))
		return ENOMEM;
	it = &s->items[s->nitems];
	memset(it, 0, sizeof(*it));
	it->ino = ino;
	it->is_dir = (uint8_t)is_dir;
	it->tree_seg = SIZE_MAX;
	it->ea_seg = SIZE_MAX;
	if (ino < EXT2_FIRST_INODE(s->fs->super) && ino != EXT2_ROOT_INO) {
		it->skipped = 1;
		it->skip = BP_RL_SKIP_NOT_REGULAR;
	} else {
		rc = load_item(s->fs, it, any);
		if (rc)
			return rc;
	}
	*ret = (uint32_t)s->nitems++;
	return 0;
}

static errcode_t item_new(struct rl_stream *s, ext2_ino_t ino, int is_dir, uint32_t *ret)
{
	return item_new2(s, ino, is_dir, 0, ret);
}

errcode_t rl_item_load_any(struct rl_stream *s, ext2_ino_t ino, uint32_t *ret)
{
	return item_new2(s, ino, 0, 1, ret);
}

/* All blocks of an item: tree slot + data (extents), or visit order (indirect). */
/*
 * Emission phases: the blocks the reader reads through the block device
 * (directories, indirect blocks, extent-tree slots, xattr blocks) first,
 * then file data; see rl_stream_build2().
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
		rc = push_slots(s, idx);
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

static errcode_t cov_add(struct rl_item *it, blk64_t a, blk64_t b)
{
	if (grow((void **)&it->cov, &it->acov, it->ncov + 1, 2 * sizeof(blk64_t)))
		return ENOMEM;
	it->cov[2 * it->ncov] = a;
	it->cov[2 * it->ncov + 1] = b;
	it->ncov++;
	return 0;
}

/* Logical blocks [a, b) of an item, traced at rank, minus what was traced before. */
static errcode_t tr_add(struct rl_stream *s, uint32_t idx, blk64_t a, blk64_t b, uint64_t rank)
{
	struct rl_item *it = &s->items[idx];
	size_t i;
	errcode_t rc;

	for (i = 0; i < it->ncov && a < b; i++) {
		blk64_t ca = it->cov[2 * i], cb = it->cov[2 * i + 1];

		if (cb <= a || ca >= b)
			continue;
		if (ca <= a) {
			a = cb;
		} else {
			/* [a, ca) is new; the rest after cb handled recursively. */
			if (cb < b) {
				rc = tr_add(s, idx, cb, b, rank);
				if (rc)
					return rc;
				it = &s->items[idx];
			}
			b = ca;
		}
		i = (size_t)-1;	/* restart: intervals are unsorted */
	}
	if (a >= b)
		return 0;
	rc = cov_add(it, a, b);
	if (rc)
		return rc;
	if (grow((void **)&it->tr, &it->atr, it->ntr + 1, sizeof(*it->tr)))
		return ENOMEM;
	it->tr[it->ntr++] = (struct rl_trange){ .a = a, .b = b, .rank = rank };
	return 0;
}

/* The mapped, initialized data blocks of [a, b) as segments. */
static errcode_t push_data(struct rl_stream *s, uint32_t idx, blk64_t a, blk64_t b)
{
	size_t i;
	errcode_t rc;

	for (i = 0; i < s->items[idx].nmap; i++) {
		const struct rl_run r = s->items[idx].map[i];
		blk64_t lo = MAX(a, r.lblk), hi = MIN(b, r.lblk + r.len);

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

/* A unit of the layout: a whole directory or file, or a piece of a file. */
enum { PIECE_WHOLE, PIECE_RANGES };

struct piece {
	uint64_t rank;
	size_t seq;		/* creation order: ties keep directories first */
	uint32_t item;
	uint8_t kind;
	uint8_t front;		/* a listed directory: before every other piece */
	size_t first, n;	/* PIECE_RANGES: it->tr[first .. first + n) */
};

struct pieces {
	struct piece *v;
	size_t n, a;
};

static errcode_t piece_add(struct pieces *p, uint32_t item, int kind, uint64_t rank,
			   size_t first, size_t n)
{
	if (grow((void **)&p->v, &p->a, p->n + 1, sizeof(*p->v)))
		return ENOMEM;
	p->v[p->n] = (struct piece){
		.rank = rank, .seq = p->n, .item = item, .kind = (uint8_t)kind,
		.first = first, .n = n,
	};
	p->n++;
	return 0;
}

static int piece_cmp(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->front != y->front)
		return x->front ? -1 : 1;
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
static errcode_t make_pieces(struct pieces *p, uint32_t idx, struct rl_item *it, blk64_t minb)
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
			rc = piece_add(p, idx, PIECE_RANGES, g[cur].rank, first, nt - first);
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

	for (i = 0; i < it->nmap; i++) {
		const struct rl_run *r = &it->map[i];

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
		rc = push_slots(s, pc->item);
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

/* The directories on path (root first), each laid out whole the first time it is seen. */
static errcode_t add_dirs(struct rl_stream *s, struct pieces *p, const char *path,
			  uint64_t rank)
{
	char buf[BP_TRACE_PATH_MAX + 1];
	size_t n = strlen(path), i;
	ext2_ino_t ino = EXT2_ROOT_INO;
	uint32_t idx;
	errcode_t rc;

	if (n > BP_TRACE_PATH_MAX)
		return ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (i = 0; i <= n; i++) {
		int found;

		if (i && buf[i] != '/')
			continue;
		if (i) {
			buf[i] = 0;
			rc = ext2fs_namei_follow(s->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, buf, &ino);
			buf[i] = '/';
			if (rc)
				return 0;	/* the file check reports it missing */
		}
		found = item_find(s, ino);
		if (found >= 0)
			continue;
		rc = item_new(s, ino, 1, &idx);
		if (rc)
			return rc;
		if (s->items[idx].skipped)
			continue;
		s->dirs++;
		rc = piece_add(p, idx, PIECE_WHOLE, rank, 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Directories the boot read without opening a file under them (systemd
 * listing its .wants directories, /etc/init.d, ...) are in the trace only
 * as metadata ranges. Every directory owning a traced metadata block joins
 * the stream whole, ranked at the first access of its earliest such block:
 * left where they were, they cost the reader one seek each (40 directories,
 * ~0.2 s on the 5400 rpm model, on the traced Debian boot). They go first,
 * at the very head of the region, before the path directories: after the
 * run their traced blocks are stale and they cannot be found again, and at
 * the head they leave no hole in the stream a later verify sees (the
 * reader reads the whole metadata head in one request either way).
 */
struct dscan {
	const struct bp_trace *t;
	uint64_t bs, first_ns;
};

/* first_ns of the traced metadata range holding blk, or UINT64_MAX. */
static uint64_t meta_ns(const struct bp_trace *t, uint64_t bs, blk64_t blk)
{
	uint64_t off = blk * bs;
	size_t lo = 0, hi = t->nmeta;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct bp_trace_meta *m = &t->meta[mid];

		if (off < m->offset)
			hi = mid;
		else if (off - m->offset >= m->length)
			lo = mid + 1;
		else
			return m->first_ns;
	}
	return UINT64_MAX;
}

static int dscan_cb(ext2_filsys fs _unused_, blk64_t *blocknr, e2_blkcnt_t blockcnt _unused_,
		    blk64_t ref_blk _unused_, int ref_offset _unused_, void *priv)
{
	struct dscan *d = priv;
	uint64_t ns = meta_ns(d->t, d->bs, *blocknr);

	if (ns < d->first_ns)
		d->first_ns = ns;
	return 0;
}

/* The first index of refs (sorted by time) read at or after ns. */
static size_t rank_at(const struct bp_trace_ref *refs, size_t n, uint64_t ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (refs[mid].range->first_ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static errcode_t add_traced_dirs(struct rl_stream *s, struct pieces *p, const struct bp_trace *t,
				 const struct bp_trace_ref *refs, size_t nrefs)
{
	struct ext2_inode_large inode;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct dscan d = { .t = t, .bs = s->fs->blocksize };
	errcode_t rc;

	if (!t->nmeta)
		return 0;
	rc = ext2fs_open_inode_scan(s->fs, 0, &scan);
	if (rc)
		return rc;
	for (;;) {
		uint32_t idx;

		rc = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&inode,
						sizeof(inode));
		if (rc == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (rc || !ino)
			break;
		if (!LINUX_S_ISDIR(inode.i_mode) || !inode.i_links_count || inode.i_dtime ||
		    (inode.i_flags & EXT4_INLINE_DATA_FL))
			continue;
		d.first_ns = UINT64_MAX;
		if (ext2fs_block_iterate3(s->fs, ino, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
					  NULL, dscan_cb, &d) || d.first_ns == UINT64_MAX)
			continue;
		if (item_find(s, ino) >= 0)
			continue;
		rc = item_new(s, ino, 1, &idx);
		if (rc)
			break;
		if (s->items[idx].skipped)
			continue;
		s->dirs++;
		rc = piece_add(p, idx, PIECE_WHOLE, rank_at(refs, nrefs, d.first_ns), 0, 0);
		if (rc)
			break;
		p->v[p->n - 1].front = 1;
	}
	ext2fs_close_inode_scan(scan);
	return rc;
}

/* Resolve one traced file: -1 if unusable (counted as skipped), else its item. */
static errcode_t resolve_file(struct rl_stream *s, struct pieces *p,
			      const struct bp_trace_file *f, int whole_files, uint64_t rank,
			      int *ret)
{
	struct ext2_inode_large inode;
	ext2_ino_t ino;
	uint32_t idx;
	int found;
	errcode_t rc;

	*ret = -1;
	rc = ext2fs_namei_follow(s->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, f->path, &ino);
	if (rc) {
		s->skipped[BP_RL_SKIP_MISSING]++;
		return 0;
	}
	found = item_find(s, ino);
	if (found >= 0 && !s->items[found].is_dir) {
		*ret = s->items[found].skipped ? -1 : found;
		return 0;
	}
	rc = ext2fs_read_inode_full(s->fs, ino, (struct ext2_inode *)&inode, sizeof(inode));
	if (rc)
		return rc;
	if (!LINUX_S_ISREG(inode.i_mode) || found >= 0) {
		s->skipped[BP_RL_SKIP_NOT_REGULAR]++;
		return 0;
	}
	if (ino != f->ino || inode.i_generation != f->generation ||
	    EXT2_I_SIZE(&inode) != f->size) {
		s->skipped[BP_RL_SKIP_CHANGED]++;
		return 0;
	}
	rc = add_dirs(s, p, f->path, rank);
	if (rc)
		return rc;
	rc = item_new(s, ino, 0, &idx);
	if (rc)
		return rc;
	if (s->items[idx].skipped) {
		s->skipped[s->items[idx].skip]++;
		return 0;
	}
	s->files++;
	if (whole_files) {
		s->items[idx].whole = 1;
		rc = piece_add(p, idx, PIECE_WHOLE, rank, 0, 0);
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

errcode_t rl_stream_build2(ext2_filsys fs, const struct bp_trace *t, int whole_files,
			   uint64_t min_piece, struct rl_stream *s, struct bp_err *err)
{
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
	/* Resolve in first-access order; collect each file's traced blocks. */
	for (i = 0; i < nrefs; i++) {
		const struct bp_trace_file *f = refs[i].file;
		const struct bp_trace_range *r = refs[i].range;
		size_t fi = (size_t)(f - t->files);
		struct rl_item *it;
		blk64_t a, b;

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
	rc = add_traced_dirs(s, &p, t, refs, nrefs);
	if (rc) {
		bp_err_lib(err, rc, "while looking for the directories the boot listed");
		goto out;
	}
	/* Pieces of each file, then everything in first-access order. */
	for (i = 0; i < s->nitems; i++) {
		if (s->items[i].skipped || s->items[i].is_dir || s->items[i].whole)
			continue;
		rc = make_pieces(&p, (uint32_t)i, &s->items[i], minb);
		if (rc) {
			bp_err_lib(err, rc, "while grouping traced ranges");
			goto out;
		}
	}
	if (p.n)	/* qsort(NULL, 0) is undefined (UBSan): every file may be skipped */
		qsort(p.v, p.n, sizeof(*p.v), piece_cmp);
	for (phase = EMIT_META; phase <= EMIT_DATA; phase++) {
		for (i = 0; i < p.n; i++) {
			rc = emit_piece(s, &p.v[i], phase);
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
	return rl_stream_build2(fs, t, whole_files, RL_MIN_PIECE_BYTES, s, err);
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
