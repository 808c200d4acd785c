// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * relayout.c --- bp_relayout_run: preflight, plan, apply, check the result
 *
 * Preflight and planning run on a read-only handle, so a refusal or a dry
 * run cannot change a byte. The real run reopens read-write (exclusively,
 * through the undo manager if asked), plans again on that handle, applies,
 * closes (the second and last superblock write) and re-measures the stream
 * read-only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "devlock.h"
#include "fsfit.h"
#include "rl-int.h"

static const char *const skip_names[BP_RL_SKIP_NR] = {
	[BP_RL_SKIP_MISSING] = "missing",
	[BP_RL_SKIP_CHANGED] = "changed",
	[BP_RL_SKIP_NOT_REGULAR] = "not-regular",
	[BP_RL_SKIP_NO_BLOCKS] = "no-blocks",
	[BP_RL_SKIP_TOO_FRAGMENTED] = "too-fragmented",
	[BP_RL_SKIP_ABOVE_32BIT] = "above-32bit",
	[BP_RL_SKIP_IN_PLACE] = "in-place",
};

const char *bp_relayout_skip_name(enum bp_rl_skip s)
{
	return (unsigned int)s < BP_RL_SKIP_NR ? skip_names[s] : "?";
}

static const volatile int *cancel_flag;

int rl_canceled(void)
{
	return cancel_flag && *cancel_flag;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Open, check, read the block bitmap, build the stream and plan it. */
static errcode_t open_and_plan(const struct bp_relayout_opts *o, io_manager io, int rw,
			       ext2_filsys *fsp, struct rl_stream *s,
			       struct bp_relayout_report *rep, struct bp_err *err)
{
	struct rl_build b = { .whole_files = o->whole_files, .first = o->first,
			       .nfirst = o->nfirst };
	struct rl_owners ow = { 0 };
	struct bp_fsloc loc = { o->device, o->offset };
	uint64_t room_blocks;
	ext2_filsys fs = NULL;
	struct rl_readwatch w;
	double t0 = now();
	uint64_t moved;
	errcode_t rc;

	rc = rl_open(o->device, o->offset, io, rw, &fs, err);
	if (rc)
		return rc;
	if (o->now)
		fs->now = (time_t)o->now;
	/* Not one block past the partition, the device or the file (fsfit.h). */
	rc = bp_fs_check_fits(fs, &loc, o->size, &room_blocks, err);
	if (!rc)
		rc = rl_check_fs(fs, o->device, o->force, err);
	if (!rc)
		rc = rl_check_trace(fs, o->trace, o->device, err);
	if (rc)
		goto fail;
	rep->block_size = fs->blocksize;
	rep->fs_blocks = ext2fs_blocks_count(fs->super);
	rl_progress(o, BP_RL_PASS_PLAN, "Planning", 0, 3);
	rc = ext2fs_read_block_bitmap(fs);
	if (rc == EXT2_ET_BLOCK_BITMAP_CSUM_INVALID) {
		rc = bp_err_set(err, BP_ET_NOT_CLEAN,
				"%s: is inconsistent: a block bitmap fails its checksum; please run "
				"'e2fsck -f %s' first",
				o->device, o->device);
		goto fail;
	}
	if (rc) {
		bp_err_lib(err, rc, "%s: while reading the block bitmap", o->device);
		goto fail;
	}
	/* Who owns what, proved by walking every inode, not read off the bitmap. */
	rc = rl_owners_build(fs, o->device, &ow, err);
	if (rc)
		goto fail;
	rl_progress(o, BP_RL_PASS_PLAN, "Planning", 1, 3);
	rl_readwatch_start(fs, &w);
	rc = rl_stream_build_opts(fs, o->trace, &b, s, err);
	s->room_blocks = room_blocks;
	if (!rc)
		rc = rl_readwatch_check(fs, &w, o->device, err);
	if (rc)
		goto fail;
	/* The stream keeps the map: eviction asks it who owns the window's blocks. */
	s->ow = malloc(sizeof(*s->ow));
	if (!s->ow) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	*s->ow = ow;
	memset(&ow, 0, sizeof(ow));
	rl_progress(o, BP_RL_PASS_PLAN, "Planning", 2, 3);
	rc = rl_plan(s, o, 0, rep, err);
	if (!rc)
		rc = rl_validate_plan(s, s->ow, rep, o->device, err);
	/* The eviction's own allocations, planned here too: a dry run predicts a refusal. */
	if (!rc && rep->needs_eviction && !rep->nothing_to_do)
		rc = rl_evict_trial(fs, s->ow, rep->region_start, rep->window_blocks, o, &moved,
				    err);
	if (rc)
		goto fail;
	rl_progress(o, BP_RL_PASS_PLAN, "Planning", 3, 3);
	rep->plan_seconds = now() - t0;
	*fsp = fs;
	return 0;
fail:
	rl_owners_free(&ow);
	rl_stream_free(s);
	ext2fs_free(fs);
	return rc;
}

/*
 * B0, then either reserve the free region and fill it, or clear a window
 * (eviction epoch), lay the boot stream out again on the changed mappings
 * and fill the window; the unused rest of the window is released.
 *
 * A signal stops the run at the next safe point (doc/relayout-safety.md
 * §4.12): in an epoch before its first commit, or between the eviction and
 * the fill. What this run reserved and nobody references is given back and
 * rep->stopped is set (BP_ET_CANCELED); the caller then finishes as usual.
 */
/*
 * Release the blocks of the region [start, start+len) the boot set did not
 * need (unreferenced since B2): those between and after its destinations,
 * except fixed metadata. Segments are placed in stream order, so their
 * destinations ascend.
 */
static void release_unused(ext2_filsys fs, const struct rl_stream *s, ext2fs_block_bitmap fixed,
			   blk64_t start, blk64_t len)
{
	blk64_t cur = start, end = start + len;
	size_t i;

	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];

		if (s->items[g->item].skipped || !g->len || g->dst < cur || g->dst >= end)
			continue;
		if (g->dst > cur)
			rl_release(fs, fixed, cur, g->dst - cur);
		cur = g->dst + g->len;
	}
	if (end > cur)
		rl_release(fs, fixed, cur, end - cur);
}

