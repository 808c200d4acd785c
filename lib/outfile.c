// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * outfile.c --- checked, atomic replacement of the files the user names,
 * and the plain atomic replacement of bootpack's own state files
 *
 * The policy is in include/outfile.h. Temporary files are flock()ed by
 * their writer for their whole life, which tells a dead writer's leftover
 * (unlocked) from a live one's without trusting process ids.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bp_et.h"
#include "c.h"
#include "outfile.h"

#define TMP_SUFFIX ".tmp-"
#define TMP_RANDOM 6
#define MAX_SLOTS 8

/* --- fatal signals: remove the temporary files, then die as before ------- */

static const int fatal_sigs[] = { SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,
				  SIGALRM, SIGUSR1, SIGUSR2, SIGXFSZ, SIGXCPU };
static struct sigaction saved[ARRAY_SIZE(fatal_sigs)];
static char *volatile slots[MAX_SLOTS];
static int nactive;

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(fatal_sigs); i++)
		if (fatal_sigs[i] == sig)
			break;
	if (i < ARRAY_SIZE(fatal_sigs) && saved[i].sa_handler != SIG_DFL) {
		/* The verb handles it and goes on; its own error paths clean up. */
		if (saved[i].sa_flags & SA_SIGINFO)
			saved[i].sa_sigaction(sig, si, uc);
		else if (saved[i].sa_handler != SIG_IGN)
			saved[i].sa_handler(sig);
		errno = saved_errno;
		return;
	}
	for (j = 0; j < MAX_SLOTS; j++)
		if (slots[j])
			unlink(slots[j]);
	if (i < ARRAY_SIZE(fatal_sigs))
		sigaction(sig, &saved[i], NULL);
	raise(sig);	/* delivered, with the default action, when we return */
	errno = saved_errno;
}

