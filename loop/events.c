// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * events.c --- the loop's events (traced, every boot, packages changed): each
 * gathers its observation for the policy (policy.h); bp_loop_apply() carries
 * out the actions and saves the state
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "loop.h"
#include "pack-parse.h"
#include "policy.h"
#include "reader-stats.h"
#include "trace-engine.h"

/* Where the initramfs leaves the relayout of this boot (see bootpack-setup(8)). */
#define RUN_DIR "/run/bootpack"

/* Copy src (a path as it is, e.g. ROOT/run/bootpack/pack) to root + dst, mode 0600 or 0644, atomically. */
static errcode_t copy_in(const struct bp_setup_opts *o, const char *src, const char *dst,
			 mode_t mode, struct bp_err *err)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8], buf[1 << 16];
	int in, out = -1;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return errno == ENOENT ? ENOENT : bp_err_set(err, errno, "%s: %s", src,
							      strerror(errno));
	bp_loop_path(o->root, dst, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (out < 0)
		goto fail;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto fail;
	if (n < 0 || fchmod(out, mode) < 0 || fsync(out) < 0 || close(out) < 0)
		goto fail;
	out = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	close(in);
	return 0;
fail:
	bp_err_set(err, errno, "%s: cannot copy to %s: %s", src, path, strerror(errno));
	if (out >= 0)
		close(out);
	unlink(tmp);
	close(in);
	return err->code;
}

static void append_log(const struct bp_setup_opts *o, const char *line)
{
	char path[PATH_MAX];
	FILE *fp;

	bp_loop_path(o->root, BP_STATEDIR "/loop.log", path, sizeof(path));
	fp = fopen(path, "ae");
	if (!fp)
		return;
	fprintf(fp, "%lld %s\n", (long long)time(NULL), line);
	fclose(fp);
}

/* Carry out a's actions but the refresh (the caller's: it holds the boot's reads). */
static errcode_t act(const struct bp_setup_opts *o, struct bp_loop_state *st,
		     const struct bp_loop_actions *a, struct bp_err *err)
{
	char args[1024], path[PATH_MAX], to[PATH_MAX + 16];
	errcode_t ret;
	FILE *fp;

	if (a->log[0])
		append_log(o, a->log);
	bp_loop_path(o->root, BP_STATEDIR BP_LOOP_CONTROL_FILE, path, sizeof(path));
	if (a->mask & (BP_ACT_TRACE | BP_ACT_OFF | BP_ACT_TAKE_PACK))
		unlink(path);	/* a control boot of the old pack is not one of the next */
	if (a->mask & BP_ACT_CONTROL) {
		fp = fopen(path, "we");
		if (!fp || fprintf(fp, "# the next boot is not read from the pack: it measures "
				   "the boot without readahead (bootpack-setup(8))\n") < 0 ||
		    fclose(fp)) {
			if (fp)
				fclose(fp);
			return bp_err_set(err, errno, "%s: cannot write: %s", path,
					  strerror(errno));
		}
	}
	if (a->mask & BP_ACT_OFF) {
		/* the reader's units and hooks need the pack: without it they do nothing */
		bp_loop_path(o->root, BP_STATEDIR "/pack", path, sizeof(path));
		snprintf(to, sizeof(to), "%s.off", path);
		if (rename(path, to) < 0 && errno != ENOENT)
			return bp_err_set(err, errno, "%s: cannot rename to %s: %s", path, to,
					  strerror(errno));
	}
	if (a->mask & BP_ACT_SET_ASIDE) {
		bp_loop_path(o->root, BP_STATEDIR "/trace", path, sizeof(path));
		snprintf(to, sizeof(to), "%s.first-boot", path);
		rename(path, to);
	}
	if (a->mask & BP_ACT_TAKE_PACK) {
		/* the relayout's pack installed as the loop's (the one place it is) */
		bp_loop_path(o->root, RUN_DIR "/pack", path, sizeof(path));
		ret = copy_in(o, path, BP_STATEDIR "/pack", 0644, err);
		if (ret)
			return ret == ENOENT ? bp_err_set(err, ENOENT, "%s: the relayout wrote no "
							  "pack", path) : ret;
		/* the samples of the old pack end here (bp_loop_pack_samples()) */
		bp_loop_path(o->root, BP_STATEDIR "/stats", path, sizeof(path));
		fp = fopen(path, "ae");
		if (fp) {
			fprintf(fp, "pack time=%lld%s\n", (long long)st->relayout_time,
				st->verdict_time < st->relayout_time ? " verdict=kept" : "");
			fclose(fp);
		}
		/* the read boots' metadata positions are the old layout's */
		bp_loop_path(o->root, BP_STATEDIR "/trace.reads", path, sizeof(path));
		unlink(path);
	}
	if (a->mask & BP_ACT_TRACE) {
		char desc[512];
		unsigned int events;
		struct bp_err e = { 0 };

		/* the kernel's events as setup finds them; unknown: all (a kernel skips what it lacks) */
		if (bp_setup_kernel_events(o, &events, desc, sizeof(desc), &e))
			events = bp_setup_all_events();
		bp_setup_trace_args(o->buffer_kb, events, args, sizeof(args));
		return bp_setup_next_boot(o, st, args, err);
	}
	if (a->mask & BP_ACT_RELAYOUT)
		return bp_setup_next_boot(o, st, "", err);
	return 0;
}

errcode_t bp_loop_apply(const struct bp_setup_opts *o, struct bp_loop_state *st,
			const struct bp_loop_obs *ob, struct bp_loop_actions *a,
			struct bp_err *err)
{
	struct bp_loop_state next;
	errcode_t ret;

