// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bootset.c --- the boot stream: trace ranges resolved to blocks, in read order
 *
 * Paths are resolved with libext2fs on this filesystem (the trace's phys
 * column is only a hint); generation and size must match the trace. Each
 * directory on a path comes before the files it names; an extent item's tree
 * slot before its data; indirect blocks of block-mapped items in iterator
 * visit order (d0..d11, IND, d12.., DIND, IND, ..). Holes, unwritten extents,
 * inline data and special inodes contribute nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
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

errcode_t rl_push_seg(struct rl_stream *s, uint32_t item, int kind, blk64_t lblk, blk64_t src,
		      blk64_t len, blk64_t dst, int has_dst)
{
	struct rl_item *it = &s->items[item];
	struct rl_seg *last = s->nsegs ? &s->segs[s->nsegs - 1] : NULL;
	errcode_t rc;

	if (s->move_ea && it->ea_blk && it->ea_seg == SIZE_MAX) {
		if (grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
			return ENOMEM;
		s->segs[s->nsegs] = (struct rl_seg){
			.item = item, .kind = RL_SEG_EA, .src = it->ea_blk, .len = 1,
		};
		it->ea_seg = s->nsegs++;
		last = NULL;
	}
	if (it->extents && it->tree_seg == SIZE_MAX) {
		if (grow((void **)&s->segs, &s->asegs, s->nsegs + 1, sizeof(*s->segs)))
			return ENOMEM;
		s->segs[s->nsegs] = (struct rl_seg){ .item = item, .kind = RL_SEG_TREE };
		it->tree_seg = s->nsegs++;
		last = NULL;
	}
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

	if (blockcnt < 0)
		w->rc = push_run(w->it, &w->amap, 0, *blocknr, 1, RL_IND_MARK);
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
static errcode_t add_whole(struct rl_stream *s, uint32_t idx)
{
	struct rl_item *it = &s->items[idx];
	size_t i;
	errcode_t rc;

	it->whole = 1;
	for (i = 0; i < it->nmap; i++) {
		const struct rl_run *r = &s->items[idx].map[i];

		if (r->uninit == 1)
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

/* Logical blocks [a, b) of an extent item, minus what is already in the stream. */
static errcode_t add_range(struct rl_stream *s, uint32_t idx, blk64_t a, blk64_t b)
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
				rc = add_range(s, idx, cb, b);
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

/* The directories on path (root first), each added whole the first time it is seen. */
static errcode_t add_dirs(struct rl_stream *s, const char *path)
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
		rc = add_whole(s, idx);
		if (rc)
			return rc;
	}
	return 0;
}

/* Resolve one traced file: -1 if unusable (counted as skipped), else its item. */
static errcode_t resolve_file(struct rl_stream *s, const struct bp_trace_file *f,
			      int whole_files, int *ret)
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
	rc = add_dirs(s, f->path);
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
	if (whole_files || !s->items[idx].extents) {
		rc = add_whole(s, idx);
		if (rc)
			return rc;
	}
	*ret = (int)idx;
	return 0;
}

errcode_t rl_stream_build(ext2_filsys fs, const struct bp_trace *t, int whole_files,
			  struct rl_stream *s, struct bp_err *err)
{
	struct bp_trace_ref *refs = NULL;
	int *fidx = NULL;
	size_t nrefs = 0, i;
	blk64_t bs = fs->blocksize;
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
	for (i = 0; i < nrefs; i++) {
		const struct bp_trace_file *f = refs[i].file;
		const struct bp_trace_range *r = refs[i].range;
		size_t fi = (size_t)(f - t->files);
		struct rl_item *it;
		blk64_t a, b;

		if (fidx[fi] == -2) {
			rc = resolve_file(s, f, whole_files, &fidx[fi]);
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
		rc = add_range(s, (uint32_t)fidx[fi], a, b);
		if (rc) {
			bp_err_lib(err, rc, "while adding the ranges of %s", f->path);
			goto out;
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
	free(refs);
	free(fidx);
	return rc;
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
	blk64_t next;
	uint64_t runs, blocks;
};

static void disc_cb(void *ctx, blk64_t start, blk64_t len)
{
	struct disc_ctx *d = ctx;

	if (!len)
		return;
	if (!d->runs || start != d->next)
		d->runs++;
	d->next = start + len;
	d->blocks += len;
}

uint64_t rl_stream_discontig(const struct rl_stream *s, int planned, uint64_t *blocks)
{
	struct disc_ctx d = { 0 };

	rl_stream_walk(s, planned, disc_cb, &d);
	if (blocks)
		*blocks = d.blocks;
	return d.runs ? d.runs - 1 : 0;
}
