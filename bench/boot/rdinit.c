// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rdinit.c --- start a boot bench reader as an init= wrapper
 */
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "c.h"
#include "rdinit.h"

double rd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void rd_log(const struct rd_opts *o, const char *fmt, ...)
{
	char msg[512], line[600];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", o->name, msg);
	/* One write(2) per kernel log record. */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	n = snprintf(line, sizeof(line), "<6>%s: %s\n", o->name, msg);
	if (fd >= 0 && n > 0 && write(fd, line, (size_t)n) < 0)
		fprintf(stderr, "%s: /dev/kmsg: write failed\n", o->name);
	if (fd >= 0)
		close(fd);
}

static uint64_t io_chunk(const struct rd_opts *o)
{
	static uint64_t chunk;
	char p[128], buf[32];
	struct stat st;
	ssize_t n;
	int fd = -1;

	if (chunk)
		return chunk;
	chunk = 128 << 10;
	if (stat(o->root && *o->root ? o->root : "/", &st) < 0)
		return chunk;
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/queue/max_sectors_kb", major(st.st_dev),
		 minor(st.st_dev));
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/../queue/max_sectors_kb",
			 major(st.st_dev), minor(st.st_dev));
		fd = open(p, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return chunk;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		if (strtoull(buf, NULL, 10) >= 4)
			chunk = strtoull(buf, NULL, 10) << 10;
	}
	return chunk;
}

int rd_readahead(const struct rd_opts *o, int fd, uint64_t off, uint64_t len)
{
	uint64_t chunk = io_chunk(o), n;
	int rc = 0;

	while (len) {
		n = len < chunk ? len : chunk;
		if (readahead(fd, (off64_t)off, n) < 0)
			rc = -1;
		off += n;
		len -= n;
	}
	return rc;
}

static void exec_init(const char *init, char **argv)
{
	static const char *const fallback[] = { "/sbin/init", "/lib/systemd/systemd", "/bin/sh" };
	size_t i;

	if (init) {
		argv[0] = (char *)init;
		execv(init, argv);
	}
	for (i = 0; i < ARRAY_SIZE(fallback); i++) {
		argv[0] = (char *)fallback[i];
		execv(fallback[i], argv);
	}
	_exit(127);
}

/*
 * A bare init has nothing mounted: no /dev (so no /dev/kmsg, no node for
 * the root's disk), no /sys. The reader mounts devtmpfs on /dev and sysfs
 * on /sys in a private mount namespace of its own, which the booting
 * system never sees; with no devtmpfs, a tmpfs with a /dev/kmsg node.
 */
static void private_mounts(void)
{
	int dev = access("/dev/kmsg", W_OK) != 0, sys = access("/sys/dev/block", F_OK) != 0;

	if (!dev && !sys)
		return;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return;
	if (dev && mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID | MS_NOEXEC, NULL) < 0 &&
	    mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") == 0)
		mknod("/dev/kmsg", S_IFCHR | 0600, makedev(1, 11));
	if (sys)
		mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NOEXEC | MS_NODEV, NULL);
}

void rd_start(int argc, char **argv, struct rd_opts *o)
{
	static const struct option longopts[] = {
		{ "list", required_argument, NULL, 'l' },
		{ "root", required_argument, NULL, 'r' },
		{ "no-exec", no_argument, NULL, 'n' },
		{ "init", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *init = getenv("bench.init");
	int pid1 = getpid() == 1, c, status;
	pid_t pid;

	opterr = !pid1;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->list = optarg;
			break;
		case 'r':
			o->root = optarg;
			break;
		case 'n':
			o->no_exec = !pid1;
			break;
		case 'i':
			init = optarg;
			break;
		default:
			if (!pid1) {
				fprintf(stderr, "usage: %s [--list FILE] [--root DIR] [--no-exec] "
					"[--init PATH] [--] [INIT-ARGS...]\n", o->name);
				exit(2);
			}
		}
	}
	/* INIT-ARGS start at argv[optind]; argv[optind - 1] becomes init's argv[0]. */
	argv += optind - 1;

	pid = fork();
	if (pid == 0) {
		private_mounts();
		return;		/* the reader */
	}
	if (o->no_exec) {
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			exit(1);
		exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	exec_init(init, argv);
}
