// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-meta.c --- directories, inode table blocks and mapping blocks of packed files
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "ext2file.h"
#include "pack-meta.h"

static uint64_t hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int set_grow(struct bp_meta_list *l)
{
	size_t cap = l->set_cap ? l->set_cap * 2 : 1024, i;
	uint64_t *n = calloc(cap, sizeof(*n));

	if (!n)
		return ENOMEM;
	for (i = 0; i < l->set_cap; i++) {
		uint64_t k = l->set[i];
		size_t j;

		if (!k)
			continue;
		for (j = hash(k) & (cap - 1); n[j]; j = (j + 1) & (cap - 1))
			;
		n[j] = k;
	}
	free(l->set);
	l->set = n;
	l->set_cap = cap;
	return 0;
}

/* 1 if blk was new (now inserted), 0 if seen, -ENOMEM. */
static int set_add(struct bp_meta_list *l, uint64_t blk)
{
	uint64_t k = blk + 1;
	size_t j;

	if ((l->set_n + 1) * 2 > l->set_cap && set_grow(l))
		return -ENOMEM;
	for (j = hash(k) & (l->set_cap - 1); l->set[j]; j = (j + 1) & (l->set_cap - 1))
		if (l->set[j] == k)
			return 0;
	l->set[j] = k;
	l->set_n++;
	return 1;
}

errcode_t bp_meta_mark(struct bp_meta_list *l, ext2_filsys fs, uint64_t offset, uint64_t length)
{
	uint64_t bs = fs->blocksize, b;

	if (!length)
		return 0;
	for (b = offset / bs; b <= (offset + length - 1) / bs; b++)
		if (set_add(l, b) < 0)
			return ENOMEM;
	return 0;
}

/* The run of the n sorted (start, length, new start) triples holding blk, or NULL. */
static const uint64_t *find_run(const uint64_t *runs, size_t n, uint64_t blk)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const uint64_t *r = &runs[3 * mid];

		if (blk < r[0])
			hi = mid;
		else if (blk - r[0] >= r[1])
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

static int meta_cmp(const void *a, const void *b)
{
	const struct bp_trace_meta *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static errcode_t push_meta(struct bp_trace_meta **v, size_t *nv, size_t *alloc, uint64_t off,
			   uint64_t len, uint64_t ns)
{
	struct bp_trace_meta *last = *nv ? &(*v)[*nv - 1] : NULL;

	if (last && last->offset + last->length == off && last->first_ns == ns) {
		last->length += len;
		return 0;
	}
	if (bp_array_reserve((void **)v, alloc, *nv, sizeof(**v), 64))
		return ENOMEM;
	(*v)[(*nv)++] = (struct bp_trace_meta){ off, len, ns };
	return 0;
}

/*
 * The trace's metadata ranges, moved along with what a relayout moved. A
 * relayout moves directories and extent or indirect blocks; where the boot
 * read them is free (or someone else's) afterwards, and reading it at boot
 * is a seek for nothing (208 blocks in 100 ranges on the traced Debian
 * boot). A block in a moved run is read at its new place; an old
 * extent-tree block (the tree is rebuilt; the files' own metadata gives the
 * new one) is left out. Everything else the boot read through the device
 * stays, free or not: inode tables, and blocks no file owns, such as the
 * partition-table probes at the end of the disk. Blocks are whole: a
 * traced range is widened to its blocks.
 */
errcode_t bp_meta_live(ext2_filsys fs, const struct bp_trace_meta *in, size_t n,
		       const uint64_t *moved, size_t nmoved,
		       struct bp_trace_meta **ret, size_t *nret, uint64_t *nmovedb, uint64_t *dropped)
{
	uint64_t bs = fs->blocksize;
	struct bp_trace_meta *v = NULL;
	size_t nv = 0, alloc = 0, i;

	*ret = NULL;
	*nret = 0;
	*dropped = 0;
	*nmovedb = 0;
	for (i = 0; i < n; i++) {
		uint64_t b;

		if (!in[i].length)
			continue;
		if (!nmoved) {
			if (push_meta(&v, &nv, &alloc, in[i].offset, in[i].length, in[i].first_ns))
				goto oom;
			continue;
		}
		for (b = in[i].offset / bs; b <= (in[i].offset + in[i].length - 1) / bs; b++) {
			const uint64_t *r = find_run(moved, nmoved, b);
			uint64_t to = b;

			if (r && r[2] == UINT64_MAX) {
				(*dropped)++;
				continue;
			}
			if (r) {
				to = r[2] + (b - r[0]);
				(*nmovedb)++;
			}
			if (push_meta(&v, &nv, &alloc, to * bs, bs, in[i].first_ns))
				goto oom;
		}
	}
	if (nmoved && nv) {	/* widened to blocks: join what now overlaps */
		size_t k = 0;

		qsort(v, nv, sizeof(*v), meta_cmp);
		for (i = 0; i < nv; i++) {
			struct bp_trace_meta *last = k ? &v[k - 1] : NULL;

			if (last && v[i].offset <= last->offset + last->length) {
				uint64_t end = v[i].offset + v[i].length;

				if (end > last->offset + last->length)
					last->length = end - last->offset;
				if (v[i].first_ns < last->first_ns)
					last->first_ns = v[i].first_ns;
				continue;
			}
			v[k++] = v[i];
		}
		nv = k;
	}
	*ret = v;
	*nret = nv;
	return 0;
oom:
	free(v);
	return ENOMEM;
}

static errcode_t add_block(struct bp_meta_list *l, ext2_filsys fs, uint64_t blk, uint64_t ns)
{
	int r;

	if (!blk || blk >= ext2fs_blocks_count(fs->super))
		return 0;
	r = set_add(l, blk);
	if (r <= 0)
		return r < 0 ? ENOMEM : 0;
	if (bp_array_reserve((void **)&l->v, &l->alloc, l->n, sizeof(*l->v), 256))
		return ENOMEM;
	l->v[l->n++] = (struct bp_trace_meta){ blk * fs->blocksize, fs->blocksize, ns };
	return 0;
}

struct iter {
	struct bp_meta_list *l;
	ext2_filsys fs;
	uint64_t ns;
	int all;		/* data blocks too (directories) */
	errcode_t rc;
};

static int iter_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		   blk64_t ref_blk _unused_, int ref_offset _unused_, void *priv)
{
	struct iter *it = priv;

	if (!it->all && blockcnt >= 0)
		return 0;
	it->rc = add_block(it->l, fs, *blocknr, it->ns);
	return it->rc ? BLOCK_ABORT : 0;
}

