// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * owner.c --- who owns each block: one walk of every inode, checked against the bitmap
 *
 * Relayout may only copy over blocks nobody owns and only move blocks one
 * file owns. The block bitmap alone does not prove either: a bit can be
 * wrong while the filesystem is marked clean. So before the first write the
 * whole filesystem is walked once, as e2fsck pass 1 does: fixed metadata
 * (superblocks and their backups, group descriptors, reserved GDT blocks,
 * bitmaps, inode tables, the MMP block), then every in-use inode's extent
 * tree or block map and its xattr block. Every reference must lie inside the
 * filesystem, be claimed once (xattr blocks may be shared, but not with
 * data or metadata), be marked in use in the bitmap, and every extent tree
 * must be in logical order. The first contradiction is refused with the
 * block, the inode(s) and 'e2fsck -f' as the fix. Nothing here writes.
 *
 * The walk also keeps what eviction asks (evict.c): the blocks no relayout
 * moves (imm: metadata, xattr blocks, special inodes' blocks) and, for every
 * other inode, its runs of blocks sorted by block number (rl_owners_in()
 * names the owners of a window without another inode scan).
 *
 * Cost: one inode scan (unused inode-table blocks are skipped through
 * itable_unused where the filesystem keeps it) plus the tree blocks and
 * indirect blocks of every file; the maps are extent-coded (rbtree), so
 * memory follows the number of runs, not the size of the filesystem.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "rl-int.h"

#define RL_MAX_EXTENT_DEPTH 5	/* the kernel's EXT4_MAX_EXTENT_DEPTH */
#define RL_MAX_LBLK (1ULL << 32)	/* logical blocks are 32-bit */

struct owalk {
	ext2_filsys fs;
	struct rl_owners *ow;
	blk64_t first, total;
	ext2_ino_t ino;			/* inode being walked */
	blk64_t next_lblk;		/* extent collision check */
	int mark;			/* 1: build the maps; 0: look for target */
	blk64_t target;			/* second pass: who else claims it? */
	ext2_ino_t found;
	int bad;			/* a contradiction was found */
	int nomem;			/* the owner index could not grow */
	int dup;			/* ... a second owner: name it */
	blk64_t bad_blk;
	char why[320];
};

static void bad(struct owalk *w, blk64_t blk, const char *fmt, ...) _printf_(3, 4);

static void bad(struct owalk *w, blk64_t blk, const char *fmt, ...)
{
	va_list ap;

	if (w->bad)
		return;
	w->bad = 1;
	w->bad_blk = blk;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
}

static int in_fs(const struct owalk *w, blk64_t blk, blk64_t len)
{
	return len && blk >= w->first && blk < w->total && len <= w->total - blk;
}

/* Inodes whose blocks never move: the special ones, and those the superblock names. */
static int pinned(ext2_filsys fs, ext2_ino_t ino)
{
	const struct ext2_super_block *sb = fs->super;

	if (ino < EXT2_FIRST_INODE(sb) && ino != EXT2_ROOT_INO)
		return 1;
	return ino == sb->s_journal_inum || ino == sb->s_usr_quota_inum ||
	       ino == sb->s_grp_quota_inum || ino == sb->s_prj_quota_inum ||
	       ino == sb->s_orphan_file_inum;
}

/* The blocks just claimed: immovable, or in the owner index. 0, or 1 (out of memory). */
static int record(struct owalk *w, blk64_t blk, blk64_t len)
{
	struct rl_owners *ow = w->ow;
	struct rl_orun *last = ow->nruns ? &ow->runs[ow->nruns - 1] : NULL;

	if (pinned(w->fs, w->ino)) {
		ext2fs_mark_block_bitmap_range2(ow->imm, blk, (unsigned int)len);
		return 0;
	}
	if (last && last->ino == w->ino && last->blk + last->len == blk) {
		last->len += len;
		return 0;
	}
	if (bp_array_reserve((void **)&ow->runs, &ow->aruns, ow->nruns, sizeof(*ow->runs), 1024)) {
		w->nomem = 1;
		return 1;
	}
	ow->runs[ow->nruns++] = (struct rl_orun){ .blk = blk, .len = len, .ino = w->ino };
	return 0;
}

/* Record blocks [blk, blk+len) as owned by w->ino. 0 = go on, 1 = stop. */
static int claim(struct owalk *w, blk64_t blk, blk64_t len, const char *what)
{
	blk64_t x;

	if (!in_fs(w, blk, len)) {
		bad(w, blk,
		    "inode %u has %s at block %llu+%llu, outside the filesystem (blocks %llu-%llu)",
		    w->ino, what, (unsigned long long)blk, (unsigned long long)len,
		    (unsigned long long)w->first, (unsigned long long)(w->total - 1));
		return 1;
	}
	if (!w->mark) {
		if (w->target >= blk && w->target - blk < len) {
			w->found = w->ino;
			return 1;
		}
		return 0;
	}
	if (!ext2fs_test_block_bitmap_range2(w->ow->used, blk, (unsigned int)len)) {
		if (ext2fs_find_first_set_block_bitmap2(w->ow->used, blk, blk + len - 1, &x))
			x = blk;
		bad(w, x, "block %llu is claimed twice: %s of inode %u and", (unsigned long long)x,
		    what, w->ino);
		w->dup = 1;
		return 1;
	}
	if (!ext2fs_find_first_zero_block_bitmap2(w->fs->block_map, blk, blk + len - 1, &x)) {
		bad(w, x, "block %llu (%s of inode %u) is marked free in the block bitmap",
		    (unsigned long long)x, what, w->ino);
		return 1;
	}
	ext2fs_mark_block_bitmap_range2(w->ow->used, blk, (unsigned int)len);
	w->ow->blocks += len;
	return record(w, blk, len);
}

/* One extent node and its children, with e2fsck pass 1's order checks. */
static errcode_t scan_node(struct owalk *w, ext2_extent_handle_t h, blk64_t start, blk64_t end,
			   blk64_t eof, int uninit_ok)
{
	struct ext2_extent_info info;
	struct ext2fs_extent e;
	errcode_t rc;
	int n;

	rc = ext2fs_extent_get_info(h, &info);
	if (rc)
		return rc;
	n = info.num_entries;
	rc = ext2fs_extent_get(h, EXT2_EXTENT_FIRST_SIB, &e);
	while (!rc && n-- > 0) {
		int leaf = !!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF);
		blk64_t last = e.e_lblk + e.e_len - 1;

		if (!e.e_pblk) {
			bad(w, 0, "inode %u has an extent at block 0, which is never file data",
			    w->ino);
			return 0;
		}
		if (!in_fs(w, e.e_pblk, leaf ? e.e_len : 1)) {
			bad(w, e.e_pblk,
			    "inode %u has an extent at block %llu+%u, outside the filesystem "
			    "(blocks %llu-%llu)",
			    w->ino, (unsigned long long)e.e_pblk, leaf ? e.e_len : 1,
			    (unsigned long long)w->first, (unsigned long long)(w->total - 1));
			return 0;
		}
		/* e2fsck's PR_1_OUT_OF_ORDER_EXTENTS, _END_OUT_OF_BOUNDS, _LENGTH_ZERO. */
		if (e.e_lblk < start || (leaf && !e.e_len) ||
		    (end && last > end &&
		     !(last > eof && (uninit_ok || (e.e_flags & EXT2_EXTENT_FLAGS_UNINIT)))) ||
		    (leaf && (uint64_t)e.e_lblk + e.e_len > RL_MAX_LBLK)) {
			bad(w, e.e_pblk,
			    "inode %u has an extent tree out of order or out of bounds at logical "
			    "block %llu",
			    w->ino, (unsigned long long)e.e_lblk);
			return 0;
		}
		if (leaf) {
			if (e.e_lblk < w->next_lblk) {
				bad(w, e.e_pblk,
				    "inode %u maps logical block %llu twice (overlapping extents)",
				    w->ino, (unsigned long long)e.e_lblk);
				return 0;
			}
			w->next_lblk = e.e_lblk + e.e_len;
			if (claim(w, e.e_pblk, e.e_len, "an extent"))
				return 0;
		} else {
			blk64_t lblk = e.e_lblk, blk = e.e_pblk;

			if (claim(w, blk, 1, "an extent tree block"))
				return 0;
			rc = ext2fs_extent_get(h, EXT2_EXTENT_DOWN, &e);
			if (rc)
				return rc;
			if (e.e_lblk != lblk) {
				bad(w, blk,
				    "inode %u: extent tree block %llu starts at logical block %llu, "
				    "its index says %llu",
				    w->ino, (unsigned long long)blk, (unsigned long long)e.e_lblk,
				    (unsigned long long)lblk);
				return 0;
			}
			rc = scan_node(w, h, lblk, last, eof, uninit_ok);
			if (rc || w->bad || w->found)
				return rc;
			rc = ext2fs_extent_get(h, EXT2_EXTENT_UP, &e);
			if (rc)
				return rc;
		}
		if (n <= 0)
			break;
		rc = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_SIB, &e);
	}
	if (rc == EXT2_ET_EXTENT_NO_NEXT || rc == EXT2_ET_NO_CURRENT_NODE)
		rc = 0;
	return rc;
}

