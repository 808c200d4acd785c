// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * readboot.c --- a read boot is also a cheap traced boot: start its
 * recorder, and at its end count its misses, merge its reads into the
 * trace, rewrite the pack, and schedule a relayout when the misses grow
 * (see loop.h)
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "array.h"
#include "budget.h"
#include "devspec.h"
#include "fsident.h"
#include "loop.h"
#include "misses.h"
#include "pack-build.h"
#include "pack-verify.h"
#include "policy.h"
#include "reader-stats.h"
#include "trace-engine.h"

/* The recorder's events, resolved into a trace of the root (devpath). */
static errcode_t recorded(uint32_t kdev, const char *devpath, struct bp_trace **ret,
			  struct bp_err *err)
{
	struct bp_fsloc loc = { devpath, 0 };
	struct bp_events_stats st;
	struct bp_collect *c;
	struct bp_trace *t;
	errcode_t rc;

	*ret = NULL;
	rc = bp_recorder_collect(kdev, &c, err);
	if (rc)
		return rc;
	rc = bp_trace_from_events(c, kdev, &loc, INT64_MIN, &t, &st, err);
	bp_collect_free(c);
	if (rc)
		return rc;
	if (bp_trace_set_str(&t->hdr.device, devpath) ||
	    bp_trace_set_str(&t->hdr.source, "boot")) {
		bp_trace_free(t);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	t->hdr.created = (int64_t)time(NULL);
	*ret = t;
	return 0;
}

/* Load path into *t, or a new empty trace when there is none. */
static errcode_t load_or_new(const char *path, struct bp_trace **t, struct bp_err *err)
{
	if (access(path, F_OK) == 0)
		return bp_trace_load(path, t, err);
	*t = bp_trace_new();
	return *t ? 0 : bp_err_set(err, ENOMEM, "out of memory");
}

/*
 * The pack from the merged trace, with the metadata read boots found at
 * today's positions (the traced boot's M ranges predate the relayout) and
 * the budget of bp_loop_pack_budget(), the old pack's device and relayout mark.
 */
static errcode_t repack(const struct bp_setup_opts *o, ext2_filsys fs, struct bp_trace *all,
			const struct bp_trace *reads, const struct bp_pack_info *old,
			struct bp_boot_end *out, struct bp_err *err)
{
	struct bp_pack_report rep;
	struct bp_pack_opts po = { 0 };
	struct bp_budget_in auto_in;
	struct bp_trace_meta *meta = all->meta;
	size_t nmeta = all->nmeta;
	char path[PATH_MAX];
	errcode_t rc;

	bp_loop_path(o->root, BP_STATEDIR "/pack", path, sizeof(path));
	po.output = path;
	struct bp_loop_sample last;
	struct bp_err e = { 0 };