/* The inode table block of ino, then its mapping (and, for a directory, data) blocks. */
static errcode_t add_inode(struct bp_meta_list *l, ext2_filsys fs, ext2_ino_t ino, int dir,
			   uint64_t ns)
{
	struct iter it = { .l = l, .fs = fs, .ns = ns, .all = dir };
	dgrp_t g = ext2fs_group_of_ino(fs, ino);
	uint64_t idx = (ino - 1) % fs->super->s_inodes_per_group;
	blk64_t itab = ext2fs_inode_table_loc(fs, g);
	errcode_t rc;

	if (itab) {
		rc = add_block(l, fs, itab + idx * EXT2_INODE_SIZE(fs->super) / fs->blocksize, ns);
		if (rc)
			return rc;
	}
	rc = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, iter_cb, &it);
	if (it.rc)
		return it.rc;
	/* inline data, fast symlinks: nothing to iterate, not an error here */
	if (rc == EXT2_ET_INLINE_DATA_CANT_ITERATE)
		return 0;
	return rc;
}

static int dir_seen(struct bp_meta_list *l, ext2_ino_t ino)
{
	size_t i;

	for (i = 0; i < l->ndirs; i++)
		if (l->dirs[i] == ino)
			return 1;
	return 0;
}

static errcode_t add_dir(struct bp_meta_list *l, ext2_filsys fs, ext2_ino_t ino, uint64_t ns)
{
	if (dir_seen(l, ino))
		return 0;
	if (bp_array_reserve((void **)&l->dirs, &l->adirs, l->ndirs, sizeof(*l->dirs), 64))
		return ENOMEM;
	l->dirs[l->ndirs++] = ino;
	return add_inode(l, fs, ino, 1, ns);
}

errcode_t bp_meta_add_dir(struct bp_meta_list *l, ext2_filsys fs, ext2_ino_t ino, uint32_t gen,
			  uint64_t first_ns)
{
	struct ext2_inode_large in;

	if (!ino || ino > fs->super->s_inodes_count || bp_ext2_read_inode(fs, ino, &in))
		return 0;
	if (!in.i_links_count || in.i_dtime || !LINUX_S_ISDIR(in.i_mode) ||
	    in.i_generation != gen)
		return 0;	/* gone since the trace: nothing of it to read */
	return add_dir(l, fs, ino, first_ns);
}

errcode_t bp_meta_add_file(struct bp_meta_list *l, ext2_filsys fs, const char *path,
			   ext2_ino_t ino, uint64_t first_ns)
{
	char buf[BP_TRACE_PATH_MAX + 1];
	size_t n = strlen(path), i;
	errcode_t rc;

	if (n > BP_TRACE_PATH_MAX)
		return ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	rc = add_dir(l, fs, EXT2_ROOT_INO, first_ns);
	if (rc)
		return rc;
	/* every directory below the root on the path: "/a", "/a/b", ... */
	for (i = 1; i < n; i++) {
		ext2_ino_t d;

		if (buf[i] != '/')
			continue;
		buf[i] = '\0';
		rc = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, buf, &d);
		buf[i] = '/';
		if (rc)
			return rc;
		rc = add_dir(l, fs, d, first_ns);
		if (rc)
			return rc;
	}
	return add_inode(l, fs, ino, 0, first_ns);
}

void bp_meta_list_free(struct bp_meta_list *l)
{
	free(l->v);
	free(l->set);
	free(l->dirs);
	memset(l, 0, sizeof(*l));
}