static errcode_t walk_extents(struct owalk *w, struct ext2_inode_large *inode)
{
	struct ext2_inode_large copy = *inode;
	struct ext2_extent_info info;
	ext2_extent_handle_t h;
	blk64_t eof;
	errcode_t rc;

	if (!ext2fs_has_feature_extents(w->fs->super)) {
		bad(w, 0, "inode %u uses extents, the filesystem does not have the extent feature",
		    w->ino);
		return 0;
	}
	rc = ext2fs_extent_open2(w->fs, w->ino, (struct ext2_inode *)&copy, &h);
	if (rc)
		return rc;
	rc = ext2fs_extent_get_info(h, &info);
	if (!rc && info.max_depth > RL_MAX_EXTENT_DEPTH) {
		bad(w, 0, "inode %u has an extent tree of depth %d", w->ino, info.max_depth);
	} else if (!rc) {
		uint64_t size = EXT2_I_SIZE(inode);

		/* Last block before EOF as e2fsck computes it (all ones for size 0). */
		eof = size / w->fs->blocksize + !!(size % w->fs->blocksize) - 1;
		w->next_lblk = 0;
		rc = scan_node(w, h, 0, 0, eof, !!(inode->i_flags & EXT4_VERITY_FL));
	}
	ext2fs_extent_free(h);
	return rc;
}

