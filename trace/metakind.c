// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metakind.c --- what a block read by a boot holds (see metakind.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metakind.h"

struct mk_run {
	blk64_t start, count;
	enum bp_mkind kind;
	const char *owner;	/* into the trace's paths, or NULL */
	size_t owner_len;
};

struct bp_mkmap {
	struct mk_run *v;
	size_t n, alloc;
	ext2_ino_t *walked;	/* directories already walked, sorted when searched */
	size_t nwalked, awalked;
};

static const char *const kind_names[BP_MK_NR] = {
	"data", "directory", "inode-table", "extent-tree", "group", "journal", "other",
};

const char *bp_mkind_name(enum bp_mkind k)
{
	return k < BP_MK_NR ? kind_names[k] : "?";
}

static errcode_t add(struct bp_mkmap *m, blk64_t start, blk64_t count, enum bp_mkind kind,
		     const char *owner, size_t owner_len)
{
	struct mk_run *r;

	if (!count)
		return 0;
	/* extend the last run when it continues it */
	if (m->n) {
		r = &m->v[m->n - 1];
		if (r->kind == kind && r->start + r->count == start && r->owner == owner &&
		    r->owner_len == owner_len) {
			r->count += count;
			return 0;
		}
	}
	if (m->n == m->alloc) {
		size_t na = m->alloc ? 2 * m->alloc : 256;
		struct mk_run *nv = realloc(m->v, na * sizeof(*nv));

		if (!nv)
			return ENOMEM;
		m->v = nv;
		m->alloc = na;
	}
	m->v[m->n++] = (struct mk_run){ start, count, kind, owner, owner_len };
	return 0;
}

static errcode_t add_groups(struct bp_mkmap *m, ext2_filsys fs)
{
	blk64_t super, old_desc, new_desc;
	blk_t used;
	dgrp_t g;
	errcode_t rc = 0;

	for (g = 0; g < fs->group_desc_count && !rc; g++) {
		if (ext2fs_super_and_bgd_loc2(fs, g, &super, &old_desc, &new_desc, &used))
			continue;
		if (super || g == 0)
			rc = add(m, super, 1, BP_MK_GROUP, NULL, 0);
		if (!rc && old_desc)
			rc = add(m, old_desc, fs->desc_blocks + fs->super->s_reserved_gdt_blocks,
				 BP_MK_GROUP, NULL, 0);
		if (!rc && new_desc)
			rc = add(m, new_desc, 1, BP_MK_GROUP, NULL, 0);
		if (!rc)
			rc = add(m, ext2fs_block_bitmap_loc(fs, g), 1, BP_MK_GROUP, NULL, 0);
		if (!rc)
			rc = add(m, ext2fs_inode_bitmap_loc(fs, g), 1, BP_MK_GROUP, NULL, 0);
		if (!rc)
			rc = add(m, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group,
				 BP_MK_ITABLE, NULL, 0);
	}
	return rc;
}

struct iter {
	struct bp_mkmap *m;
	int is_dir;
	const char *owner;
	size_t owner_len;
	errcode_t rc;
};

static int iter_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		      int ref_offset, void *priv)
{
	struct iter *it = priv;
	enum bp_mkind kind;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt >= 0 && !it->is_dir)
		return 0;
	kind = blockcnt < 0 ? BP_MK_EXTENT : it->is_dir ? BP_MK_DIR : BP_MK_DATA;
	if (kind == BP_MK_DATA && !it->is_dir)
		return 0;
	it->rc = add(it->m, *blocknr, 1, kind, it->owner, it->owner_len);
	return it->rc ? BLOCK_ABORT : 0;
}

static errcode_t add_inode(struct bp_mkmap *m, ext2_filsys fs, ext2_ino_t ino, int is_dir,
			   const char *owner, size_t owner_len)
{
	struct iter it = { m, is_dir, owner, owner_len, 0 };
	errcode_t rc;

	rc = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, iter_block, &it);
	/*
	 * Only running out of memory fails: inline data has no blocks, and a
	 * map libext2fs cannot walk leaves its blocks "other".
	 */
	(void)rc;
	return it.rc;
}