	/* the time of this (or the last) read boot to default.target, when measured */
	if (bp_loop_last_sample(o->root, &last, &e) != 0)
		last.boot_ms = 0;
	rc = bp_loop_pack_budget(o, old, last.boot_ms, &po, &auto_in, err);
	if (rc)
		return rc;
	po.compat = old->feature_compat & BP_PACK_COMPAT_RELAYOUT;
	po.dev_major = old->dev_major;
	po.dev_minor = old->dev_minor;
	all->meta = reads->meta;
	all->nmeta = reads->nmeta;
	rc = bp_pack_build_write_checked(fs, all, &po, &rep, NULL, err);
	all->meta = meta;
	all->nmeta = nmeta;
	if (rc)
		return rc;
	out->repacked = 1;
	out->pack_files = rep.nfiles;
	out->pack_bytes = rep.meta_bytes + rep.file_bytes;
	return 0;
}

struct jruns {
	struct {
		uint64_t start, end;	/* bytes on the device */
	} *v;
	size_t n, alloc;
	uint64_t bs;
	errcode_t rc;
};

static int jblock(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		  int ref_offset, void *priv)
{
	struct jruns *j = priv;
	uint64_t b = *blocknr * j->bs;

	(void)fs, (void)blockcnt, (void)ref_blk, (void)ref_offset;
	if (j->n && j->v[j->n - 1].end == b) {
		j->v[j->n - 1].end = b + j->bs;
		return 0;
	}
	if (bp_array_reserve((void **)&j->v, &j->alloc, j->n, sizeof(*j->v), 4)) {
		j->rc = ENOMEM;
		return BLOCK_ABORT;
	}
	j->v[j->n].start = b;
	j->v[j->n].end = b + j->bs;
	j->n++;
	return 0;
}

/*
 * The internal journal out of the boot's metadata. The recorder sees the
 * pages jbd2 creates to write its log (added to the device's cache, never
 * read), and what the log holds changes with every commit: no pack reads
 * it and no relayout moves it. A range is trimmed where it reaches into the
 * journal and dropped when it lies inside.
 */
static errcode_t drop_journal(ext2_filsys fs, struct bp_trace *t)
{
	struct jruns j = { .bs = fs->blocksize };
	size_t i, k, n = 0;
	errcode_t rc;

	if (!ext2fs_has_feature_journal(fs->super) || !fs->super->s_journal_inum || !t->nmeta)
		return 0;
	rc = ext2fs_block_iterate3(fs, fs->super->s_journal_inum, BLOCK_FLAG_READ_ONLY |
				   BLOCK_FLAG_DATA_ONLY, NULL, jblock, &j);
	if (!rc)
		rc = j.rc;
	for (i = 0; !rc && i < t->nmeta; i++) {
		struct bp_trace_meta m = t->meta[i];
		uint64_t end = m.offset + m.length;

		for (k = 0; k < j.n && m.offset < end; k++) {
			uint64_t js = j.v[k].start, je = j.v[k].end;

			if (m.offset >= js && m.offset < je)
				m.offset = end < je ? end : je;
			else if (end > js && end <= je)
				end = js;
		}
		if (m.offset < end) {
			m.length = end - m.offset;
			t->meta[n++] = m;
		}
	}
	if (!rc)
		t->nmeta = n;
	free(j.v);
	return rc;
}

/* Merge boot into the trace and the reads trace, save both, rewrite the pack. */
static errcode_t converge(const struct bp_setup_opts *o, ext2_filsys fs,
			  struct bp_trace *boot, const struct bp_pack_info *old,
			  struct bp_boot_end *out, struct bp_err *err)
{
	struct bp_trace *all = NULL, *reads = NULL;
	char tpath[PATH_MAX], rpath[PATH_MAX];
	errcode_t rc;

	bp_loop_path(o->root, BP_STATEDIR "/trace", tpath, sizeof(tpath));
	bp_loop_path(o->root, BP_STATEDIR "/trace.reads", rpath, sizeof(rpath));
	rc = drop_journal(fs, boot);
	if (rc)
		return bp_err_lib(err, rc, "while listing the journal's blocks");
	rc = load_or_new(tpath, &all, err);
	if (!rc)
		rc = load_or_new(rpath, &reads, err);
	if (!rc)
		rc = bp_trace_merge(all, boot, err);
	if (!rc)
		rc = bp_trace_merge(reads, boot, err);
	if (!rc)
		rc = bp_trace_save(reads, rpath, err);
	if (!rc)
		rc = bp_trace_save(all, tpath, err);
	if (!rc) {
		out->merged = 1;
		rc = repack(o, fs, all, reads, old, out, err);
	}
	bp_trace_free(all);
	bp_trace_free(reads);
	return rc;
}

/* The boot's reads as a trace (the recorder's or trace_path), with the pack they are compared with. */
static errcode_t boot_reads(const struct bp_setup_opts *o, const char *trace_path, uint32_t kdev,
			    const char *devpath, struct bp_trace **boot, struct bp_pack **p,
			    ext2_filsys *fs, struct bp_misses *m, struct bp_err *err)
{
	char path[PATH_MAX];
	const char *why = NULL;
	errcode_t ret;
	int rc;

	ret = trace_path ? bp_trace_load(trace_path, boot, err) : recorded(kdev, devpath, boot, err);
	if (ret)
		return ret;
	bp_loop_path(o->root, BP_STATEDIR "/pack", path, sizeof(path));
	rc = bp_pack_load_file(path, BP_PACK_LOAD_ANY_OWNER, p, &why);
	if (rc)
		return bp_err_set(err, rc == -ENOENT ? ENOENT : EINVAL, "%s: %s", path,
				  why ? why : strerror(-rc));
	ret = bp_fs_open_ro(devpath, fs, err);
	if (!ret)
		ret = bp_trace_check_device(*boot, devpath, err);
	if (!ret) {
		struct bp_pack_residency r = { 0 };

		/* after the boot, what the pack brought in is still resident */
		bp_pack_residency(o->root, *p, &r);
		ret = bp_misses_compute(*fs, *boot, *p, r.resident, m, err);
	}
	return ret;
}

errcode_t bp_loop_boot_end(const struct bp_setup_opts *o, uint64_t boot_ms,
			   const char *trace_path, struct bp_misses *m, struct bp_boot_end *out,
			   struct bp_err *err)
{
	struct bp_loop_sample v[BP_LOOP_JUDGE_WINDOW];
	struct bp_loop_obs ob = { .event = BP_OBS_END };
	struct bp_loop_state st;
	struct bp_loop_actions a;
	struct bp_trace *boot = NULL;
	struct bp_pack *p = NULL;
	ext2_filsys fs = NULL;
	char devpath[4096];
	struct bp_err merr = { 0 };
	errcode_t ret, mret;
	struct stat rs;
	uint32_t kdev;
	size_t n;