static int map_cb(ext2_filsys fs _unused_, blk64_t *blocknr, e2_blkcnt_t blockcnt,
		  blk64_t ref_blk _unused_, int ref_offset _unused_, void *priv)
{
	struct owalk *w = priv;

	if (claim(w, *blocknr, 1, blockcnt < 0 ? "an indirect block" : "a data block"))
		return BLOCK_ABORT;
	return 0;
}

/* Every block an in-use inode references. rc: the map could not be read. */
static errcode_t walk_inode(struct owalk *w, ext2_ino_t ino, struct ext2_inode_large *inode)
{
	struct ext2_inode *ii = (struct ext2_inode *)inode;
	errcode_t rc = 0;

	w->ino = ino;
	if (ino == EXT2_RESIZE_INO) {
		/* Its other blocks are the reserved GDT blocks: metadata already. */
		if (ii->i_block[EXT2_DIND_BLOCK])
			claim(w, ii->i_block[EXT2_DIND_BLOCK], 1, "the resize inode's DIND block");
		return 0;
	}
	if (ext2fs_inode_has_valid_blocks2(w->fs, ii) && !(ii->i_flags & EXT4_INLINE_DATA_FL)) {
		if (ii->i_flags & EXT4_EXTENTS_FL)
			rc = walk_extents(w, inode);
		else
			rc = ext2fs_block_iterate3(w->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, map_cb, w);
		if (rc || w->bad || w->found)
			return rc;
	}
	return 0;
}

/* The xattr block: may be shared by inodes, never with data or metadata. */
static void walk_ea(struct owalk *w, ext2_ino_t ino, struct ext2_inode_large *inode)
{
	blk64_t b = ext2fs_file_acl_block(w->fs, (struct ext2_inode *)inode);

	w->ino = ino;
	if (!b)
		return;
	if (!in_fs(w, b, 1)) {
		bad(w, b, "inode %u has its xattr block at %llu, outside the filesystem", ino,
		    (unsigned long long)b);
		return;
	}
	if (!w->mark) {
		if (b == w->target)
			w->found = ino;
		return;
	}
	if (ext2fs_test_block_bitmap2(w->ow->ea, b))
		ext2fs_mark_block_bitmap2(w->ow->ea_shared, b);
	ext2fs_mark_block_bitmap2(w->ow->ea, b);
	ext2fs_mark_block_bitmap2(w->ow->imm, b);	/* may be shared: never moved */
	if (!ext2fs_test_block_bitmap2(w->fs->block_map, b))
		bad(w, b, "block %llu (xattr block of inode %u) is marked free in the block bitmap",
		    (unsigned long long)b, ino);
}

/* In use as e2fsck pass 1 sees it: special inodes always, others by link count. */
static int in_use(ext2_filsys fs, ext2_ino_t ino, const struct ext2_inode_large *inode)
{
	if (ino < EXT2_FIRST_INODE(fs->super) && ino != EXT2_ROOT_INO)
		return 1;
	return inode->i_links_count != 0;
}

