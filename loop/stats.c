// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stats.c --- the hit rate of the pack, sampled at the end of each read boot
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bp_et.h"
#include "loop.h"
#include "pack-parse.h"
#include "reader-stats.h"

errcode_t bp_loop_sample(const struct bp_setup_opts *o, struct bp_loop_sample *s,
			 struct bp_err *err)
{
	struct bp_pack_residency r;
	struct bp_loop_state st;
	struct bp_pack *p = NULL;
	char path[PATH_MAX], reason[512];
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
	s->when = time(NULL);
	s->packed = r.packed;
	s->resident = r.resident;
	s->changed = r.changed;
	s->changed_files = r.changed_files;
	s->hit_pct = r.packed ? (unsigned int)(r.resident * 100 / r.packed) : 0;
	bp_loop_path(o->root, BP_STATEDIR "/stats", path, sizeof(path));
	fp = fopen(path, "ae");
	if (!fp)
		return bp_err_set(err, errno, "%s: cannot write: %s", path, strerror(errno));
	fprintf(fp, "time=%lld packed=%" PRIu64 " resident=%" PRIu64 " changed=%" PRIu64
		" changed_files=%u hit=%u\n", (long long)s->when, s->packed, s->resident,
		s->changed, s->changed_files, s->hit_pct);
	if (fclose(fp) != 0)
		return bp_err_set(err, errno, "%s: cannot write: %s", path, strerror(errno));
	if (s->hit_pct >= BP_LOOP_HIT_THRESHOLD) {
		if (!st.low_hits)
			return 0;
		st.low_hits = 0;
		return bp_loop_save(o->root, &st, err);
	}
	st.low_hits++;
	if (st.low_hits < BP_LOOP_LOW_SAMPLES)
		return bp_loop_save(o->root, &st, err);
	snprintf(reason, sizeof(reason), "stale: hit rate %u%% under %u%% on %u boots",
		 s->hit_pct, BP_LOOP_HIT_THRESHOLD, st.low_hits);
	s->retraced = 1;
	return bp_loop_retrace(o, &st, reason, err);
}

errcode_t bp_loop_last_sample(const char *root, struct bp_loop_sample *s, struct bp_err *err)
{
	char path[PATH_MAX], line[512], last[512] = "";
	long long when = 0;
	FILE *fp;

	memset(s, 0, sizeof(*s));
	bp_loop_path(root, BP_STATEDIR "/stats", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, "time=", 5) == 0)
			snprintf(last, sizeof(last), "%s", line);
	fclose(fp);
	if (sscanf(last, "time=%lld packed=%" SCNu64 " resident=%" SCNu64 " changed=%" SCNu64
		   " changed_files=%u hit=%u", &when, &s->packed, &s->resident, &s->changed,
		   &s->changed_files, &s->hit_pct) != 6)
		return bp_err_set(err, ENOENT, "%s: no sample yet", path);
	s->when = (time_t)when;
	return 0;
}