	bp_loop_policy(st, ob, &next, a);
	ret = act(o, &next, a, err);
	if (ret)
		return ret;
	/* the one place the loop's state is written (setup's first state aside) */
	if (memcmp(&next, st, sizeof(next)))
		ret = bp_loop_save(o->root, &next, err);
	*st = next;
	return ret;
}

/* Every boot, root mounted: take over what the initramfs relayout left in /run. */
static errcode_t event_boot(const struct bp_setup_opts *o, struct bp_loop_state *st,
			    struct bp_err *err)
{
	struct bp_loop_obs ob = { .event = BP_OBS_RELAYOUT };
	struct bp_loop_actions a;
	char run[PATH_MAX], p[PATH_MAX + 32], q[PATH_MAX + 32];
	errcode_t ret;
	FILE *fp;

	bp_loop_path(o->root, RUN_DIR, run, sizeof(run));
	snprintf(p, sizeof(p), "%s/relayout.status", run);
	fp = fopen(p, "re");
	if (fp) {
		if (!fgets(ob.relayout_status, sizeof(ob.relayout_status), fp))
			ob.relayout_status[0] = '\0';
		fclose(fp);
		ob.relayout_status[strcspn(ob.relayout_status, "\n")] = '\0';
		snprintf(q, sizeof(q), "%s/relayout.status.taken", run);
		rename(p, q);
	} else if (st->phase != BP_PHASE_RELAYOUT) {
		return 0;	/* no relayout was due, none was done */
	}
	snprintf(p, sizeof(p), "%s/relayout.log", run);
	if (access(p, F_OK) == 0)
		copy_in(o, p, BP_STATEDIR "/relayout.log", 0644, err);
	/* the undo file: it reverts the relayout while the root is unmounted */
	snprintf(p, sizeof(p), "%s/relayout.e2undo", run);
	ret = copy_in(o, p, BP_STATEDIR "/relayout-root.e2undo", 0600, err);
	if (ret && ret != ENOENT)
		append_log(o, err->msg);
	ob.now = time(NULL);
	return bp_loop_apply(o, st, &ob, &a, err);
}

static errcode_t event_packages(const struct bp_setup_opts *o, struct bp_loop_state *st,
				struct bp_err *err)
{
	struct bp_loop_obs ob = { .event = BP_OBS_PACKAGES };
	struct bp_pack_residency r;
	struct bp_loop_actions a;
	char path[PATH_MAX];
	struct bp_pack *p = NULL;
	const char *why = NULL;
	int rc;

	if (st->phase != BP_PHASE_READ)
		return 0;
	bp_loop_path(o->root, BP_STATEDIR "/pack", path, sizeof(path));
	rc = bp_pack_load_file(path, 0, &p, &why);
	if (rc) {
		ob.pack_unusable = 1;
		snprintf(ob.pack_why, sizeof(ob.pack_why), "%s", why ? why : strerror(-rc));
	} else {
		rc = bp_pack_residency(o->root, p, &r);
		bp_pack_free(p);
		if (rc)
			return bp_err_set(err, -rc, "%s: %s", path, strerror(-rc));
		ob.changed_files = r.changed_files;
		snprintf(ob.first_changed, sizeof(ob.first_changed), "%s", r.first_changed);
	}
	ob.now = time(NULL);
	return bp_loop_apply(o, st, &ob, &a, err);
}

static errcode_t event_traced(const struct bp_setup_opts *o, struct bp_loop_state *st,
			      struct bp_err *err)
{
	struct bp_loop_obs ob = { .event = BP_OBS_TRACED };
	struct bp_loop_actions a;
	char path[PATH_MAX], fb[PATH_MAX];

	bp_loop_path(o->root, BP_STATEDIR "/trace", path, sizeof(path));
	if (access(path, R_OK) != 0)
		return bp_err_set(err, ENOENT, "%s: no trace was saved; the boot stays traced", path);
	bp_loop_path(o->root, "/run/systemd/first-boot", fb, sizeof(fb));
	ob.first_boot = access(fb, F_OK) == 0;
	ob.now = time(NULL);
	return bp_loop_apply(o, st, &ob, &a, err);
}

errcode_t bp_loop_record_start(const struct bp_setup_opts *o, const struct bp_loop_state *st,
			       struct bp_err *err)
{
	struct stat rs;

	if (st->phase != BP_PHASE_READ)
		return ENOENT;
	if (stat(o->root, &rs) < 0)
		return bp_err_set(err, errno, "%s: %s", o->root, strerror(errno));
	return bp_recorder_start(BP_KDEV(major(rs.st_dev), minor(rs.st_dev)),
				 BP_RECORDER_BUFFER_KB, err);
}

void bp_loop_record_stop(const struct bp_setup_opts *o)
{
	struct stat rs;

	if (stat(o->root, &rs) == 0)
		bp_recorder_stop(BP_KDEV(major(rs.st_dev), minor(rs.st_dev)));
}

errcode_t bp_loop_event(const struct bp_setup_opts *o, enum bp_event ev, struct bp_err *err)
{
	struct bp_loop_state st;
	errcode_t ret;

	ret = bp_loop_load(o->root, &st, err);
	if (ret == ENOENT)
		return 0;	/* no setup: nothing to do */
	if (ret)
		return ret;
	switch (ev) {
	case BP_EVENT_TRACED:
		return event_traced(o, &st, err);
	case BP_EVENT_BOOT:
		return event_boot(o, &st, err);
	case BP_EVENT_PACKAGES:
		return event_packages(o, &st, err);
	case BP_EVENT_READ_START:
		ret = bp_loop_record_start(o, &st, err);
		return ret == ENOENT || ret == EEXIST ? 0 : ret;
	}
	return 0;
}