static errcode_t apply(ext2_filsys fs, struct rl_stream *s, const struct bp_relayout_opts *o,
		       struct bp_relayout_report *rep, struct bp_err *err,
		       ext2fs_block_bitmap fixed)
{
	struct rl_build b = { .whole_files = o->whole_files, .first = o->first,
			       .nfirst = o->nfirst };
	blk64_t start = rep->region_start, wlen = rep->window_blocks, n;
	struct bp_relayout_report fill;
	struct rl_owners *ow;
	ext2fs_block_bitmap spare = NULL;
	int evicted = 0;
	errcode_t rc;

	rc = rl_begin(fs, rep, err);
	if (rc)
		return rc;
	if (!rep->needs_eviction) {
		if (!rl_range_free(fs, fixed, start, rep->region_len))
			return bp_err_set(err, BP_ET_NO_SPACE, "region %llu+%llu is no longer free",
					  (unsigned long long)start,
					  (unsigned long long)rep->region_len);
		rl_reserve(fs, start, rep->region_len, NULL);
		rc = rl_epoch(fs, s, o, rep, err, start, start + rep->region_len);
		if (!rc)
			release_unused(fs, s, fixed, start, rep->region_len);
		if (rc == BP_ET_CANCELED) {
			/* The region was free but for fixed metadata, and nothing references it yet. */
			rl_release(fs, fixed, start, rep->region_len);
			rep->stopped = 1;
		}
		return rc;
	}

	/* The window blocks to give back if a signal stops the run. */
	rc = ext2fs_allocate_block_bitmap(fs, "bootpack window blocks to give back", &spare);
	if (rc)
		return bp_err_lib(err, rc, "while allocating a bitmap");
	rl_reserve(fs, start, wlen, spare);
	rc = rl_evict(fs, s->ow, start, wlen, o, rep, spare, err);
	if (rc)
		goto out;
	evicted = 1;
	if (rl_canceled()) {
		rc = BP_ET_CANCELED;
		goto out;
	}
	/*
	 * The boot files' own mappings may have changed: build and place again.
	 * The ownership map stays: the window is reserved, so its owners now
	 * are among those the map names (each is read again before use).
	 */
	ow = s->ow;
	s->ow = NULL;
	rl_stream_free(s);
	rc = rl_stream_build_opts(fs, o->trace, &b, s, err);
	s->ow = ow;
	if (rc)
		goto out;
	memset(&fill, 0, sizeof(fill));
	rc = rl_plan(s, o, start, &fill, err);
	if (rc)
		goto out;
	n = fill.region_len;
	if (n > wlen) {
		rc = bp_err_set(err, BP_ET_NO_SPACE,
				"after moving other files out, the boot set needs %llu blocks, "
				"more than the %llu cleared",
				(unsigned long long)n, (unsigned long long)wlen);
		goto out;
	}
	rep->region_len = n;
	rep->discontig_after = fill.discontig_after;
	rep->discontig_fixed_after = fill.discontig_fixed_after;
	rc = rl_epoch(fs, s, o, rep, err, start, start + wlen);
	if (rc)
		goto out;
	/* Release the cleared blocks the boot set did not need (unreferenced since B2). */
	release_unused(fs, s, fixed, start, wlen);
out:
	if (rc == BP_ET_CANCELED) {
		/* Before the fill's commits: the window's free and evicted blocks go back. */
		rl_release_marked(fs, spare, start, wlen);
		rep->stopped = 1;
		rc = bp_err_set(err, BP_ET_CANCELED, "stopped by a signal %s",
				evicted ? "after moving other files out of the region"
					: "before switching any file");
	}
	ext2fs_free_block_bitmap(spare);
	return rc;
}

