// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefs.c --- a tracefs instance of our own: create, enable, stop, read,
 * count lost events, remove
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "bp_et.h"
#include "trace-engine.h"

#define TRACEFS_MAGIC_NR 0x74726163
#define BP_INSTANCE_PREFIX "bootpack-"

const char *const bp_tracefs_events[] = {
	"filemap/mm_filemap_add_to_page_cache",
	"filemap/mm_filemap_get_pages",
	"filemap/mm_filemap_map_pages",
	"filemap/mm_filemap_fault",
};
const unsigned int bp_tracefs_nevents = ARRAY_SIZE(bp_tracefs_events);

static int write_str(const char *dir, const char *file, const char *val)
{
	char path[PATH_MAX + 512];
	ssize_t n, len = (ssize_t)strlen(val);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, (size_t)len);
	if (n != len) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		return -e;
	}
	return close(fd) < 0 ? -errno : 0;
}

static int exists(const char *dir, const char *file)
{
	char path[PATH_MAX + 512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

static int is_tracefs(const char *dir)
{
	struct statfs sf;
	char ev[PATH_MAX];

	snprintf(ev, sizeof(ev), "%s/events", dir);
	return statfs(dir, &sf) == 0 && (sf.f_type == TRACEFS_MAGIC_NR || access(ev, F_OK) == 0);
}

errcode_t bp_tracefs_open(struct bp_tracefs *tf, struct bp_err *err)
{
	static const char *const candidates[] = { "/sys/kernel/tracing",
						  "/sys/kernel/debug/tracing" };
	size_t i;

	memset(tf, 0, sizeof(*tf));
	tf->on_fd = -1;
	for (i = 0; i < ARRAY_SIZE(candidates); i++) {
		if (exists(candidates[i], "events") && is_tracefs(candidates[i])) {
			snprintf(tf->root, sizeof(tf->root), "%s", candidates[i]);
			return 0;
		}
	}
	if (access("/sys/kernel/tracing", F_OK) == 0 &&
	    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    exists("/sys/kernel/tracing", "events")) {
		snprintf(tf->root, sizeof(tf->root), "%s", "/sys/kernel/tracing");
		return 0;
	}
	return bp_err_set(err, ENOENT,
			  "tracefs is not available: mount it with 'mount -t tracefs nodev "
			  "/sys/kernel/tracing' (the kernel needs CONFIG_FTRACE and CONFIG_TRACING)");
}

void bp_tracefs_reap(const struct bp_tracefs *tf)
{
	char path[PATH_MAX + 512];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/instances", tf->root);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long pid;

		if (strncmp(d->d_name, BP_INSTANCE_PREFIX, strlen(BP_INSTANCE_PREFIX)) != 0)
			continue;
		pid = strtol(d->d_name + strlen(BP_INSTANCE_PREFIX), &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", tf->root, d->d_name);
		rmdir(path);
	}
	closedir(dir);
}

/* Read and check the event's format file; 0 if bootpack can read its text. */
static errcode_t check_format(struct bp_tracefs *tf, unsigned int i, struct bp_err *err)
{
	char path[PATH_MAX + 512];
	struct bp_ev_format f;
	errcode_t rc;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events/%s/format", tf->root, bp_tracefs_events[i]);
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	rc = bp_ev_format_parse(fp, path, &f, err);
	fclose(fp);
	if (!rc)
		rc = bp_ev_format_check(&f, err);
	if (!rc && i == 0)
		tf->ino_size = bp_ev_format_field(&f, "i_ino")->size;
	return rc;
}

static errcode_t enable_events(struct bp_tracefs *tf, uint32_t kdev, unsigned int mask,
			       const char *extra, struct bp_err *err)
{
	char file[256], filter[256];
	unsigned int i;
	errcode_t rc;
	int r;

	for (i = 0; i < bp_tracefs_nevents; i++) {
		if (i && !(mask & (1U << i)))
			continue;
		snprintf(file, sizeof(file), "events/%s/enable", bp_tracefs_events[i]);
		if (!exists(tf->dir, file)) {
			tf->missing |= 1U << i;
			if (i == 0)
				return bp_err_set(err, BP_ET_UNSUPPORTED,
						  "this kernel has no %s event (Linux 2.6.38 or later "
						  "with CONFIG_TRACING): nothing to trace with",
						  bp_tracefs_events[0]);
			continue;
		}
		rc = check_format(tf, i, err);
		if (rc) {
			if (i == 0)
				return rc;
			tf->bad_layout |= 1U << i;	/* do without it */
			continue;
		}
		if (kdev) {
			/* Keep the buffer for our device: its files and its metadata. */
			if (i == 0)
				snprintf(filter, sizeof(filter), "s_dev == %" PRIu32 " || i_ino == %" PRIu32,
					 kdev, kdev);
			else
				snprintf(filter, sizeof(filter), "s_dev == %" PRIu32, kdev);
			snprintf(file, sizeof(file), "events/%s/filter", bp_tracefs_events[i]);
			if (extra) {
				char both[sizeof(filter) + 64];

				/* an older kernel may refuse the extra field: then without it */
				snprintf(both, sizeof(both), "(%s) && %s", filter, extra);
				if (write_str(tf->dir, file, both) < 0)
					write_str(tf->dir, file, filter);
			} else {
				write_str(tf->dir, file, filter);	/* optional: unfiltered works too */
			}
		}
		snprintf(file, sizeof(file), "events/%s/enable", bp_tracefs_events[i]);
		r = write_str(tf->dir, file, "1");
		if (r < 0)
			return bp_err_set(err, -r, "%s/%s: cannot enable the event: %s", tf->dir,
					  file, strerror(-r));
		tf->enabled |= 1U << i;
	}
	return 0;
}

errcode_t bp_tracefs_create(struct bp_tracefs *tf, unsigned int buffer_kb, uint32_t kdev,
			    struct bp_err *err)
{
	return bp_tracefs_create_named(tf, NULL, buffer_kb, kdev, ~0U, NULL, err);
}

errcode_t bp_tracefs_create_named(struct bp_tracefs *tf, const char *name, unsigned int buffer_kb,
				  uint32_t kdev, unsigned int mask, const char *extra,
				  struct bp_err *err)
{
	char val[32];
	errcode_t rc;
	int r;

	if (name)
		snprintf(tf->dir, sizeof(tf->dir), "%s/instances/%s", tf->root, name);
	else
		snprintf(tf->dir, sizeof(tf->dir), "%s/instances/" BP_INSTANCE_PREFIX "%ld",
			 tf->root, (long)getpid());
	if (mkdir(tf->dir, 0700) < 0) {
		r = errno;
		return bp_err_set(err, r, "%s: cannot create a tracefs instance: %s", tf->dir,
				  strerror(r));
	}
	tf->instance = 1;
	r = write_str(tf->dir, "tracing_on", "0");
	if (r == 0) {
		snprintf(val, sizeof(val), "%u", buffer_kb);
		r = write_str(tf->dir, "buffer_size_kb", val);
	}
	if (r < 0) {
		rc = bp_err_set(err, -r, "%s: cannot set up the instance: %s", tf->dir,
				strerror(-r));
		goto fail;
	}
	{
		char on[PATH_MAX + 16];

		snprintf(on, sizeof(on), "%s/tracing_on", tf->dir);
		tf->on_fd = open(on, O_WRONLY | O_CLOEXEC);
	}
	rc = enable_events(tf, kdev, mask, extra, err);
	if (rc)
		goto fail;
	return 0;
fail:
	bp_tracefs_close(tf);
	return rc;
}

errcode_t bp_tracefs_attach(struct bp_tracefs *tf, const char *name, struct bp_err *err)
{
	char file[256], on[PATH_MAX + 16];
	unsigned int i;

	snprintf(tf->dir, sizeof(tf->dir), "%s/instances/%s", tf->root, name);
	if (access(tf->dir, F_OK) != 0) {
		int e = errno;

		tf->dir[0] = '\0';
		return e == ENOENT ? ENOENT : bp_err_set(err, e, "%s/instances/%s: %s", tf->root,
							 name, strerror(e));
	}
	tf->instance = 1;
	snprintf(on, sizeof(on), "%s/tracing_on", tf->dir);
	tf->on_fd = open(on, O_WRONLY | O_CLOEXEC);
	for (i = 0; i < bp_tracefs_nevents; i++) {
		snprintf(file, sizeof(file), "events/%s/enable", bp_tracefs_events[i]);
		if (exists(tf->dir, file))
			tf->enabled |= 1U << i;	/* disabled again by bp_tracefs_close */
	}
	return 0;
}

errcode_t bp_tracefs_top(struct bp_tracefs *tf, struct bp_err *err)
{
	char file[256], on[PATH_MAX + 16], c = '0';
	unsigned int i;
	int fd;

	snprintf(tf->dir, sizeof(tf->dir), "%s", tf->root);
	tf->instance = 0;
	snprintf(on, sizeof(on), "%s/tracing_on", tf->dir);
	fd = open(on, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		tf->restore_on = read(fd, &c, 1) == 1 && c == '1';
		close(fd);
	}
	tf->on_fd = open(on, O_WRONLY | O_CLOEXEC);
	for (i = 0; i < bp_tracefs_nevents; i++) {
		snprintf(file, sizeof(file), "events/%s/enable", bp_tracefs_events[i]);
		if (!exists(tf->dir, file)) {
			tf->missing |= 1U << i;
			continue;
		}
		tf->enabled |= 1U << i;	/* disabled again by bp_tracefs_close */
		if (check_format(tf, i, err)) {
			if (i == 0)
				return err ? err->code : BP_ET_UNSUPPORTED;
			tf->bad_layout |= 1U << i;
		}
	}
	if (tf->missing & 1U)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "this kernel has no %s event",
				  bp_tracefs_events[0]);
	return 0;
}

errcode_t bp_tracefs_start(struct bp_tracefs *tf, struct bp_err *err)
{
	int r = write_str(tf->dir, "tracing_on", "1");

	if (r < 0)
		return bp_err_set(err, -r, "%s/tracing_on: %s", tf->dir, strerror(-r));
	return 0;
}

void bp_tracefs_stop(struct bp_tracefs *tf)
{
	if (tf->on_fd >= 0) {
		ssize_t n = write(tf->on_fd, "0", 1);

		(void)n;
	} else if (tf->dir[0]) {
		write_str(tf->dir, "tracing_on", "0");
	}
}

errcode_t bp_tracefs_lost(const struct bp_tracefs *tf, uint64_t *lost, struct bp_err *err)
{
	char path[PATH_MAX + 512], line[256];
	struct dirent *d;
	DIR *dir;

	*lost = 0;
	snprintf(path, sizeof(path), "%s/per_cpu", tf->dir);
	dir = opendir(path);
	if (!dir)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	while ((d = readdir(dir))) {
		FILE *fp;

		if (strncmp(d->d_name, "cpu", 3) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/stats", tf->dir, d->d_name);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp)) {
			unsigned long long v;

			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				*lost += v;
		}
		fclose(fp);
	}
	closedir(dir);
	return 0;
}

errcode_t bp_tracefs_read(const struct bp_tracefs *tf, struct bp_collect *c, struct bp_err *err)
{
	char path[PATH_MAX + 16];
	errcode_t rc;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/trace", tf->dir);
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, errno, "%s: %s", path, strerror(errno));
	rc = bp_parse_text(fp, path, c, err);
	fclose(fp);
	return rc;
}

void bp_tracefs_close(struct bp_tracefs *tf)
{
	char file[256];
	unsigned int i;

	if (!tf->dir[0])
		return;
	bp_tracefs_stop(tf);
	for (i = 0; i < bp_tracefs_nevents; i++) {
		if (!(tf->enabled & (1U << i)))
			continue;
		snprintf(file, sizeof(file), "events/%s/enable", bp_tracefs_events[i]);
		write_str(tf->dir, file, "0");
	}
	tf->enabled = 0;
	if (tf->restore_on)
		write_str(tf->dir, "tracing_on", "1");	/* our events are off by now */
	tf->restore_on = 0;
	if (tf->on_fd >= 0) {
		close(tf->on_fd);
		tf->on_fd = -1;
	}
	if (tf->instance) {
		/* The kernel refuses while a reader has a file open; retry briefly. */
		for (i = 0; i < 50 && rmdir(tf->dir) < 0 && errno == EBUSY; i++)
			usleep(20000);
		tf->instance = 0;
	}
	tf->dir[0] = '\0';
}
