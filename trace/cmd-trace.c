// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-trace.c --- bootpack trace (not built yet)
 */
#include "cli.h"

int cmd_trace(int argc, char **argv)
{
	return bp_not_built(argc, argv,
		"Usage:\n"
		" bootpack trace -o <file> [--device <dev>] -- <command> [<args>...]\n"
		" bootpack trace --from-boot -o <file> --device <dev>\n"
		" bootpack trace --import <text> -o <file> --device <dev> [--dev <maj:min>]\n"
		" bootpack trace --merge <trace>... -o <file>\n"
		" bootpack trace --setup [--install]\n"
		"\n"
		"Record which file pages and metadata blocks are read, in first-access order.\n"
		"\n"
		"For more details see bootpack-trace(8).\n");
}