static errcode_t walk_all(struct owalk *w)
{
	ext2_inode_scan scan;
	struct ext2_inode_large inode;
	ext2_ino_t ino;
	errcode_t rc;

	rc = ext2fs_open_inode_scan(w->fs, 0, &scan);
	if (rc)
		return rc;
	for (;;) {
		rc = ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&inode,
						sizeof(inode));
		if (rc == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		if (rc == EXT2_ET_INODE_CSUM_INVALID || rc == EXT2_ET_INODE_IS_GARBAGE) {
			if (in_use(w->fs, ino, &inode)) {
				bad(w, 0, "inode %u fails its checksum", ino);
				rc = 0;
				break;
			}
			continue;
		}
		if (rc || !ino)
			break;
		if (rl_canceled()) {
			rc = BP_ET_CANCELED;
			break;
		}
		if (!in_use(w->fs, ino, &inode))
			continue;
		if (w->mark)
			w->ow->inodes++;
		rc = walk_inode(w, ino, &inode);
		if (rc) {
			bad(w, 0, "inode %u: its block map cannot be read (%s)", ino,
			    error_message(rc));
			rc = 0;
		}
		if (!w->bad && !w->found)
			walk_ea(w, ino, &inode);
		if (w->bad || w->found || w->nomem)
			break;
	}
	ext2fs_close_inode_scan(scan);
	return !rc && w->nomem ? ENOMEM : rc;
}

static void mark_meta(ext2fs_block_bitmap m, blk64_t b, blk64_t n)
{
	if (n)
		ext2fs_mark_block_bitmap_range2(m, b, (unsigned int)n);
}

/* Fixed metadata, and it must be marked in use. */
static void build_meta(struct owalk *w)
{
	ext2_filsys fs = w->fs;
	ext2fs_block_bitmap m = w->ow->meta;
	blk64_t b = w->first, s, e, x;

	rl_fixed_mark(fs, m);
	if (ext2fs_has_feature_mmp(fs->super) && in_fs(w, fs->super->s_mmp_block, 1))
		mark_meta(m, fs->super->s_mmp_block, 1);
	/* reserve_super_and_bgd marks block 0 of 1 KiB filesystems too: not ours. */
	while (b < w->total) {
		if (ext2fs_find_first_set_block_bitmap2(m, b, w->total - 1, &s))
			break;
		if (ext2fs_find_first_zero_block_bitmap2(m, s, w->total - 1, &e))
			e = w->total;
		if (!ext2fs_find_first_zero_block_bitmap2(fs->block_map, s, e - 1, &x)) {
			bad(w, x, "block %llu is filesystem metadata but marked free in the block "
				  "bitmap", (unsigned long long)x);
			return;
		}
		b = e;
	}
}

/* Name the other owner of w->bad_blk for the message (a second walk). */
static void other_owner(struct owalk *w, char *buf, size_t len)
{
	struct owalk f = { .fs = w->fs, .ow = w->ow, .first = w->first, .total = w->total };

	if (ext2fs_test_block_bitmap2(w->ow->meta, w->bad_blk)) {
		snprintf(buf, len, "filesystem metadata (superblock, group descriptors, bitmaps "
				   "or inode table)");
		return;
	}
	f.target = w->bad_blk;
	if (!walk_all(&f) && f.found && !f.bad) {
		snprintf(buf, len, "inode %u", f.found);
		return;
	}
	snprintf(buf, len, "another inode");
}

void rl_owners_free(struct rl_owners *ow)
{
	if (ow->meta)
		ext2fs_free_block_bitmap(ow->meta);
	if (ow->used)
		ext2fs_free_block_bitmap(ow->used);
	if (ow->ea)
		ext2fs_free_block_bitmap(ow->ea);
	if (ow->ea_shared)
		ext2fs_free_block_bitmap(ow->ea_shared);
	if (ow->imm)
		ext2fs_free_block_bitmap(ow->imm);
	free(ow->runs);
	memset(ow, 0, sizeof(*ow));
}

static errcode_t alloc_map(ext2_filsys fs, const char *name, ext2fs_block_bitmap *ret)
{
	int type = fs->default_bitmap_type;
	errcode_t rc;

	fs->default_bitmap_type = EXT2FS_BMAP64_RBTREE;
	rc = ext2fs_allocate_block_bitmap(fs, name, ret);
	fs->default_bitmap_type = type;
	return rc;
}

