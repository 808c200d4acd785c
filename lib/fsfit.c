// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsfit.c --- the filesystem fits inside what holds it (fsfit.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "fsfit.h"

errcode_t bp_fs_room(const struct bp_fsloc *loc, uint64_t limit, uint64_t *room,
		     enum bp_fs_room_kind *kind, struct bp_err *err)
{
	uint64_t size = 0;
	struct stat st;
	int fd;

	*room = UINT64_MAX;
	*kind = BP_ROOM_UNKNOWN;
	if (stat(loc->path, &st))
		return bp_err_lib(err, errno, "%s: while reading its size", loc->path);
	if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
		*kind = BP_ROOM_FILE;
	} else if (S_ISBLK(st.st_mode)) {
		fd = open(loc->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return bp_err_lib(err, errno, "%s: while reading its size", loc->path);
		if (ioctl(fd, BLKGETSIZE64, &size)) {
			int e = errno;

			close(fd);
			return bp_err_lib(err, e, "%s: while reading its size (BLKGETSIZE64)",
					  loc->path);
		}
		close(fd);
		*kind = BP_ROOM_DEVICE;
	} else {
		return 0;
	}
	size = size > loc->offset ? size - loc->offset : 0;
	if (limit && limit <= size) {
		size = limit;
		*kind = BP_ROOM_PARTITION;
	}
	*room = size;
	return 0;
}

errcode_t bp_fs_check_fits(ext2_filsys fs, const struct bp_fsloc *loc, uint64_t limit,
			   uint64_t *room_blocks, struct bp_err *err)
{
	static const char *const holder[] = {
		[BP_ROOM_DEVICE] = "the device holds",
		[BP_ROOM_FILE] = "the file holds",
		[BP_ROOM_PARTITION] = "the partition holds",
	};
	uint64_t blocks = ext2fs_blocks_count(fs->super), bs = fs->blocksize, room, bytes;
	enum bp_fs_room_kind kind;
	char name[4200];
	errcode_t rc;

	if (room_blocks)
		*room_blocks = UINT64_MAX;
	rc = bp_fs_room(loc, limit, &room, &kind, err);
	if (rc || kind == BP_ROOM_UNKNOWN)
		return rc;
	if (room_blocks)
		*room_blocks = room / bs;
	if (blocks <= room / bs)
		return 0;
	bytes = blocks > UINT64_MAX / bs ? UINT64_MAX : blocks * bs;
	if (loc->offset)
		snprintf(name, sizeof(name), "%s (partition at byte %llu)", loc->path,
			 (unsigned long long)loc->offset);
	else
		snprintf(name, sizeof(name), "%s", loc->path);
	return bp_err_set(err, BP_ET_FS_TOO_BIG,
			  "%s: the filesystem is %llu bytes (%llu blocks of %llu) but %s only "
			  "%llu%s: grow the %s or resize2fs the filesystem first",
			  name, (unsigned long long)bytes, (unsigned long long)blocks,
			  (unsigned long long)bs, holder[kind], (unsigned long long)room,
			  kind == BP_ROOM_FILE && loc->offset ? " from there on" : "",
			  kind == BP_ROOM_FILE ? "file" : "partition");
}
