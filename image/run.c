// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * run.c --- bootpack image from end to end: root, trace, relayout, install
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "c.h"
#include "diskmodel.h"
#include "fsfit.h"
#include "image.h"
#include "stream.h"

/* Paths read before the boot's first traced read (relayout --first). */
static const char *const first_paths[] = {
	BP_SBINDIR "/bootpack-read", BP_SYSCONFDIR "/bootpack.conf", BP_STATEDIR,
};

/* How many dry runs look for an aligned start past fixed metadata. */
#define ALIGN_TRIES 64

static errcode_t load_traces(const struct bp_image_opts *o, const struct bp_fsloc *loc,
			     struct bp_trace **ret, struct bp_err *err)
{
	struct bp_trace *t = NULL, *u;
	ext2_filsys fs = NULL;
	errcode_t rc = 0;
	size_t i;

	for (i = 0; i < o->ntraces && !rc; i++) {
		rc = bp_trace_load(o->traces[i], &u, err);
		if (rc) {
			if (rc != ENOMEM)
				rc = BP_ET_TRACE_CORRUPT;
			break;
		}
		if (!t) {
			t = u;
			continue;
		}
		rc = bp_trace_merge(t, u, err);
		bp_trace_free(u);
	}
	if (!rc)
		rc = bp_fs_open_ro_at(loc, &fs, err);
	if (!rc) {
		char what[4200];

		snprintf(what, sizeof(what), "%s (partition at byte %llu)", o->image,
			 (unsigned long long)loc->offset);
		rc = bp_fs_check_ident(fs, what, "trace", t->hdr.uuid, t->hdr.block_size, err);
		ext2fs_close_free(&fs);
	}
	if (rc) {
		bp_trace_free(t);
		return rc;
	}
	*ret = t;
	return 0;
}

/* The boot's stream on each disk model, the whole image being the disk. */
static void model(const struct bp_fsloc *loc, const struct bp_trace *t,
		  struct bp_image_report *rep, int after)
{
	const struct bp_disk_model *const *m;
	struct bp_stream s = { 0 };
	struct bp_err err = { 0 };
	ext2_filsys fs = NULL;
	size_t i;

	if (bp_fs_open_ro_at(loc, &fs, &err))
		return;
	if (bp_stream_build(t, fs, &s, &err)) {
		ext2fs_close_free(&fs);
		return;
	}
	ext2fs_close_free(&fs);
	for (i = 0; i < s.n; i++)
		s.ios[i].offset += loc->offset;
	for (m = bp_disk_models, i = 0; *m && i < BP_IMAGE_MODELS_MAX; m++, i++) {
		struct bp_model_result res;

		bp_model_run(*m, s.ios, s.n, &res);
		rep->models[i].name = (*m)->name;
		if (after)
			rep->models[i].after_s = res.seconds;
		else
			rep->models[i].before_s = res.seconds;
	}
	rep->nmodels = i;
	bp_stream_free(&s);
}

/*
 * The region's first block aligned to the chunk (counted from the start of
 * the image): the automatic start of a dry run, rounded up to the next
 * chunk boundary where the region fits; 0 when none does (automatic).
 */
static uint64_t aligned_start(struct bp_relayout_opts ro, uint64_t offset, uint64_t chunk,
			      uint32_t bs)
{
	struct bp_relayout_report r;
	struct bp_err err = { 0 };
	uint64_t cb = chunk / bs, base = offset / bs, st;
	int i;

	ro.dry_run = 1;
	ro.undo_file = NULL;
	if (bp_relayout_run(&ro, &r, &err) || !r.region_start || r.nothing_to_do) {
		bp_relayout_report_free(&r);
		return 0;
	}
	st = (base + r.region_start + cb - 1) / cb * cb - base;
	bp_relayout_report_free(&r);
	for (i = 0; i < ALIGN_TRIES; i++, st += cb) {
		ro.region_start = st;
		if (!bp_relayout_run(&ro, &r, &err)) {
			bp_relayout_report_free(&r);
			return st;
		}
		bp_relayout_report_free(&r);
	}
	return 0;
}

