// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify.c --- read-only: how contiguous is a trace's boot stream on disk
 *
 * The stream is built exactly as relayout builds it (directories, tree and
 * indirect blocks, data in first-access order) from the filesystem as it is,
 * and its physical runs are counted: 0 discontiguities = one sequential read.
 */
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "rl-int.h"

struct vctx {
	struct bp_verify_report *r;
	blk64_t next, cur_run;
	int any;
};

static void run_cb(void *ctx, blk64_t start, blk64_t len)
{
	struct vctx *c = ctx;
	struct bp_verify_report *r = c->r;

	if (!len)
		return;
	if (c->any && start == c->next) {
		r->in_order_blocks += len;
		c->cur_run += len;
	} else {
		r->runs++;
		r->in_order_blocks += len - 1;
		c->cur_run = len;
	}
	if (c->cur_run > r->largest_run)
		r->largest_run = c->cur_run;
	if (!c->any || start < r->first_block)
		r->first_block = start;
	if (start + len - 1 > r->last_block)
		r->last_block = start + len - 1;
	r->blocks += len;
	c->next = start + len;
	c->any = 1;
}

errcode_t bp_verify_run(const char *device, const struct bp_trace *trace, int whole_files,
			struct bp_verify_report *rep, struct bp_err *err)
{
	struct rl_stream s;
	struct vctx c = { .r = rep };
	ext2_filsys fs = NULL;
	size_t i;
	errcode_t rc;

	memset(rep, 0, sizeof(*rep));
	rc = rl_open(device, NULL, 0, &fs, err);
	if (rc)
		return rc;
	rep->block_size = fs->blocksize;
	rc = rl_check_trace(fs, trace, device, err);
	if (!rc)
		rc = rl_stream_build(fs, trace, whole_files, &s, err);
	if (rc) {
		ext2fs_free(fs);
		return rc;
	}
	rl_stream_walk(&s, 0, run_cb, &c);
	rep->discontiguities = rep->runs ? rep->runs - 1 : 0;
	rep->files = s.files;
	rep->dirs = s.dirs;
	for (i = 0; i < BP_RL_SKIP_NR; i++)
		rep->skipped += s.skipped[i];
	rl_stream_free(&s);
	ext2fs_free(fs);
	return 0;
}
