/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsfit.h --- the filesystem fits inside what holds it: the one container
 * preflight of every writer
 *
 * A filesystem says how large it is (s_blocks_count x block size); what
 * holds it says how many bytes it has: a block device or a loop device
 * (BLKGETSIZE64), a partition inside an image (its extent in the partition
 * table), a plain image file (st_size), each from the filesystem's offset
 * on. A filesystem larger than its container (a partition shrunk under it,
 * an image cut short, a builder's mistake, a hostile image) would have its
 * writer put blocks past the end: into the next partition of an image, or
 * off the end of a device. relayout (bootpack relayout, the loop's boot 2
 * through it) and bootpack image refuse it before anything is written, with
 * BP_ET_FS_TOO_BIG (exit status 4).
 */
#ifndef BP_FSFIT_H
#define BP_FSFIT_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "fsident.h"

/* What holds a filesystem (the word the refusal uses). */
enum bp_fs_room_kind {
	BP_ROOM_UNKNOWN = 0,	/* neither a block device nor a regular file: not checked */
	BP_ROOM_DEVICE,		/* BLKGETSIZE64 */
	BP_ROOM_FILE,		/* st_size */
	BP_ROOM_PARTITION,	/* the partition table's extent (limit), inside the file */
};

/*
 * The bytes from loc->offset to the end of what holds the filesystem at
 * loc: the block device's or the file's size less the offset (0 when the
 * offset is past the end), and at most limit when limit is not 0 (a
 * partition's extent; *kind then BP_ROOM_PARTITION unless the file ends
 * before the partition does). *room UINT64_MAX with BP_ROOM_UNKNOWN for
 * anything else. Errors: the errno of stat or the ioctl, err naming the path.
 */
errcode_t bp_fs_room(const struct bp_fsloc *loc, uint64_t limit, uint64_t *room,
		     enum bp_fs_room_kind *kind, struct bp_err *err);

/*
 * 0 when fs, opened at loc, fits: blocks_count x block size <= bp_fs_room();
 * *room_blocks (may be NULL): the whole blocks the container holds
 * (UINT64_MAX: unknown). Else BP_ET_FS_TOO_BIG, err naming both sizes and
 * the fix ("grow the partition or resize2fs the filesystem first").
 */
errcode_t bp_fs_check_fits(ext2_filsys fs, const struct bp_fsloc *loc, uint64_t limit,
			   uint64_t *room_blocks, struct bp_err *err);

#endif /* BP_FSFIT_H */
