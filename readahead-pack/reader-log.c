// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-log.c --- bootpack-read's logger: /dev/kmsg or stderr, one write(2) per line
 *
 * No stdio: as PID 1 nothing may sit in a buffer across fork() and exec().
 * To /dev/kmsg a line is "<PRI>bootpack-read[PID]: message\n" (what systemd
 * writes before journald runs); if /dev/kmsg cannot be opened /dev/console
 * is tried, then nothing is logged. Logging never fails and never blocks
 * (O_NONBLOCK): a lost message is better than a boot that waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

static int log_fd = -1;
static int log_kmsg;		/* 1: prefix with <PRI>prog[pid] */

void bp_rlog_open(enum bp_log_target t)
{
	bp_rlog_close();
	if (t == BP_LOGT_AUTO)
		t = (getpid() == 1 || !isatty(STDERR_FILENO)) ? BP_LOGT_KMSG : BP_LOGT_STDERR;
	if (t == BP_LOGT_STDERR) {
		log_fd = STDERR_FILENO;
		log_kmsg = 0;
		return;
	}
	log_kmsg = 1;
	log_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (log_fd < 0)
		log_fd = open("/dev/console", O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

int bp_rlog_is_open(void)
{
	return log_fd >= 0;
}

void bp_rlog_use_kmsg_fd(int fd)
{
	bp_rlog_close();
	log_fd = fd;
	log_kmsg = 1;
}

void bp_rlog_close(void)
{
	if (log_fd > STDERR_FILENO)
		close(log_fd);
	log_fd = -1;
}

void bp_rlog(int pri, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, m;

	if (log_fd < 0)
		return;
	if (log_kmsg)
		n = snprintf(line, sizeof(line), "<%d>%s[%d]: ", pri, BP_READER_PROG, (int)getpid());
	else
		n = snprintf(line, sizeof(line), "%s: ", BP_READER_PROG);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n >= sizeof(line) - 1)
		n = (int)sizeof(line) - 2;	/* cut a long line, keep the newline */
	line[n++] = '\n';
	while (write(log_fd, line, (size_t)n) < 0 && errno == EINTR)
		;
}
