/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * relayout.h --- the relayout engine: move a boot set into one region, crash-safely
 *
 * Library-like: returns errcode_t (0, errno, libext2fs or BP_ET_* codes),
 * fills struct bp_err, never prints. The algorithm and its invariants are in
 * doc/relayout-safety.md: copy -> barrier -> one-sector commit
 * -> barrier -> deferred free; the superblock is written exactly twice.
 */
#ifndef BP_RELAYOUT_H
#define BP_RELAYOUT_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "fsident.h"
#include "progress.h"
#include "tracefile.h"

/* Progress passes reported through bp_progress_fn. */
enum {
	BP_RL_PASS_PLAN = 1,	/* "Planning" */
	BP_RL_PASS_COPY = 2,	/* "Copying blocks" */
	BP_RL_PASS_COMMIT = 3,	/* "Updating mappings" */
	BP_RL_PASS_FLUSH = 4,	/* "Flushing" */
};

struct bp_relayout_opts {
	const char *device;		/* resolved path */
	uint64_t offset;		/* bytes into device where the filesystem starts (fsident.h) */
	uint64_t size;			/* bytes of its partition from offset on; 0: to the end
					   of the device or file (fsfit.h: the fs must fit) */
	const struct bp_trace *trace;	/* include/tracefile.h */
	io_manager io;			/* NULL = unix_io_manager; tests pass a fault injector */
	const char *undo_file;		/* NULL = no undo */
	int dry_run, whole_files;
	int force;			/* accept s_lastcheck < s_mtime (only that) */
	int64_t now;			/* time written (superblock, inodes); 0: the clock's */
	uint64_t region_start, region_len;	/* blocks; 0 = automatic */
	/*
	 * Paths read before the boot starts, laid out whole at the very head
	 * of the region, in this order, when they exist on the filesystem:
	 * the reader itself and the pack's directory (the traced boot ran
	 * without them). NULL = none.
	 */
	const char *const *first;
	size_t nfirst;
	bp_progress_fn progress;
	void *progress_ctx;
	/*
	 * Set asynchronously (signal handler) to cancel: planning stops
	 * (BP_ET_CANCELED, nothing written); once writing began the run stops
	 * at the next safe point, gives back what nobody references, marks
	 * the filesystem clean and sets rep->stopped (BP_ET_CANCELED); after
	 * the fill's first commit it completes (doc/relayout-safety.md §4.12).
	 */
	const volatile int *cancel;
};

/* Why a traced file was not moved. */
enum bp_rl_skip {
	BP_RL_SKIP_MISSING = 0,	/* path not found */
	BP_RL_SKIP_CHANGED,	/* generation or size differs from the trace */
	BP_RL_SKIP_NOT_REGULAR,	/* not a regular file (or special inode) */
	BP_RL_SKIP_NO_BLOCKS,	/* inline data, empty, holes or unwritten only */
	BP_RL_SKIP_TOO_FRAGMENTED,	/* new extent tree would need depth > 2 */
	BP_RL_SKIP_ABOVE_32BIT,	/* block-mapped file, region above 2^32 */
	BP_RL_SKIP_IN_PLACE,	/* already where the plan puts it */
	BP_RL_SKIP_NR,
};

