/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devspec.h --- turning "/dev/sda1", an image file, "UUID=…", "LABEL=…" or
 * a mount point ("/") into a path, and probing what filesystem it holds
 * (libblkid)
 */
#ifndef BP_DEVSPEC_H
#define BP_DEVSPEC_H

#include "bperr.h"

struct bp_dev {
	char *spec;	/* as given */
	char *path;	/* canonical path of the device or image file */
	char *type;	/* "ext4", "vfat", … or NULL if nothing was found */
	char *uuid;
	char *label;
	int is_blockdev;
};

/*
 * Resolve spec and probe it. A directory must be a mount point and stands
 * for the block device mounted there. Returns 0, or: ENOENT (no such file,
 * no filesystem has that UUID/LABEL, or the mount has no block device),
 * EINVAL (a directory that is not a mount point), BP_ET_NO_FS (nothing
 * recognised),
 * BP_ET_AMBIVALENT (several signatures), or an errno. err says which.
 */
errcode_t bp_dev_resolve(const char *spec, struct bp_dev *dev, struct bp_err *err);

/*
 * The same without the probe: spec resolved to the path of a block device
 * or a regular file, whatever it holds (dev->type, uuid, label stay NULL).
 */
errcode_t bp_dev_locate(const char *spec, struct bp_dev *dev, struct bp_err *err);

/*
 * Require an ext2/ext3/ext4 filesystem; otherwise BP_ET_NOT_EXT with a
 * message naming the type found.
 */
errcode_t bp_dev_require_ext(const struct bp_dev *dev, struct bp_err *err);

/* bp_dev_resolve() then bp_dev_require_ext(): what every verb taking a device does. */
errcode_t bp_dev_resolve_ext(const char *spec, struct bp_dev *dev, struct bp_err *err);

void bp_dev_free(struct bp_dev *dev);

/* The device node of MAJ:MIN: /dev/block/MAJ:MIN if udev made it, else
 * /dev/ + DEVNAME from sysfs (buf keeps /dev/block/… if neither exists). */
void bp_dev_node(unsigned int ma, unsigned int mi, char *buf, size_t len);

#endif /* BP_DEVSPEC_H */
