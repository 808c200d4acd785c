// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common.c --- what several verbs do the same way: open a device, load a trace
 */
#include <errno.h>

#include "bp_et.h"
#include "cli.h"
#include "devspec.h"
#include "log.h"
#include "tracefile.h"

int bp_cli_open_dev(const char *spec, struct bp_dev *dev)
{
	struct bp_err err = { 0 };

	if (!bp_dev_resolve_ext(spec, dev, &err))
		return 0;
	bp_dev_free(dev);
	return bp_fail(&err);
}

int bp_cli_load_trace(const char *path, struct bp_trace **ret)
{
	struct bp_err err = { 0 };
	errcode_t rc;

	rc = bp_trace_load(path, ret, &err);
	if (!rc)
		return 0;
	bp_log_error("%s", bp_err_str(&err));
	return rc == ENOMEM ? BP_EX_FAILURE : BP_EX_STALE;
}

int bp_cli_open_dev_trace(const char *spec, const char *trace_path, struct bp_dev *dev,
			  struct bp_trace **ret)
{
	int r = bp_cli_open_dev(spec, dev);

	if (r)
		return r;
	r = bp_cli_load_trace(trace_path, ret);
	if (r)
		bp_dev_free(dev);
	return r;
}