static int cmp_orun(const void *a, const void *b)
{
	const struct rl_orun *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static errcode_t refuse(struct owalk *w, const char *device, struct bp_err *err)
{
	return bp_err_set(err, BP_ET_NOT_CLEAN,
			  "%s: is inconsistent: %s; please run 'e2fsck -f %s' first", device,
			  w->why, device);
}

errcode_t rl_owners_build(ext2_filsys fs, const char *device, struct rl_owners *ow,
			  struct bp_err *err)
{
	struct owalk w = { .fs = fs, .ow = ow, .mark = 1 };
	dgrp_t g;
	errcode_t rc;

	memset(ow, 0, sizeof(*ow));
	w.first = fs->super->s_first_data_block;
	w.total = ext2fs_blocks_count(fs->super);
	if (w.first >= w.total)
		return bp_err_set(err, BP_ET_NOT_CLEAN,
				  "%s: is inconsistent: first data block %llu, %llu blocks; please "
				  "run 'e2fsck -f %s' first",
				  device, (unsigned long long)w.first, (unsigned long long)w.total,
				  device);
	for (g = 0; g < fs->group_desc_count; g++)
		if (!ext2fs_group_desc_csum_verify(fs, g))
			return bp_err_set(err, BP_ET_NOT_CLEAN,
					  "%s: is inconsistent: the descriptor of group %u fails "
					  "its checksum; please run 'e2fsck -f %s' first",
					  device, g, device);
	rc = ext2fs_check_desc(fs);
	if (rc)
		return bp_err_set(err, BP_ET_NOT_CLEAN,
				  "%s: is inconsistent: %s; please run 'e2fsck -f %s' first", device,
				  error_message(rc), device);
	rc = alloc_map(fs, "bootpack metadata", &ow->meta);
	if (!rc)
		rc = alloc_map(fs, "bootpack xattr blocks", &ow->ea);
	if (!rc)
		rc = alloc_map(fs, "bootpack shared xattr blocks", &ow->ea_shared);
	if (rc) {
		rl_owners_free(ow);
		return bp_err_lib(err, rc, "%s: while allocating the ownership maps", device);
	}
	build_meta(&w);
	if (!w.bad)
		rc = ext2fs_copy_bitmap(ow->meta, &ow->used);	/* metadata is owned */
	if (!rc && !w.bad)
		rc = ext2fs_copy_bitmap(ow->meta, &ow->imm);	/* and never moves */
	if (!rc && !w.bad)
		rc = walk_all(&w);
	if (rc) {
		rl_owners_free(ow);
		return bp_err_lib(err, rc, "%s: while scanning the inodes", device);
	}
	/* xattr blocks must not double as data, tree blocks or metadata. */
	if (!w.bad) {
		blk64_t b = w.first, x;

		while (b < w.total &&
		       !ext2fs_find_first_set_block_bitmap2(ow->ea, b, w.total - 1, &x)) {
			if (ext2fs_test_block_bitmap2(ow->used, x)) {
				bad(&w, x, "block %llu is claimed twice: an xattr block and",
				    (unsigned long long)x);
				w.dup = 1;
				break;
			}
			b = x + 1;
		}
	}
	if (w.bad) {
		size_t n = strlen(w.why);

		if (w.dup) {
			char other[128];

			other_owner(&w, other, sizeof(other));
			snprintf(w.why + n, sizeof(w.why) - n, " %s", other);
		}
		rl_owners_free(ow);
		return refuse(&w, device, err);
	}
	/* Each block is claimed once: the runs do not overlap, so they sort by start. */
	if (ow->nruns)
		qsort(ow->runs, ow->nruns, sizeof(*ow->runs), cmp_orun);
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	ext2_ino_t x = *(const ext2_ino_t *)a, y = *(const ext2_ino_t *)b;

	return x < y ? -1 : x > y;
}

errcode_t rl_owners_in(const struct rl_owners *ow, blk64_t start, blk64_t end, ext2_ino_t **ret,
		       size_t *n)
{
	size_t lo = 0, hi = ow->nruns, cap = 0, i, k;
	ext2_ino_t *v = NULL;

	*ret = NULL;
	*n = 0;
	while (lo < hi) {	/* the first run that ends after start */
		size_t mid = lo + (hi - lo) / 2;

		if (ow->runs[mid].blk + ow->runs[mid].len <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo, k = 0; i < ow->nruns && ow->runs[i].blk < end; i++) {
		if (bp_array_reserve((void **)&v, &cap, k, sizeof(*v), 64)) {
			free(v);
			return ENOMEM;
		}
		v[k++] = ow->runs[i].ino;
	}
	if (k)	/* qsort(NULL, 0, ...) is undefined behaviour (UBSan) */
		qsort(v, k, sizeof(*v), cmp_ino);
	for (i = 0, *n = 0; i < k; i++)
		if (!*n || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	*ret = v;
	return 0;
}
