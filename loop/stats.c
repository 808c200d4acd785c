// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stats.c --- the hit rate of the pack, sampled at the end of each read boot,
 * the boot's duration, and the control boots that show whether reading pays
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bp_et.h"
#include "loop.h"
#include "pack-parse.h"
#include "reader-stats.h"

errcode_t bp_loop_pack_samples(const char *root, const struct bp_loop_state *st,
			       struct bp_loop_sample *v, size_t *n, struct bp_err *err)
{
	struct bp_loop_sample s;
	char path[PATH_MAX], line[512];
	FILE *fp;

	*n = 0;
	bp_loop_path(root, BP_STATEDIR "/stats", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT ? 0 : bp_err_set(err, errno, "%s: %s", path,
							  strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "pack ", 5) == 0)
			*n = 0;		/* a new pack from here on */
		if (bp_loop_parse_sample(line, &s) || s.when < st->relayout_time)
			continue;
		if (*n == BP_LOOP_JUDGE_WINDOW) {
			memmove(v, v + 1, (BP_LOOP_JUDGE_WINDOW - 1) * sizeof(*v));
			(*n)--;
		}
		v[(*n)++] = s;
	}
	fclose(fp);
	return 0;
}

/* Read boots since the last control boot (or since the pack was written). */
static unsigned int reads_since_control(const struct bp_loop_sample *v, size_t n)
{
	unsigned int k = 0;

	while (n > 0 && v[n - 1].read) {
		k++;
		n--;
	}
	return k;
}

/* The verdict on this pack: off when reading does not pay, else maybe a control boot next. */
static errcode_t judge(const struct bp_setup_opts *o, struct bp_loop_state *st,
		       struct bp_err *err)
{
	struct bp_loop_sample v[BP_LOOP_JUDGE_WINDOW];
	struct bp_loop_verdict j;
	char path[PATH_MAX], off[PATH_MAX + 8], ctl[PATH_MAX];
	errcode_t ret;
	size_t n;
	FILE *fp;

	if ((ret = bp_loop_pack_samples(o->root, st, v, &n, err)))
		return ret;
	bp_loop_judge(v, n, &j);
	bp_loop_path(o->root, BP_STATEDIR BP_LOOP_CONTROL_FILE, ctl, sizeof(ctl));
	if (j.decided && !j.pays) {
		st->phase = BP_PHASE_OFF;
		st->phase_time = time(NULL);
		snprintf(st->reason, sizeof(st->reason), "readahead does not pay on this disk: "
			 "boots read from the pack %" PRIu64 ".%01" PRIu64 " s (median of %u), "
			 "without it %" PRIu64 ".%01" PRIu64 " s (median of %u); run 'bootpack "
			 "setup' to try again", j.read_ms / 1000, j.read_ms % 1000 / 100, j.nread,
			 j.control_ms / 1000, j.control_ms % 1000 / 100, j.ncontrol);
		/* the reader's units and hooks need the pack: without it they do nothing */
		bp_loop_path(o->root, BP_STATEDIR "/pack", path, sizeof(path));
		snprintf(off, sizeof(off), "%s.off", path);
		if (rename(path, off) < 0 && errno != ENOENT)
			return bp_err_set(err, errno, "%s: cannot rename to %s: %s", path, off,
					  strerror(errno));
		unlink(ctl);
		return bp_loop_save(o->root, st, err);
	}
	if (reads_since_control(v, n) + 1 < (j.pays ? BP_LOOP_CONTROL_EVERY_PAYS :
					     BP_LOOP_CONTROL_EVERY))
		return 0;
	fp = fopen(ctl, "we");
	if (!fp || fprintf(fp, "# the next boot is not read from the pack: it measures the "
			   "boot without readahead (bootpack-setup(8))\n") < 0 || fclose(fp)) {
		if (fp)
			fclose(fp);
		return bp_err_set(err, errno, "%s: cannot write: %s", ctl, strerror(errno));
	}
	return 0;
}

