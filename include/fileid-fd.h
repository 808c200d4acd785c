/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fileid-fd.h --- the identity of an open file, for the rule of fileid.h
 * (header only: the static reader compiles it)
 */
#ifndef BP_FILEID_FD_H
#define BP_FILEID_FD_H

#include <sys/ioctl.h>
#include <sys/stat.h>

#include <linux/fs.h>

#include "fileid.h"

/*
 * Fill id from st (fstat() of fd) and the generation FS_IOC_GETVERSION
 * gives for fd. Returns the flag bp_file_compare() needs besides the
 * nanoseconds one: BP_FILE_CMP_NO_GEN when the generation is unknown (fd
 * negative or an O_PATH descriptor, or a filesystem that has none), else 0.
 */
static inline unsigned int bp_file_id_fd(int fd, const struct stat *st, struct bp_file_id *id)
{
	long gen = 0;

	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	id->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
	id->generation = 0;
	if (fd < 0 || ioctl(fd, FS_IOC_GETVERSION, &gen) != 0)
		return BP_FILE_CMP_NO_GEN;
	id->generation = (uint32_t)gen;
	return 0;
}

#endif /* BP_FILEID_FD_H */
