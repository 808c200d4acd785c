// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-pack.c --- bootpack pack (not built yet)
 */
#include "cli.h"

int cmd_pack(int argc, char **argv)
{
	return bp_not_built(argc, argv,
		"Usage:\n"
		" bootpack pack --trace <trace> [--budget <size>] -o <pack> <device>\n"
		"\n"
		"Write the readahead pack that bootpack-read streams at boot.\n"
		"\n"
		"For more details see bootpack-pack(8).\n");
}
