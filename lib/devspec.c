// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * devspec.c --- device specifications resolved and probed with libblkid
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <blkid/blkid.h>

#include "bp_et.h"
#include "devspec.h"

static int is_tag(const char *spec)
{
	static const char *const tags[] = { "UUID=", "LABEL=", "PARTUUID=", "PARTLABEL=" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tags); i++)
		if (strncmp(spec, tags[i], strlen(tags[i])) == 0)
			return 1;
	return 0;
}

static char *dup_value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) != 0 || !v)
		return NULL;
	return strdup(v);
}

static errcode_t probe(struct bp_dev *dev, struct bp_err *err)
{
	blkid_probe pr;
	int fd, rc;

	fd = open(dev->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bp_err_lib(err, errno, "while opening %s", dev->path);
	pr = blkid_new_probe();
	if (!pr) {
		close(fd);
		return bp_err_lib(err, ENOMEM, "while probing %s", dev->path);
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		blkid_free_probe(pr);
		close(fd);
		return bp_err_lib(err, EIO, "while probing %s", dev->path);
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_LABEL);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		dev->type = dup_value(pr, "TYPE");
		dev->uuid = dup_value(pr, "UUID");
		dev->label = dup_value(pr, "LABEL");
	}
	blkid_free_probe(pr);
	close(fd);

	if (rc == 1)
		return bp_err_set(err, BP_ET_NO_FS, "%s: no filesystem found", dev->path);
	if (rc == -2)
		return bp_err_set(err, BP_ET_AMBIVALENT,
				  "%s: more than one filesystem signature found; "
				  "check with 'wipefs %s'", dev->path, dev->path);
	if (rc < 0)
		return bp_err_lib(err, EIO, "while probing %s", dev->path);
	return 0;
}

void bp_dev_node(unsigned int ma, unsigned int mi, char *buf, size_t len)
{
	char path[96], line[256];
	FILE *fp;

	snprintf(buf, len, "/dev/block/%u:%u", ma, mi);
	if (access(buf, F_OK) == 0)
		return;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", ma, mi);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "DEVNAME=", 8) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "/dev/%s", line + 8);
			break;
		}
	}
	fclose(fp);
}

/* A mount point stands for the device mounted there ("--device /"). */
static errcode_t mount_point_device(const char *dir, const struct stat *st, char *buf,
				    size_t len, struct bp_err *err)
{
	char parent[PATH_MAX];
	struct stat pst;

	if (snprintf(parent, sizeof(parent), "%s/..", dir) >= (int)sizeof(parent) ||
	    stat(parent, &pst) != 0)
		return bp_err_lib(err, errno ? errno : ENAMETOOLONG, "while looking up %s", dir);
	if (pst.st_dev == st->st_dev && pst.st_ino != st->st_ino)
		return bp_err_set(err, EINVAL,
				  "%s: a directory, not a mount point; name the device, or the "
				  "directory a filesystem is mounted on", dir);
	bp_dev_node(major(st->st_dev), minor(st->st_dev), buf, len);
	if (access(buf, F_OK) != 0)
		return bp_err_set(err, ENOENT,
				  "%s: the filesystem mounted here (%u:%u) has no block device",
				  dir, major(st->st_dev), minor(st->st_dev));
	return 0;
}

errcode_t bp_dev_resolve(const char *spec, struct bp_dev *dev, struct bp_err *err)
{
	errcode_t rc = bp_dev_locate(spec, dev, err);

	return rc ? rc : probe(dev, err);
}

errcode_t bp_dev_locate(const char *spec, struct bp_dev *dev, struct bp_err *err)
{
	char node[PATH_MAX];
	struct stat st;
	char *path;
	errcode_t rc;

	memset(dev, 0, sizeof(*dev));
	if (!spec || !*spec)
		return bp_err_set(err, EINVAL, "empty device specification");
	dev->spec = strdup(spec);
	if (!dev->spec)
		return bp_err_lib(err, ENOMEM, "while resolving %s", spec);

	if (is_tag(spec)) {
		path = blkid_evaluate_spec(spec, NULL);
		if (!path)
			return bp_err_set(err, ENOENT,
					  "%s: no filesystem with this tag found "
					  "(is the device attached? 'blkid' lists what is visible)",
					  spec);
	} else if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = mount_point_device(spec, &st, node, sizeof(node), err);
		if (rc)
			return rc;
		path = realpath(node, NULL);
		if (!path)
			return bp_err_lib(err, errno, "while looking up %s", node);
	} else {
		path = realpath(spec, NULL);
		if (!path)
			return bp_err_lib(err, errno, "while looking up %s", spec);
	}
	dev->path = path;

	if (stat(path, &st) != 0)
		return bp_err_lib(err, errno, "while looking up %s", path);
	if (S_ISBLK(st.st_mode))
		dev->is_blockdev = 1;
	else if (!S_ISREG(st.st_mode))
		return bp_err_set(err, EINVAL, "%s: neither a block device nor an image file",
				  path);
	return 0;
}

errcode_t bp_dev_require_ext(const struct bp_dev *dev, struct bp_err *err)
{
	static const char *const ok[] = { "ext2", "ext3", "ext4" };
	size_t i;

	for (i = 0; dev->type && i < ARRAY_SIZE(ok); i++)
		if (strcmp(dev->type, ok[i]) == 0)
			return 0;
	return bp_err_set(err, BP_ET_NOT_EXT,
			  "%s: found a %s filesystem, but bootpack works only on ext2, ext3 "
			  "and ext4", dev->path, dev->type ? dev->type : "unknown");
}

errcode_t bp_dev_resolve_ext(const char *spec, struct bp_dev *dev, struct bp_err *err)
{
	errcode_t rc = bp_dev_resolve(spec, dev, err);

	return rc ? rc : bp_dev_require_ext(dev, err);
}

void bp_dev_free(struct bp_dev *dev)
{
	if (!dev)
		return;
	free(dev->spec);
	free(dev->path);
	free(dev->type);
	free(dev->uuid);
	free(dev->label);
	memset(dev, 0, sizeof(*dev));
}
