// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify-pack.c --- bp_verify_pack (not built yet)
 */
#include "cli.h"
#include "log.h"
#include "show.h"

int bp_verify_pack(const char *pack, const char *device, const struct bp_show_opts *o)
{
	bp_log_error("'%s' is not built in this version of bootpack yet", "verify");
	return BP_EX_NOTBUILT;
}
