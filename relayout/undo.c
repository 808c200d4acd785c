// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * undo.c --- put libext2fs's undo I/O manager in front of the real one
 *
 * The undo file records the old contents of every block the run overwrites,
 * so `e2undo FILE DEV` restores the filesystem byte for byte after a
 * successful run. It is not crash protection (relayout-safety.md §4.11).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "rl-int.h"

errcode_t rl_undo_setup(const char *undo_file, io_manager backing, io_manager *ret,
			struct bp_err *err)
{
	static char path[4096];
	errcode_t rc;

	if (strlen(undo_file) >= sizeof(path))
		return bp_err_set(err, ENAMETOOLONG, "%s: undo file name too long", undo_file);
	/* A stale file from an earlier run would be reopened and appended to. */
	if (unlink(undo_file) < 0 && errno != ENOENT)
		return bp_err_set(err, errno, "%s: cannot remove the old undo file: %s",
				  undo_file, strerror(errno));
	strcpy(path, undo_file);
	rc = set_undo_io_backing_manager(backing ? backing : unix_io_manager);
	if (!rc)
		rc = set_undo_io_backup_file(path);
	if (rc)
		return bp_err_lib(err, rc, "%s: while setting up the undo file", undo_file);
	*ret = undo_io_manager;
	return 0;
}
