// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-verify.c --- bootpack verify (not built yet)
 */
#include "cli.h"

int cmd_verify(int argc, char **argv)
{
	return bp_not_built(argc, argv,
		"Usage:\n"
		" bootpack verify --trace <trace> [--json] <device>\n"
		" bootpack verify --pack <pack> [--json] <device>\n"
		"\n"
		"Report how contiguous the boot set is on the filesystem (read-only).\n"
		"\n"
		"For more details see bootpack-verify(8).\n");
}
