// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader.c --- where bootpack-read starts in an image: its initramfs, or
 * bootpack-read.service
 *
 * An image builder enables the initramfs reader before its initramfs is
 * built (BOOTPACK=y in /etc/initramfs-tools/conf.d/bootpack, or dracut's
 * bootpack.conf; doc/image-builders.md); bootpack image, which runs after,
 * reads that configuration through libext2fs with the rule of bootpack
 * setup (loop/initramfs-conf.c) and enables the unit only when the initramfs
 * does not read the pack: never both, the pack is read once.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "image.h"
#include "loop.h"
#include "initramfs-conf.h"

/* ---- the image's root as the rule reads it -------------------------------- */

static errcode_t fs_read(void *ctx, const char *path, char *buf, size_t len)
{
	return bp_fsw_read(ctx, path, buf, len, NULL);
}

struct list_ctx {
	int (*add)(void *arg, const char *name);
	void *arg;
	errcode_t rc;
};

static int list_one(struct ext2_dir_entry *d, int offset _unused_, int blocksize _unused_,
		    char *buf _unused_, void *priv)
{
	struct list_ctx *lc = priv;
	char name[EXT2_NAME_LEN + 1];
	int n = ext2fs_dirent_name_len(d);

	snprintf(name, sizeof(name), "%.*s", n, d->name);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	lc->rc = lc->add(lc->arg, name);
	return lc->rc ? DIRENT_ABORT : 0;
}

static errcode_t fs_list(void *ctx, const char *path, int (*add)(void *arg, const char *name),
			 void *arg)
{
	struct list_ctx lc = { add, arg, 0 };
	ext2_filsys fs = ctx;
	ext2_ino_t ino;
	errcode_t rc;

	rc = ext2fs_namei_follow(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);
	if (rc)
		return rc == EXT2_ET_FILE_NOT_FOUND ? ENOENT : rc;
	rc = ext2fs_check_directory(fs, ino);
	if (rc)
		return rc == EXT2_ET_NO_DIRECTORY ? ENOTDIR : rc;
	rc = ext2fs_dir_iterate(fs, ino, 0, NULL, list_one, &lc);
	return lc.rc ? lc.rc : rc;
}

static int fs_exists(void *ctx, const char *path)
{
	return bp_fsw_exists(ctx, path);
}

/* ---- the choice ------------------------------------------------------------ */

const char *bp_image_reader_name(enum bp_image_reader_at a)
{
	return a == BP_IMAGE_READER_INITRAMFS ? "initramfs" :
	       a == BP_IMAGE_READER_SERVICE ? "service" : "auto";
}

errcode_t bp_image_reader_find(ext2_filsys fs, struct bp_image_reader *r, struct bp_err *err)
{
	struct bp_conf_tree t = {
		.read = fs_read, .list = fs_list, .exists = fs_exists, .ctx = fs,
	};
	char val[64], from[4400];
	enum bp_conf_dracut says;
	errcode_t rc;
	int yes;

	memset(r, 0, sizeof(*r));
	r->at = BP_IMAGE_READER_SERVICE;
	/* The tool and bootpack's reader hook in it, as bootpack setup looks for them. */
	if (bp_fsw_exists(fs, "/usr/sbin/update-initramfs") &&
	    bp_conf_in_tool_dirs(&t, 0, "/hooks/bootpack") &&
	    bp_conf_in_tool_dirs(&t, 0, "/scripts/init-bottom/bootpack")) {
		snprintf(r->tool, sizeof(r->tool), "initramfs-tools");
		snprintf(r->conf, sizeof(r->conf), "%s", BP_IT_CONF);
		rc = bp_conf_it_reader(&t, &yes, val, sizeof(val), from, sizeof(from));
		if (rc)
			return bp_err_set(err, rc, "while reading the image's initramfs-tools "
					  "configuration: %s", strerror((int)rc));
		if (yes)
			r->at = BP_IMAGE_READER_INITRAMFS;
		if (from[0])
			snprintf(r->why, sizeof(r->why), "BOOTPACK=%s in %s", val, from);
		else
			snprintf(r->why, sizeof(r->why), "no BOOTPACK= in " BP_IT_CONFDIR
				 "/initramfs.conf or conf.d/");
		return 0;
	}
	if (bp_fsw_exists(fs, "/usr/bin/dracut") &&
	    bp_conf_in_tool_dirs(&t, 1, "/90bootpack/module-setup.sh") &&
	    bp_conf_in_tool_dirs(&t, 1, "/90bootpack/bootpack-read.sh")) {
		snprintf(r->tool, sizeof(r->tool), "dracut");
		snprintf(r->conf, sizeof(r->conf), "%s", BP_DRACUT_CONF);
		rc = bp_conf_dracut_reader(&t, &says, from, sizeof(from));
		if (rc)
			return bp_err_set(err, rc, "while reading the dracut configuration of the "
					  "image: %s", strerror((int)rc));
		if (says == BP_CONF_DRACUT_ASKED) {
			r->at = BP_IMAGE_READER_INITRAMFS;
			snprintf(r->why, sizeof(r->why), "add_dracutmodules+=\" bootpack \" in %s",
				 from);
		} else if (says == BP_CONF_DRACUT_OMITTED) {
			snprintf(r->why, sizeof(r->why), "%s omits the module bootpack", from);
		} else {
			snprintf(r->why, sizeof(r->why), "%s does not add the module bootpack",
				 from);
		}
		return 0;
	}
	snprintf(r->why, sizeof(r->why), "neither initramfs-tools nor dracut with bootpack's "
		 "reader hook in the image");
	return 0;
}

