// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * events.c --- the loop's transitions: traced, every boot, packages changed
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loop.h"
#include "pack-parse.h"
#include "reader-stats.h"

/* Where the initramfs leaves the relayout of this boot (see bootpack-setup(8)). */
#define RUN_DIR "/run/bootpack"

errcode_t bp_loop_retrace(const struct bp_setup_opts *o, struct bp_loop_state *st,
			  const char *reason, struct bp_err *err)
{
	char args[1024], ctl[PATH_MAX], desc[512];
	unsigned int events;
	struct bp_err e = { 0 };
	errcode_t ret;

	/* a control boot scheduled for the old pack does not apply to the next trace */
	bp_loop_path(o->root, BP_STATEDIR BP_LOOP_CONTROL_FILE, ctl, sizeof(ctl));
	unlink(ctl);
	st->phase = BP_PHASE_TRACE;
	st->phase_time = time(NULL);
	st->low_hits = 0;
	st->attempts = 0;
	snprintf(st->reason, sizeof(st->reason), "%s", reason);
	/* the kernel's events as setup found them; unknown now: all (a kernel skips what it lacks) */
	if (bp_setup_kernel_events(o, &events, desc, sizeof(desc), &e))
		events = bp_setup_all_events();
	bp_setup_trace_args(o->buffer_kb, events, args, sizeof(args));
	ret = bp_setup_next_boot(o, st, args, err);
	if (!ret)
		ret = bp_loop_save(o->root, st, err);
	return ret;
}

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

/* Every boot, root mounted: take over what the initramfs relayout left in /run. */
static errcode_t event_boot(const struct bp_setup_opts *o, struct bp_loop_state *st,
			    struct bp_err *err)
{
	char status[512] = "", line[768], run[PATH_MAX], a[PATH_MAX + 32], b[PATH_MAX + 32];
	errcode_t ret;
	FILE *fp;

	bp_loop_path(o->root, RUN_DIR, run, sizeof(run));
	snprintf(a, sizeof(a), "%s/relayout.status", run);
	fp = fopen(a, "re");
	if (fp) {
		if (!fgets(status, sizeof(status), fp))
			status[0] = '\0';
		fclose(fp);
		status[strcspn(status, "\n")] = '\0';
		snprintf(b, sizeof(b), "%s/relayout.status.taken", run);
		rename(a, b);
	} else if (st->phase != BP_PHASE_RELAYOUT) {
		return 0;
	} else {
		snprintf(status, sizeof(status), "skipped the initramfs did not try: rebuild it "
			 "(update-initramfs -u or dracut -f)");
	}
	snprintf(line, sizeof(line), "initramfs relayout: %s", status);
	append_log(o, line);
	snprintf(a, sizeof(a), "%s/relayout.log", run);
	if (access(a, F_OK) == 0)
		copy_in(o, a, BP_STATEDIR "/relayout.log", 0644, err);
	/* the undo file: it reverts the relayout while the root is unmounted */
	snprintf(a, sizeof(a), "%s/relayout.e2undo", run);
	ret = copy_in(o, a, BP_STATEDIR "/relayout-root.e2undo", 0600, err);
	if (ret && ret != ENOENT)
		append_log(o, err->msg);
	if (strncmp(status, "done", 4) == 0) {
		snprintf(a, sizeof(a), "%s/pack", run);
		ret = copy_in(o, a, BP_STATEDIR "/pack", 0644, err);
		if (ret)
			return ret == ENOENT ? bp_err_set(err, ENOENT, "%s: the relayout wrote no "
							  "pack", a) : ret;
		bp_loop_path(o->root, BP_STATEDIR BP_LOOP_CONTROL_FILE, a, sizeof(a));
		unlink(a);
		st->phase = BP_PHASE_READ;
		st->relayout_time = st->phase_time = time(NULL);
		/* the samples of the old pack end here (bp_loop_pack_samples()) */
		bp_loop_path(o->root, BP_STATEDIR "/stats", a, sizeof(a));
		fp = fopen(a, "ae");
		if (fp) {
			fprintf(fp, "pack time=%lld\n", (long long)st->relayout_time);
			fclose(fp);
		}
		st->attempts = 0;
		st->low_hits = 0;
		st->high_misses = 0;
		st->pack_runs0 = 0;	/* the next read boot's pack is the new one */
		/* the read boots' metadata positions are the old layout's */
		bp_loop_path(o->root, BP_STATEDIR "/trace.reads", a, sizeof(a));
		unlink(a);
		snprintf(st->reason, sizeof(st->reason), "relaid out at boot");
	} else if (st->phase == BP_PHASE_RELAYOUT) {
		st->attempts++;
		snprintf(st->reason, sizeof(st->reason), "%s", status);
		if (st->attempts >= 3) {
			st->phase = BP_PHASE_OFF;
			st->phase_time = time(NULL);
			snprintf(st->reason, sizeof(st->reason), "relayout did not complete on 3 "
				 "boots, last: %s", status);
		}
	}
	return bp_loop_save(o->root, st, err);
}

