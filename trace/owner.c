// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * owner.c --- metadata blocks named by their owners (tracefile.h, "Owners")
 *
 * A boot reads directories, mapping blocks, inode tables and group metadata
 * through the block device; the trace sees device offsets. Those offsets
 * are right only until a relayout moves what they hold, so the trace names
 * each block by its owner once, against the filesystem it was taken on,
 * and every later reader asks where that owner's blocks are now.
 *
 * The reverse map (struct omap) is runs of physical blocks with their
 * owner: every group's superblock, descriptors, bitmaps and inode table
 * (from the descriptors), the journal's blocks, and, from one walk of the
 * inode tables, every directory's data and mapping blocks (directories are
 * few: the walk reads the inode tables and the mapping of directories
 * only), plus the mapping blocks of the trace's own files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "ext2file.h"
#include "tracefile.h"

struct orun {
	uint64_t pblk, len;
	struct bp_trace_owned o;	/* o.index: the owner's index at pblk; o.count unused */
};

struct omap {
	struct orun *v;
	size_t n, cap;
};

static errcode_t omap_add(struct omap *m, uint64_t pblk, uint64_t len, uint32_t kind,
			  uint32_t id, uint32_t gen, uint64_t index)
{
	if (!len || !pblk)
		return 0;
	if (bp_array_reserve((void **)&m->v, &m->cap, m->n, sizeof(*m->v), 256))
		return ENOMEM;
	m->v[m->n++] = (struct orun){ pblk, len, { kind, id, gen, index, 0, 0 } };
	return 0;
}

static int cmp_orun(const void *a, const void *b)
{
	const struct orun *x = a, *y = b;

	return x->pblk < y->pblk ? -1 : x->pblk > y->pblk;
}

/* The run holding blk, or NULL (runs of a sane filesystem do not overlap). */
static const struct orun *omap_find(const struct omap *m, uint64_t blk)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].pblk <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && blk - m->v[lo - 1].pblk < m->v[lo - 1].len)
		return &m->v[lo - 1];
	return NULL;
}

/* Where group g's metadata of kind is (index 0); 0 if it has none. */
static uint64_t group_blk(ext2_filsys fs, dgrp_t g, uint32_t kind, uint64_t *len)
{
	blk64_t super = 0, old_desc = 0, new_desc = 0;
	blk_t used;

	*len = 1;
	switch (kind) {
	case BP_OWN_SUPER:
	case BP_OWN_GDT:
		if (ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used))
			return 0;
		if (kind == BP_OWN_SUPER)
			return super || g == 0 ? super : 0;
		if (old_desc) {
			*len = fs->desc_blocks + fs->super->s_reserved_gdt_blocks;
			return old_desc;
		}
		return new_desc;
	case BP_OWN_BBITMAP:
		return ext2fs_block_bitmap_loc(fs, g);
	case BP_OWN_IBITMAP:
		return ext2fs_inode_bitmap_loc(fs, g);
	case BP_OWN_ITABLE:
		*len = fs->inode_blocks_per_group;
		return ext2fs_inode_table_loc(fs, g);
	}
	return 0;
}

static errcode_t add_groups(struct omap *m, ext2_filsys fs)
{
	static const uint32_t kinds[] = { BP_OWN_SUPER, BP_OWN_GDT, BP_OWN_BBITMAP,
					  BP_OWN_IBITMAP, BP_OWN_ITABLE };
	errcode_t rc = 0;
	uint64_t len, b;
	dgrp_t g;
	size_t k;

	for (g = 0; g < fs->group_desc_count && !rc; g++)
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !rc; k++) {
			b = group_blk(fs, g, kinds[k], &len);
			/* group 0's superblock of a 4 KiB filesystem is block 0 */
			if (kinds[k] == BP_OWN_SUPER && g == 0 && !b) {
				if (bp_array_reserve((void **)&m->v, &m->cap, m->n, sizeof(*m->v),
						      256))
					return ENOMEM;
				m->v[m->n++] = (struct orun){ 0, 1, { BP_OWN_SUPER, 0, 0, 0, 0, 0 } };
				continue;
			}
			rc = omap_add(m, b, len, kinds[k], g, 0, 0);
		}
	return rc;
}

