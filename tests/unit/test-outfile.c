// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-outfile.c --- temporary files of lib/outfile.c: removed on a fatal
 * signal, kept for a verb that handles the signal itself, and a dead
 * writer's leftover removed by the next writer while a live one's stays;
 * bootpack's own state files replaced whole, never through a link
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bp_et.h"
#include "outfile.h"
#include "unit.h"

static char dir[] = "/tmp/bp-test-outfile.XXXXXX";

/* Files in dir whose name starts with prefix. */
static int count(const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

static volatile sig_atomic_t handled;

static void on_term(int sig)
{
	handled = sig;
}

/* A child opens an output, then gets sig: how did it end? */
static int child(const char *path, int sig, int own_handler)
{
	struct bp_outfile of;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (own_handler)
			signal(sig, on_term);
		if (bp_outfile_open(&of, "the test file", path, NULL))
			_exit(2);
		if (write(of.fd, "x", 1) != 1)
			_exit(3);
		raise(sig);
		if (!handled)
			_exit(4);
		bp_outfile_abort(&of);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return status;
}

static void fill_text(FILE *fp, const void *priv)
{
	fputs(priv, fp);
}

/* bp_statefile_write(): the whole new content or the old, never through a link. */
static void test_statefile(void)
{
	char path[256], tmp[300], other[256], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/state", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(other, sizeof(other), "%s/other", dir);
	CHECK(bp_statefile_write(path, fill_text, "one\n", NULL) == 0);
	CHECK(bp_statefile_write(path, fill_text, "two\n", NULL) == 0);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	CHECK(n == 4 && !memcmp(buf, "two\n", 4));
	if (fd >= 0)
		close(fd);
	CHECK(count("state.") == 0);

	/* A symbolic link where the temporary file goes: refused, its target untouched. */
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && write(fd, "keep", 4) == 4);
	if (fd >= 0)
		close(fd);
	CHECK(symlink(other, tmp) == 0);
	CHECK(bp_statefile_write(path, fill_text, "three\n", NULL) == ELOOP);
	fd = open(other, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	CHECK(n == 4 && !memcmp(buf, "keep", 4));
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	CHECK(n == 4 && !memcmp(buf, "two\n", 4));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	unlink(other);
	unlink(path);
}

int main(void)
{
	struct bp_outfile of;
	char path[256], stale[300];
	int status, fd;

	add_error_table(&et_bp_error_table);
	if (!mkdtemp(dir))
		return 99;
	snprintf(path, sizeof(path), "%s/out", dir);

	/* Default disposition: the temporary file goes, the process dies of the signal. */
	status = child(path, SIGTERM, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	CHECK(count("out.tmp-") == 0);
	status = child(path, SIGPIPE, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE);
	CHECK(count("out.tmp-") == 0);
	/* The verb's own handler runs; the verb cleans up on its own path. */
	status = child(path, SIGTERM, 1);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(count("out.tmp-") == 0);
	CHECK(count("out") == 0);

	/* A dead writer's leftover (not locked) goes; a live one's (locked) stays. */
	snprintf(stale, sizeof(stale), "%s/out.tmp-AbC123", dir);
	fd = open(stale, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	close(fd);
	snprintf(stale, sizeof(stale), "%s/out.tmp-LiVe12", dir);
	fd = open(stale, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
	CHECK(count("out.tmp-") == 2);
	CHECK(bp_outfile_open(&of, "the test file", path, NULL) == 0);
	CHECK(count("out.tmp-") == 2);	/* ours and the live one */
	CHECK(write(of.fd, "ok\n", 3) == 3);
	CHECK(bp_outfile_commit(&of, NULL) == 0);
	CHECK(count("out.tmp-") == 1);
	CHECK(access(stale, F_OK) == 0);
	close(fd);
	unlink(stale);
	unlink(path);
	test_statefile();
	CHECK(rmdir(dir) == 0);
	return unit_exit();
}
