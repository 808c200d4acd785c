// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * undo.c --- put libext2fs's undo I/O manager in front of the real one
 *
 * The undo file records the old contents of every block the run overwrites,
 * so `e2undo FILE DEV` restores the filesystem byte for byte after a
 * successful run. It is not crash protection (doc/relayout-safety.md §7).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "rl-int.h"

/*
 * The undo manager writes its file through the backing manager; opening it
 * through this copy of the backing manager hooks the undo file's channel so
 * a failed write (ENOSPC, EIO) is remembered: such a file restores nothing,
 * and the run must not recommend it.
 */
static struct struct_io_manager watch_manager;
static io_manager watch_backing;
static char undo_path[4096];
static errcode_t undo_write_rc;

static errcode_t undo_write_error(io_channel ch _unused_, unsigned long block _unused_,
				  int count _unused_, const void *data _unused_,
				  size_t size _unused_, int actual _unused_, errcode_t error)
{
	if (!undo_write_rc)
		undo_write_rc = error ? error : EXT2_ET_SHORT_WRITE;
	return error;
}

static errcode_t watch_open(const char *name, int flags, io_channel *ret)
{
	errcode_t rc = watch_backing->open(name, flags, ret);

	if (!rc && strcmp(name, undo_path) == 0)
		(*ret)->write_error = undo_write_error;
	return rc;
}

errcode_t rl_undo_error(void)
{
	return undo_write_rc;
}

errcode_t rl_undo_setup(const char *undo_file, io_manager backing, io_manager *ret,
			struct bp_err *err)
{
	errcode_t rc;

	if (strlen(undo_file) >= sizeof(undo_path))
		return bp_err_set(err, ENAMETOOLONG, "%s: undo file name too long", undo_file);
	/* A stale file from an earlier run would be reopened and appended to. */
	if (unlink(undo_file) < 0 && errno != ENOENT)
		return bp_err_set(err, errno, "%s: cannot remove the old undo file: %s",
				  undo_file, strerror(errno));
	strcpy(undo_path, undo_file);
	undo_write_rc = 0;
	watch_backing = backing ? backing : unix_io_manager;
	watch_manager = *watch_backing;
	watch_manager.open = watch_open;
	rc = set_undo_io_backing_manager(&watch_manager);
	if (!rc)
		rc = set_undo_io_backup_file(undo_path);
	if (rc)
		return bp_err_lib(err, rc, "%s: while setting up the undo file", undo_file);
	*ret = undo_io_manager;
	return 0;
}
