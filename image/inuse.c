// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inuse.c --- refuse an image that is in use: a loop device backed by it
 * (/sys/block/loop*, devlock.c), or a mount whose source it is (a FUSE
 * mount such as fuse2fs names the file in /proc/self/mountinfo)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_et.h"
#include "devlock.h"
#include "image.h"

/* The mount point of a mount whose source is image (canonical path), or 0. */
static int mounted_from(const char *image, char *mnt, size_t len)
{
	char line[8192], *real = realpath(image, NULL);
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	if (!fp || !real) {
		free(real);
		if (fp)
			fclose(fp);
		return 0;
	}
	while (!found && fgets(line, sizeof(line), fp)) {
		char point[4096], src[4096], *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(sep + 3, "%*s %4095s", src) != 1)
			continue;
		if (!strcmp(src, real) || !strcmp(src, image)) {
			snprintf(mnt, len, "%s", point);
			found = 1;
		}
	}
	fclose(fp);
	free(real);
	return found;
}

errcode_t bp_image_check_unused(const char *image, struct bp_err *err)
{
	struct bp_devlock lk;
	char name[4096];
	errcode_t rc;

	if (mounted_from(image, name, sizeof(name)))
		return bp_err_set(err, BP_ET_BUSY,
				  "%s: is mounted on %s; bootpack image works on an image nobody "
				  "uses: unmount it first",
				  image, name);
	rc = bp_devlock_acquire(image, &lk, err);
	if (rc)
		return rc;
	if (bp_devlock_find_loop(&lk, name, sizeof(name)))
		rc = bp_err_set(err, BP_ET_BUSY,
				"%s: is in use by the loop device %s (mounted or about to be); "
				"unmount it and detach it first: 'umount' its mounts, then "
				"'losetup -d %s'",
				image, name, name);
	bp_devlock_release(&lk);
	return rc;
}