/* apply() with the fixed metadata the region steps over. */
static errcode_t apply_plan(ext2_filsys fs, struct rl_stream *s, const struct bp_relayout_opts *o,
			    struct bp_relayout_report *rep, struct bp_err *err)
{
	ext2fs_block_bitmap fixed = NULL;
	errcode_t rc;

	rc = rl_fixed_build(fs, &fixed);
	if (rc)
		return bp_err_lib(err, rc, "while listing the fixed metadata");
	rc = apply(fs, s, o, rep, err, fixed);
	ext2fs_free_block_bitmap(fixed);
	return rc;
}

/*
 * After the last copy and commit, before the superblock write that marks the
 * filesystem clean: a loop device attached meanwhile may have mounted it.
 * Stop there, as a power failure would (ERROR_FS stays set, e2fsck repairs).
 */
static errcode_t loop_attached_during_run(const struct bp_devlock *lk, struct bp_err *err)
{
	char loop[300];

	if (!bp_devlock_find_loop(lk, loop, sizeof(loop)))
		return 0;
	return bp_err_set(err, BP_ET_BUSY,
			  "%s: the loop device %s was attached to it during the run, so it may "
			  "have been mounted while it was written; relayout stopped before its "
			  "final writes, as a power failure would, and left it marked as having "
			  "errors; detach it with 'losetup -d %s' (unmount it first if it is "
			  "mounted)",
			  lk->path, loop, loop);
}

/* Re-read the result read-only: the stream as it now is on disk. */
static errcode_t measure(const struct bp_relayout_opts *o, struct bp_relayout_report *rep,
			 struct bp_err *err)
{
	struct bp_fsloc loc = { o->device, o->offset };
	struct bp_verify_report v;
	errcode_t rc;