static void block_fatal(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(fatal_sigs); i++)
		sigaddset(&set, fatal_sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* Called with the fatal signals blocked. */
static int slot_take(char *tmp)
{
	struct sigaction sa;
	size_t i;
	int s;

	for (s = 0; s < MAX_SLOTS; s++)
		if (!slots[s])
			break;
	if (s == MAX_SLOTS)
		return -1;
	if (nactive++ == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_fatal;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		for (i = 0; i < ARRAY_SIZE(fatal_sigs); i++) {
			sigaction(fatal_sigs[i], NULL, &saved[i]);
			if (saved[i].sa_handler != SIG_IGN)
				sigaction(fatal_sigs[i], &sa, NULL);
		}
	}
	slots[s] = tmp;
	return s;
}

static void slot_release(int s)
{
	sigset_t old;
	size_t i;

	if (s < 0)
		return;
	block_fatal(&old);
	slots[s] = NULL;
	if (--nactive == 0)
		for (i = 0; i < ARRAY_SIZE(fatal_sigs); i++)
			if (saved[i].sa_handler != SIG_IGN)
				sigaction(fatal_sigs[i], &saved[i], NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* --- checks ----------------------------------------------------------------- */

int bp_path_same(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!a || !b || stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The directory part of path ("." or "/" where it has none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* Make a rename in path's directory durable (best effort). */
static void sync_dir_of(const char *path)
{
	char *dir = dir_of(path);
	int dfd;

	if (!dir)
		return;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
}

static int sticky_public(const struct stat *d)
{
	return (d->st_mode & S_ISVTX) && (d->st_mode & S_IWOTH);
}

struct target {
	char *path;	/* the file to replace or create */
	char *dir;
	int exists;
	struct stat st;
};

static void target_free(struct target *t)
{
	free(t->path);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device node";
	if (S_ISBLK(m))
		return "a block device node";
	if (S_ISFIFO(m))
		return "a FIFO (named pipe)";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static errcode_t resolve(const char *what, const char *path, struct target *t, struct bp_err *err)
{
	struct stat lst, dst;
	errcode_t rc;

	memset(t, 0, sizeof(*t));
	if (!path || !*path)
		return bp_err_set(err, BP_ET_BAD_OUTPUT, "empty file name for %s", what);
	if (lstat(path, &lst) < 0) {
		if (errno != ENOENT)
			return bp_err_set(err, BP_ET_BAD_OUTPUT, "%s: cannot use it for %s: %s", path,
					  what, strerror(errno));
		t->path = strdup(path);
	} else if (S_ISLNK(lst.st_mode)) {
		t->path = realpath(path, NULL);
		if (!t->path && errno == ENOENT)
			return bp_err_set(err, BP_ET_BAD_OUTPUT,
					  "%s: is a dangling symbolic link; name the file itself "
					  "for %s", path, what);
		if (!t->path)
			return bp_err_set(err, BP_ET_BAD_OUTPUT, "%s: cannot follow the link: %s",
					  path, strerror(errno));
		/* fs.protected_symlinks: never follow a stranger's link in /tmp. */
		t->dir = dir_of(path);
		if (t->dir && stat(t->dir, &dst) == 0 && sticky_public(&dst) &&
		    lst.st_uid != geteuid() && lst.st_uid != dst.st_uid) {
			rc = bp_err_set(err, BP_ET_BAD_OUTPUT,
					"%s: is a symbolic link of user %u in the sticky directory "
					"%s; bootpack does not follow it: remove it or choose "
					"another name for %s",
					path, (unsigned int)lst.st_uid, t->dir, what);
			target_free(t);
			return rc;
		}
		free(t->dir);
		t->dir = NULL;
	} else {
		t->path = strdup(path);
	}
	if (!t->path)
		return bp_err_set(err, ENOMEM, "out of memory");
	t->dir = dir_of(t->path);
	if (!t->dir) {
		target_free(t);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	if (stat(t->path, &t->st) == 0) {
		t->exists = 1;
		if (!S_ISREG(t->st.st_mode)) {
			rc = bp_err_set(err, BP_ET_BAD_OUTPUT,
					"%s: is %s; bootpack writes %s only to a regular file or a "
					"new name, and never replaces anything else: choose another "
					"name",
					path, kind_of(t->st.st_mode), what);
			target_free(t);
			return rc;
		}
	}
	if (stat(t->dir, &dst) < 0 || !S_ISDIR(dst.st_mode)) {
		rc = bp_err_set(err, BP_ET_BAD_OUTPUT,
				"%s: the directory %s %s; create it first or choose another "
				"name for %s",
				path, t->dir, errno == ENOENT ? "does not exist" : "is not a directory",
				what);
		target_free(t);
		return rc;
	}
	if (access(t->dir, W_OK | X_OK) < 0) {
		rc = bp_err_set(err, BP_ET_BAD_OUTPUT, "%s: cannot write %s in %s: %s", path, what,
				t->dir, strerror(errno));
		target_free(t);
		return rc;
	}
	/* fs.protected_regular: never replace a stranger's file in /tmp. */
	if (t->exists && t->st.st_uid != geteuid() && sticky_public(&dst)) {
		rc = bp_err_set(err, BP_ET_BAD_OUTPUT,
				"%s: belongs to user %u in the sticky directory %s; bootpack does "
				"not replace it: remove it or choose another name for %s",
				path, (unsigned int)t->st.st_uid, t->dir, what);
		target_free(t);
		return rc;
	}
	return 0;
}

errcode_t bp_outfile_check(const char *what, const char *path, const struct bp_path_ref *inputs,
			   size_t ninputs, struct bp_err *err)
{
	struct target t;
	errcode_t rc;
	size_t i;

	rc = resolve(what, path, &t, err);
	if (rc)
		return rc;
	for (i = 0; t.exists && i < ninputs; i++) {
		if (!inputs[i].path || !bp_path_same(t.path, inputs[i].path))
			continue;
		rc = bp_err_set(err, BP_ET_PATH_CONFLICT,
				"%s: is the same file as the %s %s; writing %s there would "
				"destroy it: choose another name",
				path, inputs[i].what, inputs[i].path, what);
		break;
	}
	target_free(&t);
	return rc;
}

/* Temporary files of this name whose writer is gone (not flock()ed): remove them. */
static void remove_dead_tmps(const char *dir, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t bl = strlen(base), sl = strlen(TMP_SUFFIX);
	struct stat st, st2;
	struct dirent *de;
	DIR *d;
	int fd;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		if (strncmp(n, base, bl) || strncmp(n + bl, TMP_SUFFIX, sl) ||
		    strlen(n + bl + sl) != TMP_RANDOM)
			continue;
		fd = openat(dirfd(d), n, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    fstatat(dirfd(d), n, &st2, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st2.st_dev == st.st_dev && st2.st_ino == st.st_ino)
			unlinkat(dirfd(d), n, 0);
		close(fd);
	}
	closedir(d);
}

errcode_t bp_outfile_open(struct bp_outfile *of, const char *what, const char *path,
			  struct bp_err *err)
{
	struct target t;
	struct stat st;
	sigset_t old;
	errcode_t rc;
	int tries;

	memset(of, 0, sizeof(*of));
	of->fd = -1;
	of->slot = -1;
	rc = resolve(what, path, &t, err);
	if (rc)
		return rc;
	remove_dead_tmps(t.dir, t.path);
	of->mode = 0644;
	if (t.exists) {
		of->mode = t.st.st_mode & 0777;
		of->keep_owner = t.st.st_uid != geteuid() || t.st.st_gid != getegid();
		of->uid = t.st.st_uid;
		of->gid = t.st.st_gid;
	}
	of->path = t.path;
	t.path = NULL;
	target_free(&t);
	for (tries = 0; tries < 8; tries++) {
		if (asprintf(&of->tmp, "%s" TMP_SUFFIX "XXXXXX", of->path) < 0) {
			of->tmp = NULL;
			rc = bp_err_set(err, ENOMEM, "out of memory");
			goto fail;
		}
		block_fatal(&old);
		of->fd = mkostemp(of->tmp, O_CLOEXEC);
		if (of->fd >= 0)
			of->slot = slot_take(of->tmp);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (of->fd < 0) {
			rc = bp_err_set(err, BP_ET_BAD_OUTPUT, "%s: cannot create %s: %s", path,
					of->tmp, strerror(errno));
			goto fail;
		}
		/* Held until the rename: tells the next run we are alive. */
		if (flock(of->fd, LOCK_EX) < 0 || fstat(of->fd, &st) < 0) {
			rc = bp_err_set(err, errno, "%s: cannot lock %s: %s", path, of->tmp,
					strerror(errno));
			goto fail;
		}
		if (st.st_nlink)
			return 0;
		/* Another run took it for a dead one between mkostemp and flock. */
		close(of->fd);
		of->fd = -1;
		slot_release(of->slot);
		of->slot = -1;
		free(of->tmp);
		of->tmp = NULL;
	}
	rc = bp_err_set(err, EAGAIN, "%s: cannot create a temporary file", path);
fail:
	bp_outfile_abort(of);
	return rc;
}

errcode_t bp_outfile_commit(struct bp_outfile *of, struct bp_err *err)
{
	errcode_t rc = 0;

	if (of->keep_owner && fchown(of->fd, of->uid, of->gid) < 0 && errno != EPERM)
		rc = errno;
	if (!rc && fchmod(of->fd, of->mode) < 0)
		rc = errno;
	if (!rc && fsync(of->fd) < 0)
		rc = errno;
	if (rc) {
		rc = bp_err_set(err, rc, "%s: cannot write %s: %s", of->path, of->tmp,
				strerror((int)rc));
		bp_outfile_abort(of);
		return rc;
	}
	if (rename(of->tmp, of->path) < 0) {
		rc = bp_err_set(err, errno, "%s: cannot rename %s to it: %s", of->path, of->tmp,
				strerror(errno));
		bp_outfile_abort(of);
		return rc;
	}
	slot_release(of->slot);
	of->slot = -1;
	free(of->tmp);
	of->tmp = NULL;
	if (close(of->fd) < 0 && errno != EINTR)
		rc = bp_err_set(err, errno, "%s: %s", of->path, strerror(errno));
	of->fd = -1;
	sync_dir_of(of->path);
	free(of->path);
	of->path = NULL;
	return rc;
}

void bp_outfile_abort(struct bp_outfile *of)
{
	if (of->tmp)
		unlink(of->tmp);
	slot_release(of->slot);
	of->slot = -1;
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	free(of->tmp);
	of->tmp = NULL;
	free(of->path);
	of->path = NULL;
}

errcode_t bp_statefile_write(const char *path, bp_statefile_fill_fn fill, const void *priv,
			     struct bp_err *err)
{
	char tmp[PATH_MAX + 8];
	int fd, ok;
	FILE *fp;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return bp_err_set(err, ENAMETOOLONG, "%s: %s", path, strerror(ENAMETOOLONG));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return bp_err_set(err, errno, "%s: cannot write: %s", tmp, strerror(errno));
	fp = fdopen(fd, "w");
	if (!fp) {
		int e = errno;

		close(fd);
		unlink(tmp);
		return bp_err_set(err, e, "%s: %s", tmp, strerror(e));
	}
	fill(fp, priv);
	ok = fflush(fp) == 0 && fsync(fd) == 0;
	if (fclose(fp) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return bp_err_set(err, e, "%s: cannot write: %s", path, strerror(e));
	}
	sync_dir_of(path);
	return 0;
}