static errcode_t event_packages(const struct bp_setup_opts *o, struct bp_loop_state *st,
				struct bp_err *err)
{
	struct bp_pack_residency r;
	char path[PATH_MAX], reason[512];
	struct bp_pack *p = NULL;
	const char *why = NULL;
	int rc;

	if (st->phase != BP_PHASE_READ)
		return 0;
	bp_loop_path(o->root, BP_STATEDIR "/pack", path, sizeof(path));
	rc = bp_pack_load_file(path, 0, &p, &why);
	if (rc) {
		snprintf(reason, sizeof(reason), "packages changed and the pack is unusable (%s)",
			 why ? why : strerror(-rc));
		append_log(o, reason);
		return bp_loop_retrace(o, st, reason, err);
	}
	rc = bp_pack_residency(o->root, p, &r);
	bp_pack_free(p);
	if (rc)
		return bp_err_set(err, -rc, "%s: %s", path, strerror(-rc));
	if (!r.changed_files)
		return 0;
	snprintf(reason, sizeof(reason), "stale: packages changed %u file(s) of the pack, e.g. %s",
		 r.changed_files, r.first_changed);
	append_log(o, reason);
	return bp_loop_retrace(o, st, reason, err);
}

static errcode_t event_traced(const struct bp_setup_opts *o, struct bp_loop_state *st,
			      struct bp_err *err)
{
	char path[PATH_MAX], fb[PATH_MAX + 16];
	errcode_t ret;

	bp_loop_path(o->root, BP_STATEDIR "/trace", path, sizeof(path));
	if (access(path, R_OK) != 0)
		return bp_err_set(err, ENOENT, "%s: no trace was saved; the boot stays traced", path);
	/*
	 * The system's first boot (systemd's ConditionFirstBoot) does work no
	 * later boot does: its reads are not a boot set. Keep the trace aside,
	 * trace the next boot instead.
	 */
	bp_loop_path(o->root, "/run/systemd/first-boot", fb, sizeof(fb));
	if (access(fb, F_OK) == 0) {
		snprintf(fb, sizeof(fb), "%s.first-boot", path);
		rename(path, fb);
		snprintf(st->reason, sizeof(st->reason), "the traced boot was the system's first: "
			 "the next boot is traced again");
		append_log(o, st->reason);
		return bp_loop_save(o->root, st, err);
	}
	st->phase = BP_PHASE_RELAYOUT;
	st->phase_time = time(NULL);
	st->attempts = 0;
	snprintf(st->reason, sizeof(st->reason), "boot traced");
	append_log(o, "boot traced: relayout scheduled for the next boot");
	ret = bp_setup_next_boot(o, st, "", err);
	if (!ret)
		ret = bp_loop_save(o->root, st, err);
	return ret;
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
		ret = bp_loop_record_start(o, err);
		return ret == ENOENT || ret == EEXIST ? 0 : ret;
	}
	return 0;
}
