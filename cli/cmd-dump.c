// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-dump.c --- bootpack dump (not built yet)
 */
#include "cli.h"

int cmd_dump(int argc, char **argv)
{
	return bp_not_built(argc, argv,
		"Usage:\n"
		" bootpack dump [--json] [--sort=time|disk|size] <trace|pack>\n"
		"\n"
		"Show a trace or a pack: per-file rows and a summary.\n"
		"\n"
		"For more details see bootpack-dump(8).\n");
}
