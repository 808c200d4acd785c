/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fileid.h --- the one "is this still the same file?" rule (header only)
 *
 * A file recorded in a trace or a pack is the same file now when its
 * inode number, generation, size and mtime all equal the recorded ones;
 * the mtime's nanoseconds count only when both sides have them (a pack
 * with BP_PACK_COMPAT_MTIME_NSEC; a trace records seconds). The checks
 * run in that order, so the first difference names the change.
 *
 * Header only, without libext2fs: bootpack-read (static) applies it to
 * fstat() and FS_IOC_GETVERSION; every other stage fills bp_file_id from
 * the inode with bp_ext2_file_id() (ext2file.h).
 */
#ifndef BP_FILEID_H
#define BP_FILEID_H

#include <stdint.h>

struct bp_file_id {
	uint64_t ino;
	uint32_t generation;
	uint64_t size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;	/* 0 where the inode has no i_mtime_extra */
};

/* What differs, the first in rule order; BP_FILE_SAME when nothing does. */
enum bp_file_change {
	BP_FILE_SAME = 0,
	BP_FILE_INODE,
	BP_FILE_GENERATION,
	BP_FILE_SIZE,
	BP_FILE_MTIME,
};

#define BP_FILE_CMP_NSEC	0x1	/* both sides have mtime nanoseconds: compare them */
#define BP_FILE_CMP_NO_GEN	0x2	/* the generation of now is unknown: not compared */

static inline enum bp_file_change bp_file_compare(const struct bp_file_id *now,
						  const struct bp_file_id *then, unsigned int how)
{
	if (now->ino != then->ino)
		return BP_FILE_INODE;
	if (!(how & BP_FILE_CMP_NO_GEN) && now->generation != then->generation)
		return BP_FILE_GENERATION;
	if (now->size != then->size)
		return BP_FILE_SIZE;
	if (now->mtime_sec != then->mtime_sec)
		return BP_FILE_MTIME;
	if ((how & BP_FILE_CMP_NSEC) && now->mtime_nsec != then->mtime_nsec)
		return BP_FILE_MTIME;
	return BP_FILE_SAME;
}

#endif /* BP_FILEID_H */
