// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * validate.c --- prove the plan before the first write
 *
 * Runs over the boot stream as built and placed, against the ownership map
 * of owner.c. Every source (data, indirect, extent tree and xattr blocks of
 * the items that move) must lie inside the filesystem, be marked in use,
 * be owned by an inode (not fixed metadata) and, for an xattr block, by
 * that inode alone. Every destination must lie inside the region and off
 * fixed metadata, and the region inside the filesystem, its free blocks
 * unowned by any inode (a region without eviction must be free apart from
 * the fixed metadata it steps over). All sums are checked
 * against overflow; nothing here writes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "rl-int.h"

struct vctx {
	ext2_filsys fs;
	const struct rl_owners *ow;
	const char *device;
	struct bp_err *err;
	blk64_t first, total;
};

static int in_fs(const struct vctx *v, blk64_t b, blk64_t len)
{
	return len && b >= v->first && b < v->total && len <= v->total - b;
}

static errcode_t inconsistent(const struct vctx *v, ext2_ino_t ino, const char *what,
			      blk64_t b, blk64_t len, const char *why)
{
	return bp_err_set(v->err, BP_ET_NOT_CLEAN,
			  "%s: is inconsistent: %s %llu+%llu of inode %u %s; please run "
			  "'e2fsck -f %s' first",
			  v->device, what, (unsigned long long)b, (unsigned long long)len, ino, why,
			  v->device);
}

/* A block run the plan moves away (and frees after the commit). */
static errcode_t check_src(const struct vctx *v, ext2_ino_t ino, const char *what, blk64_t b,
			   blk64_t len)
{
	blk64_t x;

	if (!in_fs(v, b, len))
		return inconsistent(v, ino, what, b, len, "lies outside the filesystem");
	if (len > UINT32_MAX)
		return inconsistent(v, ino, what, b, len, "is too long");
	if (!ext2fs_find_first_zero_block_bitmap2(v->fs->block_map, b, b + len - 1, &x))
		return inconsistent(v, ino, what, b, len, "is marked free in the block bitmap");
	if (!ext2fs_find_first_zero_block_bitmap2(v->ow->used, b, b + len - 1, &x))
		return inconsistent(v, ino, what, b, len, "is not referenced by its inode");
	if (!ext2fs_find_first_set_block_bitmap2(v->ow->meta, b, b + len - 1, &x))
		return inconsistent(v, ino, what, b, len, "overlaps filesystem metadata");
	return 0;
}

static errcode_t plan_error(const struct vctx *v, const char *fmt, ...) _printf_(2, 3);

static errcode_t plan_error(const struct vctx *v, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bp_err_set(v->err, EINVAL, "%s: internal error, the plan is unsafe: %s; nothing "
			  "was written", v->device, msg);
}

/* dst..dst+len inside [rs, rs+rlen) */
static int in_region(blk64_t dst, blk64_t len, blk64_t rs, blk64_t rlen)
{
	return dst >= rs && dst - rs <= rlen && len <= rlen - (dst - rs);
}

