// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rdinit.c --- start a boot bench reader as an init= wrapper
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rdinit.h"

double rd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void rd_log(const struct rd_opts *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", o->name, msg);
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		dprintf(fd, "<6>%s: %s\n", o->name, msg);
		close(fd);
	}
}

static void exec_init(const char *init, char **argv)
{
	static const char *const fallback[] = { "/sbin/init", "/lib/systemd/systemd", "/bin/sh" };
	size_t i;

	if (init) {
		argv[0] = (char *)init;
		execv(init, argv);
	}
	for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		argv[0] = (char *)fallback[i];
		execv(fallback[i], argv);
	}
	_exit(127);
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
	if (pid == 0)
		return;		/* the reader */
	if (o->no_exec) {
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			exit(1);
		exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	exec_init(init, argv);
}