errcode_t bp_loop_sample(const struct bp_setup_opts *o, uint64_t boot_ms,
			 struct bp_loop_sample *s, struct bp_err *err)
{
	struct bp_pack_residency r;
	struct bp_loop_state st;
	struct bp_pack *p = NULL;
	char path[PATH_MAX], ctl[PATH_MAX], reason[512];
	const char *why = NULL;
	errcode_t ret;
	FILE *fp;
	int rc;

	memset(s, 0, sizeof(*s));
	ret = bp_loop_load(o->root, &st, err);
	if (ret)
		return ret;
	if (st.phase != BP_PHASE_READ)
		return bp_err_set(err, ENOENT, "phase %s: no boot read from a pack to sample",
				  bp_phase_name(st.phase));
	bp_loop_path(o->root, BP_STATEDIR "/pack", path, sizeof(path));
	rc = bp_pack_load_file(path, 0, &p, &why);
	if (rc)
		return bp_err_set(err, BP_ET_PACK_CORRUPT, "%s: %s", path, why ? why : strerror(-rc));
	rc = bp_pack_residency(o->root, p, &r);
	bp_pack_free(p);
	if (rc)
		return bp_err_set(err, -rc, "%s: %s", path, strerror(-rc));
	/* a control boot: the reader skipped itself because this file was there */
	bp_loop_path(o->root, BP_STATEDIR BP_LOOP_CONTROL_FILE, ctl, sizeof(ctl));
	s->read = access(ctl, F_OK) != 0;
	if (!s->read && unlink(ctl) < 0)
		return bp_err_set(err, errno, "%s: cannot remove: %s", ctl, strerror(errno));
	s->when = time(NULL);
	s->packed = r.packed;
	s->resident = r.resident;
	s->changed = r.changed;
	s->changed_files = r.changed_files;
	s->hit_pct = r.packed ? (unsigned int)(r.resident * 100 / r.packed) : 0;
	/* the boot that relaid the root out is not a read boot to compare */
	bp_loop_path(o->root, "/run/bootpack/relayout.status.taken", path, sizeof(path));
	s->boot_ms = access(path, F_OK) == 0 ? 0 : boot_ms;
	bp_loop_path(o->root, BP_STATEDIR "/stats", path, sizeof(path));
	fp = fopen(path, "ae");
	if (!fp)
		return bp_err_set(err, errno, "%s: cannot write: %s", path, strerror(errno));
	fprintf(fp, "time=%lld packed=%" PRIu64 " resident=%" PRIu64 " changed=%" PRIu64
		" changed_files=%u hit=%u read=%d boot_ms=%" PRIu64 "\n", (long long)s->when,
		s->packed, s->resident, s->changed, s->changed_files, s->hit_pct, s->read,
		s->boot_ms);
	if (fclose(fp) != 0)
		return bp_err_set(err, errno, "%s: cannot write: %s", path, strerror(errno));
	/* the hit rate of a control boot says nothing about the pack */
	if (s->read && s->hit_pct < BP_LOOP_HIT_THRESHOLD) {
		st.low_hits++;
		if (st.low_hits >= BP_LOOP_LOW_SAMPLES) {
			snprintf(reason, sizeof(reason), "stale: hit rate %u%% under %u%% on %u "
				 "boots", s->hit_pct, BP_LOOP_HIT_THRESHOLD, st.low_hits);
			s->retraced = 1;
			return bp_loop_retrace(o, &st, reason, err);
		}
	} else if (s->read) {
		st.low_hits = 0;
	}
	if ((ret = bp_loop_save(o->root, &st, err)))
		return ret;
	return judge(o, &st, err);
}

errcode_t bp_loop_last_sample(const char *root, struct bp_loop_sample *s, struct bp_err *err)
{
	struct bp_loop_sample t;
	char path[PATH_MAX], line[512];
	int found = 0;
	FILE *fp;

	memset(s, 0, sizeof(*s));
	bp_loop_path(root, BP_STATEDIR "/stats", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp))
		if (bp_loop_parse_sample(line, &t) == 0 && t.read) {
			*s = t;
			found = 1;
		}
	fclose(fp);
	if (!found)
		return bp_err_set(err, ENOENT, "%s: no sample yet", path);
	return 0;
}
