// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-dump.c --- bootpack dump: show a trace or a pack
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "show.h"

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack dump [options] <trace|pack>\n"
	       "\n"
	       "Show a trace or a pack: one row per file and a summary.\n"
	       "\n"
	       "Options:\n"
	       " -J, --json              one JSON object on stdout\n"
	       "     --sort=<key>        order rows by time (first access), disk (physical\n"
	       "                         position) or size\n"
	       " -b, --bytes             print sizes in bytes\n"
	       BP_USAGE_COMMON("")
	       "\n"
	       "For more details see bootpack-dump(8).\n");
}

int bp_parse_sort(const char *arg, enum bp_sort *sort)
{
	if (strcmp(arg, "time") == 0)
		*sort = BP_SORT_TIME;
	else if (strcmp(arg, "disk") == 0)
		*sort = BP_SORT_DISK;
	else if (strcmp(arg, "size") == 0)
		*sort = BP_SORT_SIZE;
	else
		return -EINVAL;
	return 0;
}

/* 1 if the file starts with the trace magic, 0 if not, -errno on error. */
static int is_trace(const char *path)
{
	static const char magic[] = "bootpack-trace ";
	char buf[sizeof(magic) - 1];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(buf) && memcmp(buf, magic, sizeof(buf)) == 0;
}

int cmd_dump(int argc, char **argv)
{
	enum { OPT_SORT = OPT_COMMON_BASE };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "bytes", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bp_show_opts o = { 0 };
	int c, t;

	while ((c = getopt_long(argc, argv, "Jbh" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			o.json = 1;
			break;
		case 'b':
			o.bytes = 1;
			break;
		case OPT_SORT:
			if (bp_parse_sort(optarg, &o.sort) < 0) {
				bp_log_error("dump: unknown sort key '%s' (use time, disk or size)",
					     optarg);
				return bp_errtryhelp("dump");
			}
			break;
		BP_CLI_COMMON_CASES(c, usage, "dump");
		}
	}
	if (optind != argc - 1) {
		bp_log_error("dump: exactly one trace or pack file expected");
		return bp_errtryhelp("dump");
	}
	t = is_trace(argv[optind]);
	if (t < 0) {
		bp_log_error("%s: %s", argv[optind], strerror(-t));
		return t == -ENOENT ? BP_EX_STALE : BP_EX_FAILURE;	/* missing: 3 */
	}
	return t ? bp_dump_trace(argv[optind], &o) : bp_dump_pack(argv[optind], &o);
}
