// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * show-pack.c --- bp_dump_pack (not built yet)
 */
#include "cli.h"
#include "log.h"
#include "show.h"

int bp_dump_pack(const char *path, const struct bp_show_opts *o)
{
	bp_log_error("'%s' is not built in this version of bootpack yet", "dump");
	return BP_EX_NOTBUILT;
}
