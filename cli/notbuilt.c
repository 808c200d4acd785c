// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notbuilt.c --- the honest answer of a verb that does not exist yet
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"

int bp_not_built(int argc, char **argv, const char *usage_text)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage_text, stdout);
			return BP_EX_OK;
		}
	}
	bp_log_error("'%s' is not built in this version of bootpack yet", argv[0]);
	return BP_EX_NOTBUILT;
}