static errcode_t check_sources(const struct vctx *v, const struct rl_stream *s)
{
	size_t i, j;
	errcode_t rc;

	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];
		const struct rl_item *it = &s->items[g->item];

		if (it->skipped)
			continue;
		switch (g->kind) {
		case RL_SEG_DATA:
			if (g->lblk >= (1ULL << 32) || g->len > (1ULL << 32) - g->lblk)
				return inconsistent(v, it->ino, "logical blocks", g->lblk, g->len,
						    "lie beyond 2^32");
			rc = check_src(v, it->ino, "blocks", g->src, g->len);
			break;
		case RL_SEG_IND:
			rc = check_src(v, it->ino, "indirect block", g->src, g->len);
			break;
		case RL_SEG_EA:
			rc = 0;
			if (!in_fs(v, g->src, 1) || g->len != 1 ||
			    !ext2fs_test_block_bitmap2(v->fs->block_map, g->src) ||
			    ext2fs_test_block_bitmap2(v->ow->used, g->src) ||
			    !ext2fs_test_block_bitmap2(v->ow->ea, g->src))
				rc = inconsistent(v, it->ino, "xattr block", g->src, g->len,
						  "is not an xattr block in use");
			else if (ext2fs_test_block_bitmap2(v->ow->ea_shared, g->src))
				rc = inconsistent(v, it->ino, "xattr block", g->src, 1,
						  "is shared with another inode although its "
						  "reference count is 1");
			break;
		default:
			rc = 0;
			for (j = 0; j < it->ntree && !rc; j++)
				rc = check_src(v, it->ino, "extent tree block", it->tree[j], 1);
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

static errcode_t check_region(const struct vctx *v, const struct rl_stream *s,
			      const struct bp_relayout_report *rep)
{
	blk64_t rs = rep->region_start, wlen, b, fs_, fe;
	uint64_t sum = 0;
	size_t i;

	wlen = rep->needs_eviction ? rep->window_blocks : rep->region_len;
	if (!in_fs(v, rs, wlen) || wlen > INT32_MAX)
		return plan_error(v, "region %llu+%llu lies outside the filesystem",
				  (unsigned long long)rs, (unsigned long long)wlen);
	if (rep->region_len > wlen)
		return plan_error(v, "region of %llu blocks in a window of %llu",
				  (unsigned long long)rep->region_len, (unsigned long long)wlen);
	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];

		if (s->items[g->item].skipped || !g->len)
			continue;
		if (g->len > wlen || sum > wlen - g->len)
			return plan_error(v, "the stream needs more than the %llu+%llu blocks planned",
					  (unsigned long long)rs, (unsigned long long)wlen);
		sum += g->len;
		if (!in_region(g->dst, g->len, rs, rep->region_len))
			return plan_error(v, "destination %llu+%llu outside the region",
					  (unsigned long long)g->dst, (unsigned long long)g->len);
		/* The region may step over fixed metadata, never write on it. */
		if (!ext2fs_find_first_set_block_bitmap2(v->ow->meta, g->dst, g->dst + g->len - 1,
							 &b))
			return plan_error(v, "destination %llu+%llu overlaps filesystem metadata",
					  (unsigned long long)g->dst, (unsigned long long)g->len);
	}
	if (!rep->needs_eviction) {
		if (!rl_range_free(v->fs, v->ow->meta, rs, wlen))
			return plan_error(v, "region %llu+%llu is not free",
					  (unsigned long long)rs, (unsigned long long)wlen);
	}
	/* Blocks the bitmap calls free must be owned by no inode. */
	for (b = rs; b < rs + wlen; b = fe) {
		blk64_t x;

		if (ext2fs_find_first_zero_block_bitmap2(v->fs->block_map, b, rs + wlen - 1, &fs_))
			break;
		if (ext2fs_find_first_set_block_bitmap2(v->fs->block_map, fs_, rs + wlen - 1, &fe))
			fe = rs + wlen;
		if (!ext2fs_find_first_set_block_bitmap2(v->ow->used, fs_, fe - 1, &x))
			return bp_err_set(v->err, BP_ET_NOT_CLEAN,
					  "%s: is inconsistent: block %llu is marked free in the "
					  "block bitmap but in use; please run 'e2fsck -f %s' first",
					  v->device, (unsigned long long)x, v->device);
	}
	return 0;
}

errcode_t rl_validate_plan(const struct rl_stream *s, const struct rl_owners *ow,
			   const struct bp_relayout_report *rep, const char *device,
			   struct bp_err *err)
{
	struct vctx v = {
		.fs = s->fs, .ow = ow, .device = device, .err = err,
		.first = s->fs->super->s_first_data_block,
		.total = ext2fs_blocks_count(s->fs->super),
	};
	errcode_t rc;

	/* No block past what holds the filesystem either (fsfit.h, checked at open). */
	if (s->room_blocks < v.total)
		v.total = s->room_blocks;
	rc = check_sources(&v, s);
	if (rc || rep->nothing_to_do || !rep->region_len)
		return rc;
	return check_region(&v, s, rep);
}
