// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-log.c --- bootpack-read's logger: /dev/kmsg or stderr, one write(2) per line
 *
 * No stdio: as PID 1 nothing may sit in a buffer across fork() and exec().
 * To /dev/kmsg a line is "<PRI>bootpack-read[PID]: message\n" (what systemd
 * writes before journald runs); if /dev/kmsg cannot be opened (init= with
 * nothing mounted) lines go to /dev/console, else to what fd 2 is (the
 * kernel's console as init), and the reading child may add a private
 * /dev/kmsg node (bp_rlog_use_kmsg_fd()). Logging never fails and never
 * blocks (O_NONBLOCK): a lost message is better than a boot that waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

static int log_fd = -1;		/* stderr, /dev/console or fd 2: "prog[pid]: " lines */
static int log_plain_pid;	/* 1: prefix "prog[pid]: ", 0: "prog: " */
static int kmsg_fd = -1;	/* /dev/kmsg: "<PRI>prog[pid]: " lines */

static int fd_valid(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

void bp_rlog_open(enum bp_log_target t)
{
	bp_rlog_close();
	if (t == BP_LOGT_AUTO)
		t = (getpid() == 1 || !isatty(STDERR_FILENO)) ? BP_LOGT_KMSG : BP_LOGT_STDERR;
	if (t == BP_LOGT_STDERR) {
		log_fd = STDERR_FILENO;
		log_plain_pid = 0;
		return;
	}
	kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		return;
	/* No /dev/kmsg (init= before devtmpfs): the console, else what fd 2 is. */
	log_plain_pid = 1;
	log_fd = open("/dev/console", O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (log_fd < 0 && fd_valid(STDERR_FILENO))
		log_fd = STDERR_FILENO;
}

void bp_rlog_open_fd2(void)
{
	bp_rlog_close();
	log_plain_pid = 1;
	if (fd_valid(STDERR_FILENO))
		log_fd = STDERR_FILENO;
}

int bp_rlog_has_kmsg(void)
{
	return kmsg_fd >= 0;
}

void bp_rlog_use_kmsg_fd(int fd)
{
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = fd;
}

void bp_rlog_close(void)
{
	if (log_fd > STDERR_FILENO)
		close(log_fd);
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	log_fd = kmsg_fd = -1;
}

static void put(int fd, const char *line, size_t n)
{
	while (write(fd, line, n) < 0 && errno == EINTR)
		;
}

void bp_rlog(int pri, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, m, body;

	if (log_fd < 0 && kmsg_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "<%d>%s[%d]: ", pri, BP_READER_PROG, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	body = n;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n >= sizeof(line) - 1)
		n = (int)sizeof(line) - 2;	/* cut a long line, keep the newline */
	line[n++] = '\n';
	if (kmsg_fd >= 0)
		put(kmsg_fd, line, (size_t)n);
	if (log_fd >= 0) {
		/* without "<PRI>", and without "[pid]" for stderr */
		const char *p = strchr(line, '>') + 1;

		if (log_plain_pid) {
			put(log_fd, p, (size_t)(line + n - p));
		} else {
			char head[64];
			int h = snprintf(head, sizeof(head), "%s: ", BP_READER_PROG);

			if (h > 0 && (size_t)h < sizeof(head)) {
				memcpy(line + body - h, head, (size_t)h);
				put(log_fd, line + body - h, (size_t)(n - body + h));
			}
		}
	}
}