/* The root fits inside its partition (or the bare image file), before the boot. */
static errcode_t check_fits(const struct bp_fsloc *loc, uint64_t part_size, struct bp_err *err)
{
	ext2_filsys fs = NULL;
	errcode_t rc;

	rc = bp_fs_open_ro_at(loc, &fs, err);
	if (rc)
		return rc;
	rc = bp_fs_check_fits(fs, loc, part_size, NULL, err);
	ext2fs_close_free(&fs);
	return rc;
}

errcode_t bp_image_run(const struct bp_image_opts *o, struct bp_image_report *rep,
		       struct bp_err *err)
{
	struct bp_relayout_opts ro = { 0 };
	struct bp_fsloc loc = { o->image, 0 };
	struct bp_trace *t = NULL;
	struct bp_budget_in auto_in;
	uint64_t guest_mem = 0, part_size;
	int64_t created;
	errcode_t rc;

	memset(rep, 0, sizeof(*rep));
	rc = bp_image_find_root(o->image, o->root_label, &rep->root, err);
	if (!rc)
		rc = bp_image_check_unused(o->image, err);
	loc.offset = rep->root.offset;
	/* A bare image: to the file's end; else the partition's extent (fsfit.h). */
	part_size = rep->root.partno ? rep->root.size : 0;
	if (!rc)
		rc = check_fits(&loc, part_size, err);
	if (!rc)
		rc = bp_image_check_installed(&loc, err);
	if (!rc)
		rc = bp_image_reader_check(&loc, o->reader, &rep->reader, err);
	if (rc)
		return rc;
	created = o->created;
	if (!created) {
		ext2_filsys fs = NULL;

		rc = bp_fs_open_ro_at(&loc, &fs, err);
		if (rc)
			return rc;
		created = fs->super->s_wtime ? fs->super->s_wtime : fs->super->s_mkfs_time;
		ext2fs_close_free(&fs);
	}
	if (o->ntraces) {
		rc = load_traces(o, &loc, &t, err);
		rep->ntraces = o->ntraces;
	} else {
		struct bp_image_boot_opts bo = {
			.image = o->image,
			.offset = loc.offset,
			.driver = o->driver,
			.workdir = o->workdir,
			.timeout_s = o->timeout_s,
		};

		rc = bp_image_boot_trace(&bo, created, &t, &guest_mem, err);
	}
	if (rc)
		return rc;
	rep->trace_files = t->nfiles;
	rc = bp_verify_run_at(&loc, t, 0, o->chunk_bytes, &rep->before, err);
	if (rc)
		goto out;
	model(&loc, t, rep, 0);

	ro.device = o->image;
	ro.offset = loc.offset;
	ro.size = part_size;
	ro.trace = t;
	ro.undo_file = o->undo_file;
	ro.first = first_paths;
	ro.nfirst = ARRAY_SIZE(first_paths);
	ro.cancel = o->cancel;
	ro.now = created;
	if (o->chunk_bytes && rep->before.block_size)
		ro.region_start = aligned_start(ro, loc.offset, o->chunk_bytes,
						rep->before.block_size);
	rc = bp_relayout_run(&ro, &rep->rl, err);
	rep->writes_began = rep->rl.writes_began;
	if (rc)
		goto out;
	bp_image_budget_inputs(&o->budget, guest_mem, &auto_in, &rep->mem_from,
			       &rep->rate_from);
	rc = bp_image_install(&loc, t, o->undo_install, created, rep->rl.moved_from,
			      rep->rl.nmoved_from, o->budget.given ? NULL : &auto_in,
			      o->budget.size, &rep->inst, err);
	rep->writes_began = 1;
	if (rc)
		goto out;
	rep->installed = 1;
	rc = bp_verify_run_at(&loc, t, 0, o->chunk_bytes, &rep->after, err);
	if (!rc)
		model(&loc, t, rep, 1);
out:
	bp_trace_free(t);
	return rc;
}

void bp_image_report_free(struct bp_image_report *rep)
{
	bp_relayout_report_free(&rep->rl);
}
