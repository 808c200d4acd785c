// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-bench.c --- bootpack bench (not built yet)
 */
#include "cli.h"

int cmd_bench(int argc, char **argv)
{
	return bp_not_built(argc, argv,
		"Usage:\n"
		" bootpack bench [--json] --trace <trace> <device>\n"
		"\n"
		"Model boot I/O on a 2008 EEE PC flash disk and a 5400 rpm laptop disk,\n"
		"before and after relayout, against the physical limit.\n"
		"\n"
		"For more details see bootpack-bench(8).\n");
}