/* One inode's blocks into the map: data (dirs, the journal) and mapping blocks. */
struct iwalk {
	struct omap *m;
	uint32_t data_kind;	/* BP_OWN_DIR, BP_OWN_JOURNAL or BP_OWN_NONE (mapping only) */
	uint32_t ino, gen;
	uint64_t ordinal;
};

static errcode_t iwalk_run(const struct bp_ext2_run *r, void *priv)
{
	struct iwalk *w = priv;

	if (r->kind == BP_EXT2_TREE || r->kind == BP_EXT2_IND)
		return omap_add(w->m, r->pblk, r->len, BP_OWN_TREE, w->ino, w->gen,
				w->ordinal++);
	if (r->kind != BP_EXT2_DATA || w->data_kind == BP_OWN_NONE)
		return 0;
	if (w->data_kind == BP_OWN_JOURNAL)
		return omap_add(w->m, r->pblk, r->len, BP_OWN_JOURNAL, 0, 0, r->lblk);
	return omap_add(w->m, r->pblk, r->len, w->data_kind, w->ino, w->gen, r->lblk);
}

static errcode_t add_inode(struct omap *m, ext2_filsys fs, ext2_ino_t ino,
			   struct ext2_inode_large *in, uint32_t data_kind)
{
	struct iwalk w = { m, data_kind, ino, in->i_generation, 0 };
	errcode_t rc = bp_ext2_file_walk(fs, ino, in, BP_EXT2_WALK_META, iwalk_run, &w);

	/* a map libext2fs cannot walk owns nothing we can name: only ENOMEM fails */
	return rc == ENOMEM ? rc : 0;
}

