// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify-trace.c --- bp_verify_trace (not built yet)
 */
#include "cli.h"
#include "log.h"
#include "show.h"

int bp_verify_trace(const char *trace, const char *device, const struct bp_show_opts *o)
{
	bp_log_error("'%s' is not built in this version of bootpack yet", "verify");
	return BP_EX_NOTBUILT;
}