	rc = bp_verify_run_at(&loc, o->trace, o->whole_files, 0, &v, err);
	if (rc)
		return rc;
	rep->discontig_after = v.discontiguities;
	rep->discontig_fixed_after = v.discontig_fixed;
	return 0;
}

static int triple_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * rep->moved_from: where each run of the stream was and went (start,
 * length, new start; sorted by start). Old extent-tree blocks have no one
 * new place (the tree is rebuilt): their new start is BP_RL_NOWHERE.
 */
static void record_moved(const struct rl_stream *s, struct bp_relayout_report *rep)
{
	size_t i, j, n = 0, cap = 0;
	uint64_t *v = NULL;

	for (i = 0; i < s->nsegs; i++) {
		const struct rl_seg *g = &s->segs[i];
		const struct rl_item *it = &s->items[g->item];
		size_t need = g->kind == RL_SEG_TREE ? it->ntree : 1;

		if (it->skipped || (g->kind != RL_SEG_TREE && !g->len))
			continue;
		if (n + 3 * need > cap) {
			size_t c = MAX(2 * cap, n + 3 * need + 256);
			uint64_t *nv = realloc(v, c * sizeof(*v));

			if (!nv) {
				free(v);
				return;	/* the pack then keeps every traced block: slower, not wrong */
			}
			v = nv;
			cap = c;
		}
		if (g->kind != RL_SEG_TREE) {
			v[n++] = g->src;
			v[n++] = g->len;
			v[n++] = g->dst;
			continue;
		}
		for (j = 0; j < it->ntree; j++) {
			v[n++] = it->tree[j];
			v[n++] = 1;
			v[n++] = BP_RL_NOWHERE;
		}
	}
	if (n)
		qsort(v, n / 3, 3 * sizeof(*v), triple_cmp);
	rep->moved_from = v;
	rep->nmoved_from = n / 3;
}

void bp_relayout_report_free(struct bp_relayout_report *rep)
{
	free(rep->moved_from);
	rep->moved_from = NULL;
	rep->nmoved_from = 0;
}

static errcode_t run_locked(const struct bp_relayout_opts *o, const struct bp_devlock *lk,
			    struct bp_relayout_report *rep, struct bp_err *err)
{
	struct rl_stream s;
	struct rl_quota *quota = NULL;
	ext2_filsys fs = NULL;
	io_manager io = o->io ? o->io : unix_io_manager;
	double t0;
	errcode_t rc;

	memset(rep, 0, sizeof(*rep));
	memset(&s, 0, sizeof(s));
	rc = rl_check_mount(o->device, err);
	if (!rc)
		rc = bp_devlock_check_loops(lk, err);
	if (rc)
		return rc;
	rc = open_and_plan(o, io, 0, &fs, &s, rep, err);
	if (rc == BP_ET_CANCELED)
		return bp_err_set(err, rc, "%s: canceled before anything was written", o->device);
	if (rc)
		return rc;
	rc = rl_quota_prepare(fs, o->device, NULL, err);	/* a dry run refuses it too */
	if (rc) {
		rl_stream_free(&s);
		ext2fs_free(fs);
		return rc;
	}
	if (o->cancel && *o->cancel) {
		rl_stream_free(&s);
		ext2fs_free(fs);
		return bp_err_set(err, BP_ET_CANCELED, "%s: canceled", o->device);
	}
	rl_stream_free(&s);
	ext2fs_free(fs);
	fs = NULL;
	if (o->dry_run || rep->nothing_to_do)
		return 0;

