// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * preflight.c --- refuse what relayout must not touch, open the filesystem
 *
 * Like resize2fs: a mounted, busy or unclean filesystem, pending journal
 * recovery, orphans, errors, and features whose blocks are not ours to move
 * (bigalloc, shared_blocks, external journal device) are refused, with the
 * command that fixes it. Nothing here writes.
 */
#include <errno.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "fsident.h"
#include "rl-int.h"

errcode_t rl_check_mount(const char *device, struct bp_err *err)
{
	char mtpt[4096];
	int mflags = 0;
	errcode_t rc;

	mtpt[0] = 0;
	rc = ext2fs_check_mount_point(device, &mflags, mtpt, sizeof(mtpt));
	if (rc)
		return bp_err_lib(err, rc, "%s: while checking whether it is mounted", device);
	if (mflags & EXT2_MF_MOUNTED)
		return bp_err_set(err, BP_ET_MOUNTED,
				  "%s: is mounted on %s; relayout works offline only: unmount it "
				  "first (or boot a rescue system)",
				  device, mtpt[0] ? mtpt : "?");
	if (mflags & EXT2_MF_SWAP)
		return bp_err_set(err, BP_ET_BUSY, "%s: is in use as swap space", device);
	if (mflags & EXT2_MF_BUSY)
		return bp_err_set(err, BP_ET_BUSY,
				  "%s: is busy (held open exclusively, e.g. by device-mapper, "
				  "md or a mount in another namespace)",
				  device);
	return 0;
}

errcode_t rl_open(const char *device, uint64_t offset, io_manager io, int rw,
		  ext2_filsys *ret, struct bp_err *err)
{
	struct bp_fsloc loc = { device, offset };
	int flags = EXT2_FLAG_64BITS;
	char opt[64];
	errcode_t rc;

	if (rw)
		flags |= EXT2_FLAG_RW | EXT2_FLAG_EXCLUSIVE;
	/* Relayout writes: its own flags (no SKIP_MMP, checksums checked; fsident.h). */
	rc = ext2fs_open2(device, bp_fsloc_io_options(&loc, opt, sizeof(opt)), flags, 0, 0,
			  io ? io : unix_io_manager, ret);
	if (rc)
		return bp_fs_open_error(device, rc, err);
	(*ret)->flags |= EXT2_FLAG_MASTER_SB_ONLY;
	return 0;
}

errcode_t rl_check_fs(ext2_filsys fs, const char *device, int force, struct bp_err *err)
{
	struct ext2_super_block *sb = fs->super;
	const char *why = NULL;

	if (ext2fs_has_feature_bigalloc(sb))
		return bp_err_set(err, BP_ET_UNSUPPORTED,
				  "%s: uses bigalloc (cluster allocation); relayout cannot move "
				  "blocks inside clusters",
				  device);
	if (ext2fs_has_feature_shared_blocks(sb))
		return bp_err_set(err, BP_ET_UNSUPPORTED,
				  "%s: uses shared_blocks (deduplicated blocks); moving a shared "
				  "block would corrupt its other owners",
				  device);
	if (ext2fs_has_feature_journal_dev(sb))
		return bp_err_set(err, BP_ET_UNSUPPORTED,
				  "%s: is an external journal device, not a filesystem", device);
	if (ext2fs_has_feature_journal_needs_recovery(sb))
		why = "its journal needs recovery";
	else if (sb->s_state & EXT2_ERROR_FS)
		why = "it is marked as having errors";
	else if (!(sb->s_state & EXT2_VALID_FS))
		why = "it was not cleanly unmounted";
	else if (sb->s_last_orphan)
		why = "it has orphan inodes";
	else if (ext2fs_has_feature_orphan_present(sb))
		why = "its orphan file is in use";
	else if (!force && sb->s_lastcheck < sb->s_mtime)
		why = "it was mounted after its last check";
	if (why)
		return bp_err_set(err, BP_ET_NOT_CLEAN,
				  "%s: is not clean: %s; please run 'e2fsck -f %s' first", device,
				  why, device);
	return 0;
}

/* The trace must have been recorded on this filesystem (fsident.h). */
errcode_t rl_check_trace(ext2_filsys fs, const struct bp_trace *t, const char *device,
			     struct bp_err *err)
{
	return bp_fs_check_ident(fs, device, "trace", t->hdr.uuid, t->hdr.block_size, err);
}
