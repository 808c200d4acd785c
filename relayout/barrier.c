// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * barrier.c --- the durability points of a relayout (B0, B1, B2)
 *
 * B0 marks the filesystem "in progress" (EXT2_ERROR_FS) with one 1024-byte
 * superblock write, alone, made durable. B1 makes copies and allocations
 * durable: block bitmaps, flush, primary group descriptors, flush; the
 * superblock is not touched. B2 is a flush after the commit writes. Only
 * io_channel_flush() orders writes (doc/relayout-safety.md §4.3, §4.7);
 * ext2fs_flush() is never used as a barrier.
 */
#include <ext2fs/ext2fs.h>

#include "rl-int.h"

errcode_t rl_barrier_b0(ext2_filsys fs, struct bp_relayout_report *rep)
{
	errcode_t rc;

	/* Never let the library write the superblock in pieces (write_byte). */
	ext2fs_free_mem(&fs->orig_super);
	fs->super->s_state |= EXT2_ERROR_FS;
	rc = rl_write_super(fs, rep);
	if (!rc)
		rc = io_channel_flush(fs->io);
	rep->barriers++;
	return rc;
}

/* The primary copy of the group descriptors only (backups stay as they were). */
static errcode_t write_primary_gdt(ext2_filsys fs, struct bp_relayout_report *rep)
{
	unsigned int per = EXT2_DESC_PER_BLOCK(fs->super);
	dgrp_t g;
	errcode_t rc;

	for (g = 0; g < fs->group_desc_count; g++) {
		blk64_t old_desc = 0, new_desc = 0;

		if (g && !ext2fs_has_feature_meta_bg(fs->super))
			break;
		if (g && g % per)
			continue;
		rc = ext2fs_super_and_bgd_loc2(fs, g, NULL, &old_desc, &new_desc, NULL);
		if (rc)
			return rc;
		if (g == 0 && old_desc) {
			blk64_t n = fs->desc_blocks;

			if (ext2fs_has_feature_meta_bg(fs->super))
				n = fs->super->s_first_meta_bg;
			if (n > fs->desc_blocks)
				n = fs->desc_blocks;
			if (n) {
				rc = io_channel_write_blk64(fs->io, old_desc, (int)n,
							    fs->group_desc);
				rep->writes++;
				if (rc)
					return rc;
			}
		}
		if (new_desc) {
			rc = io_channel_write_blk64(fs->io, new_desc, 1,
						    (char *)fs->group_desc +
							    (size_t)(g / per) * fs->blocksize);
			rep->writes++;
			if (rc)
				return rc;
		}
	}
	return 0;
}

errcode_t rl_barrier_b1(ext2_filsys fs, struct bp_relayout_report *rep)
{
	errcode_t rc;

	rc = ext2fs_write_block_bitmap(fs);
	rep->writes++;
	if (!rc)
		rc = io_channel_flush(fs->io);
	rep->barriers++;
	if (!rc)
		rc = write_primary_gdt(fs, rep);
	if (!rc)
		rc = io_channel_flush(fs->io);
	rep->barriers++;
	return rc;
}

/*
 * The end: bitmaps and descriptors durable (B1), then the superblock that
 * clears EXT2_ERROR_FS, then a flush. The filesystem is freed without
 * ext2fs_close(), which would write the superblock a third time (it updates
 * s_kbytes_written) in the library's own way.
 */
errcode_t rl_finish(ext2_filsys fs, struct bp_relayout_report *rep)
{
	errcode_t rc;

	rc = rl_barrier_b1(fs, rep);
	if (rc)
		goto out;
	fs->super->s_state &= ~EXT2_ERROR_FS;
	rc = rl_write_super(fs, rep);
	if (!rc)
		rc = io_channel_flush(fs->io);
	rep->barriers++;
	if (!rc && ext2fs_has_feature_mmp(fs->super))
		rc = ext2fs_mmp_stop(fs);
out:
	fs->flags &= ~(EXT2_FLAG_DIRTY | EXT2_FLAG_BB_DIRTY | EXT2_FLAG_IB_DIRTY);
	ext2fs_free(fs);
	return rc;
}

errcode_t rl_barrier_b2(ext2_filsys fs, struct bp_relayout_report *rep)
{
	rep->barriers++;
	return io_channel_flush(fs->io);
}
