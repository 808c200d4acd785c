// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * common.c --- what several verbs do the same way: open a device, load a trace
 */
#include <errno.h>
#include <inttypes.h>

#include "bp_et.h"
#include "cli.h"
#include "devspec.h"
#include "fsident.h"
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

int bp_cli_upgrade_trace(struct bp_trace *t, const char *trace_path, const char *devpath)
{
	struct bp_err err = { 0 };
	ext2_filsys fs = NULL;
	uint64_t nfree = 0;
	errcode_t rc;

	if (t->version >= 2)
		return 0;
	/* another filesystem, or none: the verb refuses it later, in its own words */
	if (bp_fs_open_ro(devpath, &fs, &err))
		return 0;
	if (bp_fs_check_ident(fs, devpath, "trace", t->hdr.uuid, t->hdr.block_size, &err)) {
		ext2fs_close_free(&fs);
		return 0;
	}
	rc = bp_trace_upgrade(fs, t, &nfree, &err);
	ext2fs_close_free(&fs);
	if (rc) {
		bp_log_error("%s", bp_err_str(&err));
		return BP_EX_FAILURE;
	}
	if (nfree)
		bp_log_warn("%s: a version 1 trace, and %" PRIu64 " of the metadata blocks it "
			    "read are free on %s now: the filesystem was relaid out since, and "
			    "the directories the boot read are no longer where the trace says; "
			    "take a new trace (bootpack trace --boot, or --import of the boot's "
			    "trace_event= text)", trace_path, nfree, devpath);
	else
		bp_log_debug("%s: a version 1 trace: its metadata is named by what owns it on "
			    "%s now, right unless the filesystem was relaid out since the trace "
			    "was taken (then take a new trace)", trace_path, devpath);
	return 0;
}

int bp_cli_open_dev_trace(const char *spec, const char *trace_path, struct bp_dev *dev,
			  struct bp_trace **ret)
{
	int r = bp_cli_open_dev(spec, dev);

	if (r)
		return r;
	r = bp_cli_load_trace(trace_path, ret);
	if (!r) {
		r = bp_cli_upgrade_trace(*ret, trace_path, dev->path);
		if (r) {
			bp_trace_free(*ret);
			*ret = NULL;
		}
	}
	if (r)
		bp_dev_free(dev);
	return r;
}
