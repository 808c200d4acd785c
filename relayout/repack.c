// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * repack.c --- after a relayout, write the pack again for the new layout
 *
 * A pack records physical positions; after relayout they changed. So that
 * the pack always describes the current layout, relayout rewrites it: the
 * pack named with --pack, or else the default pack when it exists and
 * belongs to this filesystem (a pack of another filesystem is left alone).
 */
#include <stdio.h>

#include "exitcodes.h"
#include "fsident.h"
#include "log.h"
#include "pack-build.h"
#include "pack-parse.h"
#include "repack.h"
#include "strutils.h"

/* 1 if the pack p is of fs: the one identity rule (fsident.h). */
static int pack_is_of(const struct bp_pack *p, ext2_filsys fs)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	struct bp_err err = { 0 };
	char uuid[BP_UUID_STR_LEN];

	bp_uuid_str(in->uuid, uuid);
	return !bp_fs_check_ident(fs, fs->device_name, "pack", uuid, in->block_size, &err);
}

int bp_relayout_repack(enum bp_repack_mode mode, const char *path, const char *device,
		       const struct bp_trace *t, const struct bp_relayout_report *rl,
		       const struct bp_repack_budget *budget, int quiet)
{
	struct bp_pack_opts po = {
		.budget = budget->automatic ? 0 : budget->size,
		.budget_auto = budget->automatic ? &budget->in : NULL,
		.compress = BP_PACK_COMPRESS_AUTO,
		.compat = BP_PACK_COMPAT_RELAYOUT,
		.meta = BP_PACK_META_TRACE | BP_PACK_META_FILES,
		.moved_from = rl->moved_from,
		.nmoved_from = rl->nmoved_from,
	};
	struct bp_pack_report rep = { 0 };
	struct bp_pack *old = NULL;
	struct bp_err err = { 0 };
	const char *why = NULL;
	ext2_filsys fs = NULL;
	char sz[32], sz2[32];
	errcode_t rc;

	if (mode == BP_REPACK_NEVER)
		return BP_EX_OK;
	/* The default pack: only when there is one, and it is of this filesystem. */
	if (mode == BP_REPACK_AUTO) {
		path = BP_PACK_DEFAULT_PATH;
		if (bp_pack_load_file(path, 0, &old, &why) < 0)
			return BP_EX_OK;
	}
	po.output = path;
	rc = bp_fs_open_ro(device, &fs, &err);
	if (!rc && old && !pack_is_of(old, fs)) {
		bp_pack_free(old);
		ext2fs_close_free(&fs);
		return BP_EX_OK;
	}
	/* no --budget: the old pack's kind of budget stays */
	if (!rc && old && !budget->given) {
		const struct bp_pack_info *oi = bp_pack_info(old);

		if (BP_PACK_BUDGET_BOUND(oi) != BP_BUDGET_GIVEN && budget->have_in) {
			po.budget_auto = &budget->in;
		} else if (BP_PACK_BUDGET_BOUND(oi) == BP_BUDGET_GIVEN) {
			po.budget = oi->budget;
			po.budget_auto = NULL;
		}
	}
	bp_pack_free(old);
	if (!rc)
		rc = bp_pack_build_write(fs, t, &po, &rep, &err);
	if (fs)
		ext2fs_close_free(&fs);
	if (rc) {
		bp_log_error("%s", bp_err_str(&err));
		bp_log_error("relayout: the pack %s was not rewritten and no longer matches %s; "
			     "run 'bootpack pack --meta=files --trace TRACE -o %s %s'",
			     path, device, path, device);
		return BP_EX_STALE;
	}
	if (!quiet)
		printf("%s: pack rewritten for the new layout: %llu entries, %s to read "
		       "(budget %s%s)\n", path, (unsigned long long)rep.nentries,
		       bp_size_human(rep.meta_bytes + rep.file_bytes, sz, sizeof(sz)),
		       po.budget_auto ? "auto, bound by " : "",
		       po.budget_auto ? bp_budget_bound_name(rep.budget_auto.bound) :
		       !rep.budget ? "none" : bp_size_human(rep.budget, sz2, sizeof(sz2)));
	return BP_EX_OK;
}