/* Was dir walked already? Else remember it (linear: a boot has a few hundred). */
static int walked(struct bp_mkmap *m, ext2_ino_t dir)
{
	size_t i;

	for (i = 0; i < m->nwalked; i++)
		if (m->walked[i] == dir)
			return 1;
	if (m->nwalked == m->awalked) {
		size_t na = m->awalked ? 2 * m->awalked : 64;
		ext2_ino_t *nv = realloc(m->walked, na * sizeof(*nv));

		if (!nv)
			return 1;	/* out of memory: classify less, never fail */
		m->walked = nv;
		m->awalked = na;
	}
	m->walked[m->nwalked++] = dir;
	return 0;
}

/* The directories on path (and the file's own mapping blocks). */
static errcode_t add_path(struct bp_mkmap *m, ext2_filsys fs, const struct bp_trace_file *f)
{
	const char *p = f->path, *name, *end;
	ext2_ino_t dir = EXT2_ROOT_INO, child;
	errcode_t rc = 0;

	if (!walked(m, dir))
		rc = add_inode(m, fs, dir, 1, "/", 1);
	for (name = p; !rc && *name == '/'; name = end) {
		name++;
		end = strchr(name, '/');
		if (!end)
			break;	/* the last component: the file */
		if (ext2fs_lookup(fs, dir, name, (int)(end - name), NULL, &child))
			return 0;	/* gone since: nothing more to say about it */
		dir = child;
		if (!walked(m, dir))
			rc = add_inode(m, fs, dir, 1, p, (size_t)(end - p));
	}
	if (!rc)
		rc = add_inode(m, fs, f->ino, 0, p, strlen(p));
	return rc;
}

static int journal_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			 int ref_offset, void *priv)
{
	struct iter *it = priv;

	(void)fs;
	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	it->rc = add(it->m, *blocknr, 1, BP_MK_JOURNAL, NULL, 0);
	return it->rc ? BLOCK_ABORT : 0;
}

static int cmp_run(const void *a, const void *b)
{
	const struct mk_run *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

errcode_t bp_mkmap_build(ext2_filsys fs, const struct bp_trace *t, struct bp_mkmap **ret,
			 struct bp_err *err)
{
	struct bp_mkmap *m = calloc(1, sizeof(*m));
	errcode_t rc;
	size_t i;

	*ret = NULL;
	if (!m)
		return bp_err_set(err, ENOMEM, "out of memory");
	rc = add_groups(m, fs);
	if (!rc && ext2fs_has_feature_journal(fs->super) && fs->super->s_journal_inum) {
		struct iter it = { m, 0, NULL, 0, 0 };

		ext2fs_block_iterate3(fs, fs->super->s_journal_inum, BLOCK_FLAG_READ_ONLY, NULL,
				      journal_block, &it);
		rc = it.rc;
	}
	for (i = 0; !rc && t && i < t->nfiles; i++)
		if (t->files[i].path && t->files[i].path[0] == '/')
			rc = add_path(m, fs, &t->files[i]);
	if (rc) {
		bp_mkmap_free(m);
		return bp_err_set(err, rc, "while finding the metadata of the traced files: %s",
				  strerror((int)rc));
	}
	qsort(m->v, m->n, sizeof(*m->v), cmp_run);
	*ret = m;
	return 0;
}

enum bp_mkind bp_mkmap_lookup(const struct bp_mkmap *m, blk64_t b, const char **owner,
			      size_t *owner_len)
{
	size_t lo = 0, hi = m->n;

	if (owner)
		*owner = NULL;
	if (owner_len)
		*owner_len = 0;
	/* the last run starting at or before b */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].start <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the runs of a sane filesystem do not overlap: the one before b or none */
	if (lo > 0 && b < m->v[lo - 1].start + m->v[lo - 1].count) {
		if (owner)
			*owner = m->v[lo - 1].owner;
		if (owner_len)
			*owner_len = m->v[lo - 1].owner_len;
		return m->v[lo - 1].kind;
	}
	return BP_MK_OTHER;
}

void bp_mkmap_free(struct bp_mkmap *m)
{
	if (!m)
		return;
	free(m->v);
	free(m->walked);
	free(m);
}