errcode_t bp_image_reader_check(const struct bp_fsloc *loc, enum bp_image_reader_at ask,
				struct bp_image_reader *r, struct bp_err *err)
{
	ext2_filsys fs = NULL;
	errcode_t rc;

	rc = bp_fs_open_ro_at(loc, &fs, err);
	if (rc)
		return rc;
	rc = bp_image_reader_find(fs, r, err);
	ext2fs_close_free(&fs);
	if (rc)
		return rc;
	if (ask == BP_IMAGE_READER_INITRAMFS && r->at != BP_IMAGE_READER_INITRAMFS) {
		if (!r->tool[0])
			return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: --reader initramfs, but %s: "
					  "install initramfs-tools (or dracut) and the bootpack "
					  "package in the image, write BOOTPACK=y into " BP_IT_CONF
					  " there before its initramfs is built; the image is "
					  "unchanged", loc->path, r->why);
		return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: --reader initramfs, but the "
				  "image's initramfs does not read the pack (%s): write %s into "
				  "%s in the image before its initramfs is built (see "
				  "bootpack-image(8)); the image is unchanged", loc->path, r->why,
				  !strcmp(r->tool, "dracut") ? "add_dracutmodules+=\" bootpack \"" :
				  "BOOTPACK=y", r->conf);
	}
	if (ask == BP_IMAGE_READER_SERVICE && r->at != BP_IMAGE_READER_SERVICE)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "%s: --reader service, but the image's "
				  "initramfs reads the pack (%s) and the pack would be read twice: "
				  "take that line out before the initramfs is built, or leave "
				  "--reader out; the image is unchanged", loc->path, r->why);
	return 0;
}

errcode_t bp_image_reader_start(ext2_filsys fs, struct bp_image_install *out, struct bp_err *err)
{
	const char *wants = bp_setup_unit_wants(BP_SETUP_READER_UNIT);
	char dir[4096];
	errcode_t rc;
	int gone;

	rc = bp_image_reader_find(fs, &out->reader, err);
	if (rc)
		return rc;
	snprintf(dir, sizeof(dir), "/etc/systemd/system/%s", wants);
	snprintf(out->unit_link, sizeof(out->unit_link), "%s/%s", dir, BP_SETUP_READER_UNIT);
	if (out->reader.at == BP_IMAGE_READER_INITRAMFS) {
		/* as the package left it enabled: the initramfs reads the pack, not twice */
		rc = bp_fsw_remove(fs, out->unit_link, &gone, err);
		if (!rc && gone)
			snprintf(out->reader.disabled, sizeof(out->reader.disabled), "%s",
				 out->unit_link);
		out->unit[0] = '\0';
		out->unit_link[0] = '\0';
		return rc;
	}
	rc = bp_fsw_mkdirs(fs, dir, err);
	if (!rc)
		rc = bp_fsw_symlink(fs, out->unit_link, out->unit, err);
	return rc;
}
