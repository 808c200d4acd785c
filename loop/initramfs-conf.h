/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * initramfs-conf.h --- does an initramfs tool's configuration put bootpack-read
 * in the initramfs: the rule of the initramfs-tools hook and of the dracut
 * module, on a mounted tree (bootpack setup) or inside an image (bootpack image)
 */
#ifndef BP_INITRAMFS_CONF_H
#define BP_INITRAMFS_CONF_H

#include <stddef.h>

#include <ext2fs/ext2fs.h>

/* The opt-in files bootpack setup writes (see bootpack-setup(8)). */
#define BP_IT_CONFDIR "/etc/initramfs-tools"
#define BP_IT_CONF BP_IT_CONFDIR "/conf.d/bootpack"
#define BP_DRACUT_CONF "/etc/dracut.conf.d/bootpack.conf"

/* Only the first bytes of a configuration file are read, and so many names of a directory. */
#define BP_CONF_FILE_MAX (32U * 1024)
#define BP_CONF_NAMES_MAX 1024U

/*
 * A tree the rule reads; paths are absolute inside it. own_path, when not
 * NULL, reads as own_text and is listed in its directory whether it is
 * there or not: the file bootpack setup is about to write.
 */
struct bp_conf_tree {
	/* The regular file path (symbolic links followed) into buf, at most
	 * len - 1 bytes, NUL-terminated: 0; ENOENT or another errno value. */
	errcode_t (*read)(void *ctx, const char *path, char *buf, size_t len);
	/* add(arg, name) for each name of the directory path but . and ..
	 * (ENOENT: no such directory); a nonzero add() ends the walk with it. */
	errcode_t (*list)(void *ctx, const char *path, int (*add)(void *arg, const char *name),
			  void *arg);
	int (*exists)(void *ctx, const char *path);
	void *ctx;
	const char *own_path, *own_text;
};

/* rel (e.g. "/hooks/bootpack") under a directory initramfs-tools (or dracut: modules.d) reads. */
int bp_conf_in_tool_dirs(const struct bp_conf_tree *t, int dracut, const char *rel);

/*
 * initramfs-tools, as the hook reads it: the last BOOTPACK= line with a
 * value, of initramfs.conf then of conf.d/ (names in order, no dot files).
 * *yes: it says y, Y, yes or 1; val: the value ("n" when none); from: the
 * file that set it ("" when none). ENOMEM.
 */
errcode_t bp_conf_it_reader(const struct bp_conf_tree *t, int *yes, char *val, size_t vlen,
			    char *from, size_t flen);

/*
 * dracut: an omit_dracutmodules of bootpack in dracut.conf or a file of
 * dracut.conf.d/ other than BP_DRACUT_CONF wins (from: that file);
 * else the module is asked for when BP_DRACUT_CONF adds it.
 */
enum bp_conf_dracut {
	BP_CONF_DRACUT_NOT_ASKED,
	BP_CONF_DRACUT_ASKED,
	BP_CONF_DRACUT_OMITTED,
};
errcode_t bp_conf_dracut_reader(const struct bp_conf_tree *t, enum bp_conf_dracut *ret,
				char *from, size_t flen);

#endif /* BP_INITRAMFS_CONF_H */
