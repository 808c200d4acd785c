/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rl-int.h --- internal structures of the relayout engine (boot stream, plan)
 *
 * The boot stream is an ordered list of segments: the blocks a boot reads,
 * in the order it reads them. A segment belongs to one item (a directory on
 * a boot file's path, or a boot file) and is one of: data (logical blocks
 * lblk..lblk+len-1, physically contiguous at src), an indirect block of a
 * block-mapped item (src, len 1), or the tree slot of an extent item (its new
 * leaves; physically the item's current index/leaf blocks before the move).
 */
#ifndef BP_RL_INT_H
#define BP_RL_INT_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "relayout.h"

enum rl_seg_kind {
	RL_SEG_DATA = 0,
	RL_SEG_IND,
	RL_SEG_TREE,
	RL_SEG_EA,		/* the item's xattr block (refcount 1), rewritten, not copied */
};

struct rl_seg {
	uint32_t item;
	uint8_t kind;
	blk64_t lblk;		/* DATA: first logical block */
	blk64_t src;		/* DATA/IND: current physical start */
	blk64_t len;		/* blocks (TREE: planned new leaves) */
	blk64_t dst;		/* planned physical start */
};

/* A traced range of logical blocks [a, b) of an item, first read at rank. */
struct rl_trange {
	blk64_t a, b;
	uint64_t rank;		/* position of its trace range in first-access order */
};

/*
 * Smallest piece of a file the layout places on its own, in bytes: traced
 * ranges of a file smaller than this are merged with a neighbour of the
 * same file (bootset.c, man/bootpack-relayout.8).
 */
#define RL_MIN_PIECE_BYTES (64u << 10)

/* A run of a file's logical→physical mapping (an extent leaf entry). */
struct rl_run {
	blk64_t lblk, pblk;
	uint32_t len;
	uint8_t uninit;
};

struct rl_item {
	ext2_ino_t ino;
	uint8_t is_dir, extents, whole, skipped;
	enum bp_rl_skip skip;
	uint64_t size;
	struct rl_run *map;	/* current leaf mapping, lblk order */
	size_t nmap;
	blk64_t *tree;		/* current extent index/leaf blocks, walk order */
	size_t ntree;
	struct rl_run *nmap_new;	/* planned mapping (extent items) */
	size_t nnew;
	uint32_t new_leaves;	/* planned leaf count (0 = depth 0) */
	size_t tree_seg;	/* index of the TREE segment, or SIZE_MAX */
	blk64_t ea_blk;		/* xattr block owned by this inode alone, or 0 */
	size_t ea_seg;		/* index of the EA segment, or SIZE_MAX */
	size_t *segs;		/* indices of its DATA/IND segments, stream order */
	size_t nsegs, asegs;
	blk64_t *cov;		/* covered logical intervals [cov[2i], cov[2i+1]) */
	size_t ncov, acov;
	struct rl_trange *tr;	/* traced block ranges, disjoint (bootset.c) */
	size_t ntr, atr;
	blk64_t *icov;		/* block-mapped: data covered by map[i] if an indirect
				   block, [icov[2i], icov[2i+1]); emptied once placed */
};

struct rl_stream {
	ext2_filsys fs;
	struct rl_item *items;
	size_t nitems, aitems;
	struct rl_seg *segs;
	size_t nsegs, asegs;
	uint64_t files_traced, files, dirs;
	uint64_t skipped[BP_RL_SKIP_NR];
	int move_ea;		/* boot stream: an item's xattr block comes first */
	struct rl_owners *ow;	/* the ownership map (owner.c), for eviction; freed with s */
	uint64_t room_blocks;	/* blocks what holds the fs has (fsfit.h); UINT64_MAX: unknown */
};

/*
 * relayout.c: a signal arrived (bp_relayout_opts.cancel). Planning loops
 * stop with BP_ET_CANCELED; writing stops at the next safe point (apply.c).
 */
int rl_canceled(void);

/* preflight.c */
errcode_t rl_check_mount(const char *device, struct bp_err *err);
errcode_t rl_check_fs(ext2_filsys fs, const char *device, int force, struct bp_err *err);
errcode_t rl_check_trace(ext2_filsys fs, const struct bp_trace *t, const char *device,
			 struct bp_err *err);
errcode_t rl_open(const char *device, uint64_t offset, io_manager io, int rw,
		  ext2_filsys *ret, struct bp_err *err);

/* owner.c: one walk of every in-use inode, refusing any contradiction */
struct rl_orun {
	blk64_t blk, len;		/* blocks [blk, blk+len) ... */
	ext2_ino_t ino;			/* ... belong to this inode (data, tree or indirect) */
};
struct rl_owners {
	ext2fs_block_bitmap meta;	/* fixed metadata (superblocks, GDT, bitmaps, itables) */
	ext2fs_block_bitmap used;	/* meta + every block an in-use inode references */
	ext2fs_block_bitmap ea;		/* xattr blocks (may be shared) */
	ext2fs_block_bitmap ea_shared;	/* xattr blocks referenced by more than one inode */
	ext2fs_block_bitmap imm;	/* no relayout moves them: meta, xattr blocks, and the
					   blocks of special inodes (journal, resize, quota...) */
	struct rl_orun *runs;		/* the other inodes' blocks, by block number */
	size_t nruns, aruns;
	uint64_t inodes, blocks;	/* in-use inodes walked, blocks they claim */
};
errcode_t rl_owners_build(ext2_filsys fs, const char *device, struct rl_owners *ow,
			  struct bp_err *err);
void rl_owners_free(struct rl_owners *ow);
/* The movable inodes owning blocks in [start, end), ascending, each once (*ret malloc'd). */
errcode_t rl_owners_in(const struct rl_owners *ow, blk64_t start, blk64_t end, ext2_ino_t **ret,
		       size_t *n);

/* validate.c: the built and planned stream against the ownership map */
errcode_t rl_validate_plan(const struct rl_stream *s, const struct rl_owners *ow,
			   const struct bp_relayout_report *rep, const char *device,
			   struct bp_err *err);

/* bootset.c */
errcode_t rl_stream_build(ext2_filsys fs, const struct bp_trace *t, int whole_files,
			  struct rl_stream *s, struct bp_err *err);
/* How to build the stream: rl_stream_build's defaults, or these. */
struct rl_build {
	int whole_files;
	uint64_t min_piece;		/* bytes; 0 = RL_MIN_PIECE_BYTES */
	const char *const *first;	/* bp_relayout_opts.first */
	size_t nfirst;
};
errcode_t rl_stream_build_opts(ext2_filsys fs, const struct bp_trace *t, const struct rl_build *b,
			       struct rl_stream *s, struct bp_err *err);
void rl_stream_free(struct rl_stream *s);
/* Physical runs of the stream as it is now (before) or as planned (after). */
typedef void (*rl_run_fn)(void *ctx, blk64_t start, blk64_t len);
void rl_stream_walk(const struct rl_stream *s, int planned, rl_run_fn fn, void *ctx);
/* Discontiguities (runs - 1) and total blocks of a walk. */
uint64_t rl_stream_discontig(const struct rl_stream *s, int planned, uint64_t *blocks);
errcode_t rl_item_add_seg(struct rl_stream *s, uint32_t item, size_t seg);
/*
 * Append a run to a map (*v, *n, capacity *alloc), joined to the last one
 * when both are contiguous, of one kind (flag: 0 written, 1 unwritten) and
 * fit one extent; RL_IND_MARK runs (indirect blocks) are never joined.
 */
errcode_t rl_run_push(struct rl_run **v, size_t *n, size_t *alloc, blk64_t lblk, blk64_t pblk,
		      blk64_t len, int flag);
/* The item's xattr block and new extent-tree slot, once, before its first block. */
errcode_t rl_push_slots(struct rl_stream *s, uint32_t item);
/* The item of inode ino, or -1. */
int rl_item_find(const struct rl_stream *s, ext2_ino_t ino);
/* A new item for ino, its block map loaded (skipped if it cannot move). */
errcode_t rl_item_new(struct rl_stream *s, ext2_ino_t ino, int is_dir, uint32_t *ret);
/* Append a segment (extent items get their tree slot first). has_dst: dst is set. */
errcode_t rl_push_seg(struct rl_stream *s, uint32_t item, int kind, blk64_t lblk, blk64_t src,
		      blk64_t len, blk64_t dst, int has_dst);
/* Load any inode with blocks (file, directory, symlink) as an item. */
errcode_t rl_item_load_any(struct rl_stream *s, ext2_ino_t ino, uint32_t *ret);
#define RL_IND_MARK 2		/* rl_run.uninit value marking an indirect block */

/* plan.c */
/* fixed_start: lay out at this block, no region search (after an eviction). */
errcode_t rl_plan(struct rl_stream *s, const struct bp_relayout_opts *o, blk64_t fixed_start,
		  struct bp_relayout_report *rep, struct bp_err *err);

/* extent-build.c */
errcode_t rl_extent_new_map(ext2_filsys fs, struct rl_stream *s, struct rl_item *it);
uint32_t rl_extent_leaves_needed(ext2_filsys fs, size_t nextents);
/* Blocks of the smallest new tree (index + leaves), or RL_TREE_TOO_DEEP (depth > 2). */
uint32_t rl_extent_tree_blocks(ext2_filsys fs, size_t nextents);
#define RL_TREE_TOO_DEEP UINT32_MAX
errcode_t rl_extent_write_leaves(ext2_filsys fs, const struct rl_stream *s,
				 const struct rl_item *it, uint64_t *writes);
errcode_t rl_extent_commit(ext2_filsys fs, const struct rl_stream *s, const struct rl_item *it,
			   uint64_t *writes);

/* ea.c */
errcode_t rl_ea_owned(ext2_filsys fs, ext2_ino_t ino, blk64_t blk, int *owned);
errcode_t rl_ea_copy(ext2_filsys fs, const struct rl_stream *s, const struct rl_item *it,
		     uint64_t *writes);
/* The xattr block the item's inode should point to after the commit, or 0 = unchanged. */
blk64_t rl_ea_new(const struct rl_stream *s, const struct rl_item *it);
errcode_t rl_ea_commit_separate(ext2_filsys fs, const struct rl_stream *s,
				const struct rl_item *it, uint64_t *writes);

/* indirect.c */
errcode_t rl_indirect_commit(ext2_filsys fs, const struct rl_stream *s, const struct rl_item *it);

/* barrier.c */
/* sbwrite.c: write fs->super, changing one 512-byte sector where possible. */
errcode_t rl_write_super(ext2_filsys fs, struct bp_relayout_report *rep);

errcode_t rl_barrier_b0(ext2_filsys fs, struct bp_relayout_report *rep);
/* B1, then the superblock without EXT2_ERROR_FS, a flush, and free fs. */
errcode_t rl_finish(ext2_filsys fs, struct bp_relayout_report *rep);
errcode_t rl_barrier_b1(ext2_filsys fs, struct bp_relayout_report *rep);
errcode_t rl_barrier_b2(ext2_filsys fs, struct bp_relayout_report *rep);

/* apply.c */
errcode_t rl_begin(ext2_filsys fs, struct bp_relayout_report *rep, struct bp_err *err);
void rl_reserve(ext2_filsys fs, blk64_t start, blk64_t len, ext2fs_block_bitmap mark);
/* Free the blocks of [start, start+len) marked in m. */
void rl_release_marked(ext2_filsys fs, ext2fs_block_bitmap m, blk64_t start, blk64_t len);
/*
 * copy -> B1 -> commit -> B2 -> free old blocks outside [keep_lo, keep_hi).
 * BP_ET_CANCELED: a signal stopped it before its first commit.
 */
errcode_t rl_epoch(ext2_filsys fs, struct rl_stream *s, const struct bp_relayout_opts *o,
		   struct bp_relayout_report *rep, struct bp_err *err, blk64_t keep_lo,
		   blk64_t keep_hi);

/* fixed.c: fixed group metadata (superblock backups, GDT, bitmaps, inode tables) */
/* Mark the fixed group metadata in m (a bitmap of fs). */
void rl_fixed_mark(ext2_filsys fs, ext2fs_block_bitmap m);
errcode_t rl_fixed_build(ext2_filsys fs, ext2fs_block_bitmap *ret);
/* First block >= b that is not fixed metadata (end if none before end). */
blk64_t rl_fixed_skip(ext2fs_block_bitmap fixed, blk64_t b, blk64_t end);
/* Blocks from b up to the next fixed metadata block (or end). */
blk64_t rl_fixed_room(ext2fs_block_bitmap fixed, blk64_t b, blk64_t end);
/* 1 if [a, b) is not empty and all fixed metadata: a hole no layout avoids. */
int rl_fixed_gap(ext2fs_block_bitmap fixed, blk64_t a, blk64_t b);
/* 1 if every block of [start, start+len) is free or (fixed != NULL) fixed metadata. */
int rl_range_free(ext2_filsys fs, ext2fs_block_bitmap fixed, blk64_t start, blk64_t len);
/* Blocks from start spanning n blocks that are not fixed metadata; 0 if end comes first. */
blk64_t rl_fixed_span(ext2fs_block_bitmap fixed, blk64_t start, blk64_t n, blk64_t end);
/* Free the blocks of [start, start+len) marked in use, except fixed metadata. */
void rl_release(ext2_filsys fs, ext2fs_block_bitmap fixed, blk64_t start, blk64_t len);
/* Discontiguities of a walk whose gap is all fixed metadata (crossing a hole). */
uint64_t rl_stream_discontig_fixed(const struct rl_stream *s, int planned,
				   ext2fs_block_bitmap fixed);

/* evict.c */
/* n blocks besides the fixed metadata the window steps over; its length in *span. */
errcode_t rl_window_choose(ext2_filsys fs, const struct rl_owners *ow, blk64_t n, blk64_t fixed,
			   blk64_t *start, blk64_t *span, uint64_t *cost, struct bp_err *err);
/*
 * After the eviction epoch, the window blocks nothing references any more are
 * marked in spare. BP_ET_CANCELED: stopped before any commit, targets freed.
 */
errcode_t rl_evict(ext2_filsys fs, const struct rl_owners *ow, blk64_t ws, blk64_t wlen,
		   const struct bp_relayout_opts *o, struct bp_relayout_report *rep,
		   ext2fs_block_bitmap spare, struct bp_err *err);
/* Plan the eviction on a copy of the bitmap, changing nothing: can it be done? */
errcode_t rl_evict_trial(ext2_filsys fs, const struct rl_owners *ow, blk64_t ws, blk64_t wlen,
			 const struct bp_relayout_opts *o, uint64_t *moved, struct bp_err *err);
#define RL_EVICT_SLACK 16	/* extra window blocks: leaf counts may change after eviction */

/* verify.c: read errors the library would swallow (a directory read as "missing") */
struct rl_readwatch {
	errcode_t rc;		/* the first failed read, 0 = none */
	unsigned long block;
};
void rl_readwatch_start(ext2_filsys fs, struct rl_readwatch *w);
/* Stop watching; BP_ET_READ_FAILED naming the block if a read failed. */
errcode_t rl_readwatch_check(ext2_filsys fs, const struct rl_readwatch *w, const char *device,
			     struct bp_err *err);

/*
 * quota.c: quota usage follows the i_blocks relayout changes. prepare (no
 * writes; *ret NULL without the quota feature, or ret NULL to check only)
 * sums each id's bytes and finds its entry, refusing an id without one;
 * update, after the last commit and before rl_finish, sums again and
 * rewrites dqb_curspace of the ids whose usage changed.
 */
#define RL_QUOTA_TYPES 3	/* user, group, project */
struct rl_quota;
errcode_t rl_quota_prepare(ext2_filsys fs, const char *device, struct rl_quota **ret,
			   struct bp_err *err);
errcode_t rl_quota_update(ext2_filsys fs, struct rl_quota *q, const char *device,
			  struct bp_err *err);
void rl_quota_free(struct rl_quota *q);

/* undo.c */
errcode_t rl_undo_setup(const char *undo_file, io_manager backing, io_manager *ret,
			struct bp_err *err);
/* The first failed write to the undo file (0 = none): it is then incomplete. */
errcode_t rl_undo_error(void);

static inline void rl_progress(const struct bp_relayout_opts *o, int pass, const char *label,
			       uint64_t cur, uint64_t max)
{
	if (o && o->progress)
		o->progress(o->progress_ctx, pass, label, cur, max);
}

#endif /* BP_RL_INT_H */
