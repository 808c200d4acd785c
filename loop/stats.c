// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stats.c --- the hit rate of the pack, sampled at the end of each read boot,
 * and the boot's duration: the samples the control boots' verdict is judged on
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
		/* a new pack from here on, unless the verdict outlived its relayout (policy.c) */
		if (strncmp(line, "pack ", 5) == 0 && !strstr(line, " verdict=kept"))
			*n = 0;
		if (bp_loop_parse_sample(line, &s) ||
		    s.when < (st->verdict_time ? st->verdict_time : st->relayout_time))
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

errcode_t bp_loop_take_sample(const struct bp_setup_opts *o, uint64_t boot_ms,
			      struct bp_loop_sample *s, struct bp_err *err)
{
	struct bp_pack_residency r;
	struct bp_pack *p = NULL;
	char path[PATH_MAX], ctl[PATH_MAX];
	const char *why = NULL;
	FILE *fp;
	int rc;

	memset(s, 0, sizeof(*s));
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
	s->relaid = access(path, F_OK) == 0;
	s->boot_ms = s->relaid ? 0 : boot_ms;
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
	return 0;
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