struct bp_relayout_report {
	/* plan */
	uint32_t block_size;
	uint64_t fs_blocks;
	uint64_t region_start, region_len;	/* blocks */
	uint64_t bootset_blocks;	/* blocks in the boot stream (data + tree + dirs) */
	uint64_t blocks_to_move;	/* data + directory blocks copied */
	uint64_t tree_blocks;		/* new extent leaves + copied indirect blocks */
	uint64_t bytes_to_move;		/* (blocks_to_move + tree_blocks) * block_size */
	uint64_t evicted_blocks;	/* blocks of other files moved out of the region */
	int needs_eviction;		/* no free run: the region is a window to clear */
	uint64_t window_blocks;		/* blocks reserved for the region (with slack) */
	uint64_t discontig_before;	/* boot stream discontiguities before */
	uint64_t discontig_after;	/* planned (after a dry run) or achieved */
	uint64_t discontig_fixed_before;	/* of those, across fixed metadata only: no */
	uint64_t discontig_fixed_after;		/* layout avoids them (region spans groups) */
	uint64_t files_traced;		/* F lines in the trace */
	uint64_t files_moved;		/* regular files with at least one moved block */
	uint64_t dirs_moved;
	uint64_t files_skipped[BP_RL_SKIP_NR];
	int nothing_to_do;		/* boot stream already as contiguous as planned */
	/* result */
	uint64_t writes;		/* write calls bootpack issued itself; the library's own
					   (indirect-block rewrites in a commit, bitmaps at
					   close) are not counted */
	uint64_t barriers;		/* io_channel_flush calls */
	uint64_t sb_writes;		/* primary superblock writes (2 on success) */
	uint64_t sb_one_sector;		/* of those, changing only the first 512-byte sector */
	double plan_seconds, apply_seconds;
	int writes_began;		/* set once the filesystem was modified */
	int completed;			/* written and marked clean; only measuring may fail */
	int stopped;			/* a signal stopped the run at a safe point after writes
					   began: consistent and marked clean (BP_ET_CANCELED) */
	errcode_t undo_error;		/* a write to the undo file failed: it is incomplete */
	/*
	 * Where the boot set was and went: triples of old start block,
	 * length, new start (BP_RL_NOWHERE: old extent-tree blocks, rebuilt);
	 * sorted by old start, disjoint; malloc'd, bp_relayout_report_free().
	 * A pack built after the run moves traced metadata along.
	 */
	uint64_t *moved_from;
	size_t nmoved_from;
};

#define BP_RL_NOWHERE UINT64_MAX

void bp_relayout_report_free(struct bp_relayout_report *rep);

/* Names of enum bp_rl_skip values ("missing", "changed", ...). */
const char *bp_relayout_skip_name(enum bp_rl_skip s);

/*
 * Preflight, plan and (unless dry_run) apply. On failure after writes
 * began, rep->writes_began is set (exit code 8 territory); the filesystem
 * is then still consistent up to what e2fsck -p repairs.
 */
errcode_t bp_relayout_run(const struct bp_relayout_opts *o, struct bp_relayout_report *rep,
			  struct bp_err *err);

/* Read-only contiguity report of a trace's boot stream on a device. */
struct bp_verify_report {
	uint32_t block_size;
	uint64_t files, dirs, skipped;
	uint64_t blocks;		/* blocks in the boot stream */
	uint64_t runs;			/* physically contiguous runs */
	uint64_t discontiguities;	/* runs - 1 (0 = one stream) */
	uint64_t discontig_fixed;	/* of those, over fixed group metadata only (unavoidable) */
	uint64_t in_order_blocks;	/* blocks that directly follow their predecessor */
	uint64_t first_block, last_block;	/* span of the stream */
	uint64_t largest_run;		/* blocks */
	uint64_t chunks;		/* distinct chunks of chunk_bytes touched (0: not asked) */
};

/* whole_files: measure whole boot files, as relayout --whole-files lays them out. */
errcode_t bp_verify_run(const char *device, const struct bp_trace *trace, int whole_files,
			struct bp_verify_report *rep, struct bp_err *err);
/*
 * The same for a filesystem at an offset in an image (fsident.h); with
 * chunk_bytes (0: not asked), also how many distinct chunks of that size,
 * counted from the start of loc->path (a cloud disk's snapshot chunks), the
 * boot stream touches.
 */
errcode_t bp_verify_run_at(const struct bp_fsloc *loc, const struct bp_trace *trace,
			   int whole_files, uint64_t chunk_bytes, struct bp_verify_report *rep,
			   struct bp_err *err);

#endif /* BP_RELAYOUT_H */
