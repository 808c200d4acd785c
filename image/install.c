// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * install.c --- the pack and the reader's unit, written inside an image
 *
 * What bootpack setup leaves for the read boots, without a loop: the pack
 * at its default path and, unless the image's initramfs reads it
 * (reader.c), bootpack-read.service enabled by a .wants link, written with
 * libext2fs into the unmounted root. No state file: the loop
 * is not set up, so no boot is traced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "image.h"
#include "loop.h"
#include "pack-build.h"
#include "pack-format.h"

static char undo_path[4096];

/* The libext2fs undo manager in front of the unix one, writing undo_file. */
static errcode_t undo_io(const char *undo_file, io_manager *io, struct bp_err *err)
{
	errcode_t rc;

	if (strlen(undo_file) >= sizeof(undo_path))
		return bp_err_set(err, ENAMETOOLONG, "%s: undo file name too long", undo_file);
	if (remove(undo_file) < 0 && errno != ENOENT)
		return bp_err_set(err, errno, "%s: cannot remove the old undo file: %s",
				  undo_file, strerror(errno));
	strcpy(undo_path, undo_file);
	rc = set_undo_io_backing_manager(unix_io_manager);
	if (!rc)
		rc = set_undo_io_backup_file(undo_path);
	if (rc)
		return bp_err_lib(err, rc, "%s: while setting up the undo file", undo_file);
	*io = undo_io_manager;
	return 0;
}

/* The reader's unit as the image has it installed: its path inside. */
static errcode_t find_unit(ext2_filsys fs, const char *image, char *unit, size_t len,
			   struct bp_err *err)
{
	const char *d;
	size_t i;

	for (i = 0; (d = bp_setup_unit_dir(i)); i++) {
		snprintf(unit, len, "%s/%s", d, BP_SETUP_READER_UNIT);
		if (bp_fsw_exists(fs, unit))
			return 0;
	}
	unit[0] = 0;
	return bp_err_set(err, ENOENT,
			  "%s: %s is not installed in the image (looked in /etc/systemd/system, "
			  "/lib/systemd/system, /usr/lib/systemd/system): install the bootpack "
			  "package in the image first",
			  image, BP_SETUP_READER_UNIT);
}

errcode_t bp_image_check_installed(const struct bp_fsloc *loc, struct bp_err *err)
{
	ext2_filsys fs = NULL;
	char unit[4096];
	errcode_t rc;

	rc = bp_fs_open_ro_at(loc, &fs, err);
	if (rc)
		return rc;
	rc = find_unit(fs, loc->path, unit, sizeof(unit), err);
	ext2fs_close_free(&fs);
	return rc;
}

/* The directory part of path into buf. */
static void dirname_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;

	snprintf(buf, len, "%.*s", (int)n, path);
}

errcode_t bp_image_install(const struct bp_fsloc *loc, const struct bp_trace *t,
			   const char *undo_file, int64_t created, const uint64_t *moved_from,
			   size_t nmoved_from, const struct bp_budget_in *budget_auto,
			   uint64_t budget, struct bp_image_install *out, struct bp_err *err)
{
	struct bp_pack_opts po = {
		.output = BP_PACK_DEFAULT_PATH,
		.budget = budget,
		.budget_auto = budget_auto,
		.compress = BP_PACK_COMPRESS_AUTO,
		.compat = BP_PACK_COMPAT_RELAYOUT,
		.meta = BP_PACK_META_TRACE | BP_PACK_META_FILES,
		.created = created,
		.moved_from = moved_from,
		.nmoved_from = nmoved_from,
	};
	struct bp_pack_report rep = { 0 };
	io_manager io = unix_io_manager;
	ext2_filsys fs = NULL;
	char opt[64], dir[4096];
	void *buf = NULL;
	size_t len = 0;
	errcode_t rc, rc2;

	memset(out, 0, sizeof(*out));
	if (undo_file && (rc = undo_io(undo_file, &io, err)))
		return rc;
	rc = ext2fs_open2(loc->path, bp_fsloc_io_options(loc, opt, sizeof(opt)),
			  EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, io, &fs);
	if (rc)
		return bp_fs_open_error(loc->path, rc, err);
	fs->now = created;
	if (undo_file) {
		snprintf(opt, sizeof(opt), "tdb_data_size=%u", fs->blocksize);
		rc = io_channel_set_options(fs->io, opt);
		if (rc) {
			bp_err_lib(err, rc, "%s: while setting up the undo file", undo_file);
			goto out;
		}
	}
	rc = ext2fs_read_bitmaps(fs);
	if (rc) {
		bp_err_lib(err, rc, "%s: while reading the bitmaps", loc->path);
		goto out;
	}
	rc = find_unit(fs, loc->path, out->unit, sizeof(out->unit), err);
	if (rc)
		goto out;
	/* The reader's start first (reader.c): the pack then knows the blocks it may add. */
	rc = bp_image_reader_start(fs, out, err);
	dirname_of(BP_PACK_DEFAULT_PATH, dir, sizeof(dir));
	if (!rc)
		rc = bp_fsw_mkdirs(fs, dir, err);
	if (!rc)
		rc = bp_pack_build(fs, t, &po, &buf, &len, &rep, err);
	if (!rc)
		rc = bp_fsw_write_file(fs, BP_PACK_DEFAULT_PATH, buf, len, 0644, err);
	free(buf);
	if (rc)
		goto out;
	snprintf(out->pack_path, sizeof(out->pack_path), "%s", BP_PACK_DEFAULT_PATH);
	out->pack_bytes = len;
	out->pack_entries = rep.nentries;
	out->packed_bytes = rep.meta_bytes + rep.file_bytes;
	out->cut_bytes = rep.cut_bytes;
	out->budget = rep.budget;
	out->budget_in = rep.budget_in;
	out->budget_auto = rep.budget_auto;
out:
	/*
	 * The library writes a changed superblock in pieces (write_byte) when
	 * it kept the original; libext2fs's undo manager files such a write
	 * under its byte offset in the image plus the filesystem's offset
	 * again, and e2undo -o would then put the old superblock at the wrong
	 * place. Without the original, it writes the whole superblock as a
	 * block, which the undo file records where it is (relayout does the
	 * same, barrier.c).
	 */
	ext2fs_free_mem(&fs->orig_super);
	/* Written or not, the bitmaps and counters are brought in line on close. */
	rc2 = ext2fs_close_free(&fs);
	if (!rc && rc2)
		rc = bp_err_lib(err, rc2, "%s: while writing the filesystem", loc->path);
	return rc;
}
