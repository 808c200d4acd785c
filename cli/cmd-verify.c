// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-verify.c --- bootpack verify: how contiguous is a trace or pack on disk
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "log.h"
#include "show.h"

static void usage(void)
{
	printf("Usage:\n"
	       " bootpack verify --trace <trace> [options] <device>\n"
	       " bootpack verify --pack <pack> [--trace <trace>] [options] <device>\n"
	       "\n"
	       "Report, read-only, how contiguous the boot set is on the filesystem: bytes in\n"
	       "the region, in order, and discontiguities when read in first-access order.\n"
	       "With --pack, also which entries are stale; with --pack and --trace, every\n"
	       "block the trace read, by owner, as in the pack or cut by its budget (exit 3\n"
	       "if one is neither), and the pack's read requests and seeks against the\n"
	       "minimum its layout allows.\n"
	       "\n"
	       "Options:\n"
	       " -t, --trace <file>      the trace to check\n"
	       " -P, --pack <file>       the pack to check\n"
	       " -J, --json              one JSON object on stdout\n"
	       " -b, --bytes             print sizes in bytes\n"
	       BP_USAGE_COMMON("")
	       "\n"
	       "For more details see bootpack-verify(8).\n");
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "pack", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'J' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		BP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct bp_show_opts o = { 0 };
	const char *trace = NULL, *pack = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "t:P:Jbh" BP_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			trace = optarg;
			break;
		case 'P':
			pack = optarg;
			break;
		case 'J':
			o.json = 1;
			break;
		case 'b':
			o.bytes = 1;
			break;
		BP_CLI_COMMON_CASES(c, usage, "verify");
		}
	}
	if (!trace && !pack) {
		bp_log_error("verify: give --trace, --pack, or both");
		return bp_errtryhelp("verify");
	}
	if (optind != argc - 1) {
		bp_log_error("verify: exactly one device expected");
		return bp_errtryhelp("verify");
	}
	if (!pack)
		return bp_verify_trace(trace, argv[optind], &o);
	return bp_verify_pack(pack, trace, argv[optind], &o);
}