static errcode_t dir_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			   void *priv)
{
	if (!LINUX_S_ISDIR(in->i_mode))
		return 0;
	return add_inode(priv, fs, ino, in, BP_OWN_DIR);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The map of fs; with t, the mapping blocks of t's regular files too. */
static errcode_t omap_build(ext2_filsys fs, const struct bp_trace *t, struct omap *m)
{
	struct ext2_inode_large in;
	uint32_t *inos = NULL;
	size_t i;
	errcode_t rc;

	rc = add_groups(m, fs);
	if (!rc && ext2fs_has_feature_journal(fs->super) && fs->super->s_journal_inum &&
	    !bp_ext2_read_inode(fs, fs->super->s_journal_inum, &in))
		rc = add_inode(m, fs, fs->super->s_journal_inum, &in, BP_OWN_JOURNAL);
	if (!rc)
		rc = bp_ext2_inodes_walk(fs, dir_inode, m);
	if (rc && rc != ENOMEM)
		rc = 0;	/* an unreadable inode table: what it holds stays unnamed */
	if (!rc && t && t->nfiles) {
		inos = malloc(t->nfiles * sizeof(*inos));
		if (!inos)
			return ENOMEM;
		for (i = 0; i < t->nfiles; i++)
			inos[i] = t->files[i].ino;
		qsort(inos, t->nfiles, sizeof(*inos), cmp_u32);
		for (i = 0; i < t->nfiles && !rc; i++) {
			if ((i && inos[i] == inos[i - 1]) || !inos[i] ||
			    inos[i] > fs->super->s_inodes_count)
				continue;
			if (bp_ext2_read_inode(fs, inos[i], &in) || !LINUX_S_ISREG(in.i_mode) ||
			    !in.i_links_count)
				continue;
			rc = add_inode(m, fs, inos[i], &in, BP_OWN_NONE);
		}
		free(inos);
	}
	if (!rc && m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_orun);
	return rc;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

errcode_t bp_trace_owners_resolve(ext2_filsys fs, struct bp_trace *t, uint64_t *nsec,
				  struct bp_err *err)
{
	uint64_t bs = fs->blocksize, nblocks = ext2fs_blocks_count(fs->super);
	uint64_t t0 = now_ns();
	struct bp_trace_meta *raw = NULL;
	size_t nraw = 0, araw = 0, i;
	struct omap m = { 0 };
	errcode_t rc = 0;

	if (nsec)
		*nsec = 0;
	if (t->nmeta)
		rc = omap_build(fs, t, &m);
	for (i = 0; i < t->nmeta && !rc; i++) {
		const struct bp_trace_meta *r = &t->meta[i];
		uint64_t off = r->offset, end = r->offset + r->length;

		if (r->kind != BP_OWN_NONE) {	/* named already */
			if (bp_array_reserve((void **)&raw, &araw, nraw, sizeof(*raw), 16))
				rc = ENOMEM;
			else
				raw[nraw++] = *r;
			continue;
		}

		while (off < end && !rc) {
			uint64_t b = off / bs, next = (b + 1) * bs;
			const struct orun *o = b < nblocks ? omap_find(&m, b) : NULL;

			if (b >= nblocks)
				next = end;	/* past the filesystem: one raw range */
			if (next > end)
				next = end;
			uint32_t kind = o ? o->o.kind : BP_OWN_NONE;

			if (o) {
				struct bp_trace_owned own = o->o;

				own.index += b - o->pblk;
				own.count = 1;
				own.first_ns = r->first_ns;
				own.at = b * bs;	/* where the boot read it */
				own.has_at = 1;
				rc = bp_trace_add_owned(t, &own);
			}
			/* the range as read, split where the owner's kind changes */
			if (rc) {
			} else if (nraw && raw[nraw - 1].offset + raw[nraw - 1].length == off &&
				   raw[nraw - 1].kind == kind) {
				raw[nraw - 1].length += next - off;
			} else if (bp_array_reserve((void **)&raw, &araw, nraw, sizeof(*raw), 16)) {
				rc = ENOMEM;
			} else {
				raw[nraw++] = (struct bp_trace_meta){ off, next - off, r->first_ns,
								      kind };
			}
			off = next;
		}
	}
	free(m.v);
	if (rc) {
		free(raw);
		return bp_err_set(err, rc, "while naming the owners of the traced metadata: %s",
				  strerror((int)rc));
	}
	free(t->meta);
	t->meta = raw;
	t->nmeta = nraw;
	t->ameta = araw;
	t->version = BP_TRACE_VERSION;
	rc = bp_trace_normalize(t);
	if (nsec)
		*nsec = now_ns() - t0;
	return rc ? bp_err_set(err, rc, "out of memory") : 0;
}

errcode_t bp_trace_upgrade(ext2_filsys fs, struct bp_trace *t, uint64_t *free_blocks,
			   struct bp_err *err)
{
	uint64_t bs = fs->blocksize, nblocks = ext2fs_blocks_count(fs->super), b, last;
	errcode_t rc;
	size_t i;

	if (free_blocks)
		*free_blocks = 0;
	if (t->version >= 2)
		return 0;
	rc = bp_trace_owners_resolve(fs, t, NULL, err);
	if (rc || !free_blocks || !t->nmeta)
		return rc;
	/* blocks the boot read that own nothing and are free now: a relayout moved them away */
	if (!fs->block_map && ext2fs_read_block_bitmap(fs))
		return 0;	/* no bitmap, no hint: the conversion stands */
	for (i = 0; i < t->nmeta; i++) {
		const struct bp_trace_meta *m = &t->meta[i];

		if (m->kind != BP_OWN_NONE || !m->length || m->offset / bs >= nblocks)
			continue;
		last = (m->offset + m->length - 1) / bs;
		for (b = m->offset / bs; b <= last && b < nblocks; b++)
			*free_blocks += !ext2fs_test_block_bitmap2(fs->block_map, b);
	}
	return 0;
}

/* --- where the owners are now --- */

struct locate {
	struct bp_trace_meta *v;
	size_t n, cap;
	struct bp_meta_now_stats *st;
};

static errcode_t put(struct locate *l, uint64_t blk, uint64_t bs, uint64_t ns, uint32_t kind)
{
	struct bp_trace_meta *last = l->n ? &l->v[l->n - 1] : NULL;

	l->st->found[kind]++;
	if (last && last->kind == kind && last->first_ns == ns &&
	    last->offset + last->length == blk * bs) {
		last->length += bs;
		return 0;
	}
	if (bp_array_reserve((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 64))
		return ENOMEM;
	l->v[l->n++] = (struct bp_trace_meta){ blk * bs, bs, ns, kind };
	return 0;
}

/* One inode's runs now, collected. */
struct runs {
	struct bp_ext2_run *v;
	size_t n, cap;
};

static errcode_t runs_add(const struct bp_ext2_run *r, void *priv)
{
	struct runs *rs = priv;

	if (bp_array_reserve((void **)&rs->v, &rs->cap, rs->n, sizeof(*rs->v), 16))
		return ENOMEM;
	rs->v[rs->n++] = *r;
	return 0;
}

/* Load the runs of inode id if it still is the owner (generation, type); 0 runs if not. */
static errcode_t load_runs(ext2_filsys fs, uint32_t kind, uint32_t id, uint32_t gen,
			   struct runs *rs)
{
	struct ext2_inode_large in;
	errcode_t rc;

	rs->n = 0;
	if (!id || id > fs->super->s_inodes_count || bp_ext2_read_inode(fs, id, &in))
		return 0;
	if (!in.i_links_count || in.i_dtime || in.i_generation != gen)
		return 0;
	if (kind == BP_OWN_DIR && !LINUX_S_ISDIR(in.i_mode))
		return 0;
	rc = bp_ext2_file_walk(fs, id, &in, BP_EXT2_WALK_META, runs_add, rs);
	if (rc == ENOMEM)
		return rc;
	if (rc)
		rs->n = 0;
	return 0;
}

/* Physical block of owner index idx in rs (DIR, JOURNAL: logical; TREE: ordinal); 0: none. */
static uint64_t runs_find(const struct runs *rs, uint32_t kind, uint64_t idx)
{
	uint64_t ord = 0;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct bp_ext2_run *r = &rs->v[i];

		if (kind == BP_OWN_TREE) {
			if (r->kind != BP_EXT2_TREE && r->kind != BP_EXT2_IND)
				continue;
			if (ord++ == idx)
				return r->pblk;
		} else if (r->kind == BP_EXT2_DATA && idx >= r->lblk && idx - r->lblk < r->len) {
			return r->pblk + (idx - r->lblk);
		}
	}
	return 0;
}

/* One past the last index owner o's kind and id can have on fs now (rs: its runs). */
static uint64_t owner_limit(ext2_filsys fs, const struct bp_trace_owned *o,
			    const struct runs *rs)
{
	uint64_t lim = 0, len;
	size_t i;

	switch (o->kind) {
	case BP_OWN_DIR:
	case BP_OWN_JOURNAL:
		for (i = 0; i < rs->n; i++)
			if (rs->v[i].kind == BP_EXT2_DATA && rs->v[i].lblk + rs->v[i].len > lim)
				lim = rs->v[i].lblk + rs->v[i].len;
		return lim;
	case BP_OWN_TREE:
		for (i = 0; i < rs->n; i++)
			lim += rs->v[i].kind == BP_EXT2_TREE || rs->v[i].kind == BP_EXT2_IND;
		return lim;
	default:
		if (o->id >= fs->group_desc_count)
			return 0;
		group_blk(fs, o->id, o->kind, &len);
		return len;
	}
}

static int cmp_meta(const void *a, const void *b)
{
	const struct bp_trace_meta *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

errcode_t bp_trace_meta_now(ext2_filsys fs, const struct bp_trace *t, struct bp_trace_meta **ret,
			    size_t *nret, struct bp_meta_now_stats *st, struct bp_err *err)
{
	uint64_t bs = fs->blocksize, nblocks = ext2fs_blocks_count(fs->super);
	struct bp_meta_now_stats local;
	struct locate l = { .st = st ? st : &local };
	struct runs rs = { 0 }, jr = { 0 };
	struct omap m = { 0 };
	errcode_t rc = 0;
	size_t i, k;

	*ret = NULL;
	*nret = 0;
	memset(l.st, 0, sizeof(*l.st));
	/* the journal's runs, once */
	if (ext2fs_has_feature_journal(fs->super) && fs->super->s_journal_inum) {
		struct ext2_inode_large in;

		if (!bp_ext2_read_inode(fs, fs->super->s_journal_inum, &in))
			rc = bp_ext2_file_walk(fs, fs->super->s_journal_inum, &in, 0, runs_add, &jr);
		if (rc && rc != ENOMEM)
			rc = 0;
	}
	for (i = 0; i < t->nowned && !rc; i++) {
		const struct bp_trace_owned *o = &t->owned[i];
		int same = i && o->kind == o[-1].kind && o->id == o[-1].id && o->gen == o[-1].gen;
		uint64_t j;

		uint64_t n;

		if ((o->kind == BP_OWN_DIR || o->kind == BP_OWN_TREE) && !same)
			rc = load_runs(fs, o->kind, o->id, o->gen, &rs);
		/* no more blocks than the owner has now: a hostile count costs nothing */
		n = owner_limit(fs, o, o->kind == BP_OWN_JOURNAL ? &jr : &rs);
		n = n > o->index ? n - o->index : 0;
		if (n > o->count)
			n = o->count;
		l.st->gone[o->kind] += o->count - n;
		for (j = 0; j < n && !rc; j++) {
			uint64_t idx = o->index + j, b = 0, len;

			switch (o->kind) {
			case BP_OWN_DIR:
			case BP_OWN_TREE:
				b = runs_find(&rs, o->kind, idx);
				break;
			case BP_OWN_JOURNAL:
				b = runs_find(&jr, o->kind, idx);
				break;
			default:
				if (o->id >= fs->group_desc_count)
					break;
				b = group_blk(fs, o->id, o->kind, &len);
				if (o->kind == BP_OWN_SUPER && o->id == 0 && idx == 0) {
					rc = put(&l, b, bs, o->first_ns, o->kind);	/* may be 0 */
					continue;
				}
				if (!b || idx >= len)
					b = 0;
				else
					b += idx;
				break;
			}
			if (!b || b >= nblocks) {
				l.st->gone[o->kind]++;
				continue;
			}
			rc = put(&l, b, bs, o->first_ns, o->kind);
		}
	}
	/*
	 * Raw blocks (M lines) owned nothing when the trace was taken. One
	 * that is now a directory's, a mapping block, a group's metadata or
	 * the journal's was reused (a relayout placed metadata there; the
	 * boot's read of that metadata is an O record): dropped. The others
	 * stay, free or not (device probes read free blocks, and past the
	 * end of the filesystem). A version 1 trace that was not upgraded
	 * keeps them all, named by what owns them now.
	 */
	if (t->nmeta && !rc)
		rc = omap_build(fs, NULL, &m);
	for (i = 0; i < t->nmeta && !rc; i++) {
		const struct bp_trace_meta *r = &t->meta[i];
		uint64_t b, first = r->offset / bs, last = (r->offset + r->length - 1) / bs;
		const struct orun *o;

		if (!r->length || r->kind != BP_OWN_NONE)
			continue;	/* a copy of an O record's blocks as they were read */
		if (first >= nblocks) {	/* past the filesystem: as it was */
			if (bp_array_reserve((void **)&l.v, &l.cap, l.n, sizeof(*l.v), 64)) {
				rc = ENOMEM;
				break;
			}
			l.v[l.n++] = *r;
			l.st->found[BP_OWN_NONE] += last - first + 1;
			continue;
		}
		for (b = first; b <= last && !rc; b++) {
			if (b >= nblocks) {	/* the rest is past the filesystem: as it was */
				if (bp_array_reserve((void **)&l.v, &l.cap, l.n, sizeof(*l.v), 64)) {
					rc = ENOMEM;
					break;
				}
				l.v[l.n++] = (struct bp_trace_meta){ b * bs, r->offset + r->length - b * bs,
								     r->first_ns, BP_OWN_NONE };
				l.st->found[BP_OWN_NONE] += last - b + 1;
				break;
			}
			o = omap_find(&m, b);
			if (o && t->version >= 2) {
				l.st->gone[BP_OWN_NONE]++;	/* reused */
				continue;
			}
			rc = put(&l, b, bs, r->first_ns, o ? o->o.kind : BP_OWN_NONE);
		}
	}
	free(m.v);
	free(rs.v);
	free(jr.v);
	if (rc) {
		free(l.v);
		return bp_err_set(err, rc, "while finding the traced metadata on %s: %s",
				  fs->device_name, error_message(rc));
	}
	/* by offset; a block reached twice (two owners that now share it) once */
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_meta);
	for (i = 0, k = 0; i < l.n; i++) {
		struct bp_trace_meta *p = k ? &l.v[k - 1] : NULL;

		if (p && l.v[i].offset < p->offset + p->length) {
			uint64_t end = l.v[i].offset + l.v[i].length;

			if (end > p->offset + p->length)
				p->length = end - p->offset;
			continue;
		}
		l.v[k++] = l.v[i];
	}
	*ret = l.v;
	*nret = k;
	return 0;
}