	memset(out, 0, sizeof(*out));
	memset(m, 0, sizeof(*m));
	if (stat(o->root, &rs) < 0)
		return bp_err_set(err, errno, "%s: %s", o->root, strerror(errno));
	kdev = BP_KDEV(major(rs.st_dev), minor(rs.st_dev));
	ret = bp_loop_load(o->root, &st, err);
	if (!ret && st.phase != BP_PHASE_READ)
		ret = bp_err_set(err, ENOENT, "phase %s: no boot read from a pack",
				 bp_phase_name(st.phase));
	if (ret) {
		if (!trace_path)
			bp_recorder_discard(kdev);
		return ret;
	}
	/* the observation: the sample, the verdict's samples, the misses */
	ret = bp_loop_take_sample(o, boot_ms, &out->sample, err);
	if (!ret)
		ret = bp_loop_pack_samples(o->root, &st, v, &n, err);
	if (ret) {
		if (!trace_path)
			bp_recorder_discard(kdev);
		return ret;
	}
	if (o->device)
		snprintf(devpath, sizeof(devpath), "%s", o->device);
	else
		bp_dev_node(major(rs.st_dev), minor(rs.st_dev), devpath, sizeof(devpath));
	mret = boot_reads(o, trace_path, kdev, devpath, &boot, &p, &fs, m, &merr);
	if (!mret) {
		m->control = !out->sample.read;
		mret = bp_misses_save(o->root, m, &merr);
	}
	ob.now = out->sample.when;
	ob.control = !out->sample.read;
	ob.hit_pct = out->sample.hit_pct;
	ob.boot_ms = out->sample.boot_ms;
	ob.relaid = out->sample.relaid;
	ob.samples = v;
	ob.nsamples = n;
	if (!mret) {
		ob.have_misses = 1;
		ob.read_runs = m->read_runs;
		ob.pack_runs = m->pack_runs;
		ob.miss_runs = m->miss_runs;
		ob.journal_runs = m->kind[BP_MK_JOURNAL].runs;
	}
	ret = bp_loop_apply(o, &st, &ob, &a, err);
	out->have_misses = ob.have_misses;
	out->actions = a.mask;
	out->phase = st.phase;
	snprintf(out->reason, sizeof(out->reason), "%s", st.reason);
	out->pack_runs = ob.pack_runs;
	out->pack_runs0 = st.pack_runs0;
	if (!ret && (a.mask & BP_ACT_REFRESH))
		ret = converge(o, fs, boot, bp_pack_info(p), out, err);
	/* no recorder ran (ENOENT): nothing to merge, which is no error */
	if (!ret && mret && mret != ENOENT) {
		*err = merr;
		ret = mret;
	}
	if (fs)
		ext2fs_close_free(&fs);
	bp_pack_free(p);
	bp_trace_free(boot);
	return ret;
}