	if (o->undo_file) {
		rc = rl_undo_setup(o->undo_file, io, &io, err);
		if (rc)
			return rc;
	}
	memset(rep, 0, sizeof(*rep));
	rc = open_and_plan(o, io, 1, &fs, &s, rep, err);
	if (rc == BP_ET_CANCELED)
		bp_err_set(err, rc, "%s: canceled before anything was written", o->device);
	if (rc)
		goto fail_unwritten;
	if (o->undo_file) {
		char opt[64];

		/*
		 * Key the undo records by filesystem block: left to itself the
		 * undo manager takes the size of the first write, here the
		 * 1024-byte superblock, and then misfiles 4 KiB blocks.
		 */
		snprintf(opt, sizeof(opt), "tdb_data_size=%u", fs->blocksize);
		rc = io_channel_set_options(fs->io, opt);
		if (rc) {
			bp_err_lib(err, rc, "%s: while setting up the undo file", o->device);
			rl_stream_free(&s);
			ext2fs_free(fs);
			goto fail_unwritten;
		}
	}
	if (rep->nothing_to_do) {
		rl_stream_free(&s);
		ext2fs_free(fs);
		if (o->undo_file)
			unlink(o->undo_file);
		return 0;
	}

	if (o->cancel && *o->cancel) {
		rl_stream_free(&s);
		ext2fs_free(fs);
		rc = bp_err_set(err, BP_ET_CANCELED, "%s: canceled before anything was written",
				o->device);
		goto fail_unwritten;
	}
	/* A loop device attached since the start could mount it under us. */
	rc = bp_devlock_check_loops(lk, err);
	if (rc) {
		rl_stream_free(&s);
		ext2fs_free(fs);
		goto fail_unwritten;
	}
	/* Each id's usage before anything moves (refuses an id without an entry). */
	rc = rl_quota_prepare(fs, o->device, &quota, err);
	if (rc) {
		rl_stream_free(&s);
		ext2fs_free(fs);
		goto fail_unwritten;
	}
	t0 = now();
	rc = apply_plan(fs, &s, o, rep, err);
	if (!rc)
		record_moved(&s, rep);
	rl_stream_free(&s);
	if (rc == BP_ET_CANCELED && rep->stopped) {
		/* Stopped at a safe point: consistent, so finish as a complete run does. */
		struct bp_err why = *err;

		rc = loop_attached_during_run(lk, err);
		if (rc) {
			rep->stopped = 0;
			ext2fs_free(fs);
			return rc;
		}
		rc = rl_finish(fs, rep);
		rep->apply_seconds = now() - t0;
		if (rc) {
			rep->stopped = 0;
			return bp_err_lib(err, rc,
					  "%s: while writing the final bitmaps and superblock",
					  o->device);
		}
		*err = why;
		return BP_ET_CANCELED;
	}
	if (!rc)
		rc = loop_attached_during_run(lk, err);
	if (!rc)
		rc = rl_quota_update(fs, quota, o->device, err);
	rl_quota_free(quota);
	if (rc) {
		/* Leave ERROR_FS set: the next e2fsck does a full check (and preens leaks). */
		ext2fs_free(fs);
		return rc;
	}
	rc = rl_finish(fs, rep);
	fs = NULL;
	rep->apply_seconds = now() - t0;
	if (rc)
		return bp_err_lib(err, rc, "%s: while writing the final bitmaps and superblock",
				  o->device);
	rep->completed = 1;
	cancel_flag = NULL;	/* done: the measure is not worth a cancel */
	return measure(o, rep, err);

fail_unwritten:
	if (o->undo_file)
		unlink(o->undo_file);
	return rc;
}

errcode_t bp_relayout_run(const struct bp_relayout_opts *o, struct bp_relayout_report *rep,
			  struct bp_err *err)
{
	struct bp_devlock lk;
	errcode_t rc;

	memset(rep, 0, sizeof(*rep));
	cancel_flag = o->cancel;
	rc = bp_devlock_acquire(o->device, &lk, err);
	if (rc)
		return rc;
	rc = run_locked(o, &lk, rep, err);
	cancel_flag = NULL;
	if (o->undo_file && !o->dry_run)
		rep->undo_error = rl_undo_error();
	bp_devlock_release(&lk);
	return rc;
}
