/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devlock.h --- hold a filesystem image or block device for a whole run
 *
 * flock(LOCK_EX) on the image file or the device node, for the whole run:
 * a second bootpack relayout of the same image or device refuses instead of
 * racing the first (block devices are also opened O_EXCL while written,
 * which keeps the kernel from mounting them). The lock is advisory: the
 * kernel, mount(8) and losetup(8) ignore it, so a loop device attached to
 * an image is looked for separately (bp_devlock_find_loop), at the start and
 * again before the first and the last write.
 */
#ifndef BP_DEVLOCK_H
#define BP_DEVLOCK_H

#include <stddef.h>
#include <sys/types.h>

#include "bperr.h"

struct bp_devlock {
	int fd;			/* -1 = not held */
	dev_t dev, rdev;	/* st_dev, and st_rdev of a block device */
	ino_t ino;
	int is_blockdev;
	char path[4096];
};

/* BP_ET_BUSY if another process holds it; the lock is kept until release. */
errcode_t bp_devlock_acquire(const char *path, struct bp_devlock *lk, struct bp_err *err);

/*
 * Is a loop device backed by the locked file (or device)? 1 and its name
 * ("/dev/loop3") in name, or 0. Attached loop devices are found in
 * /sys/block/loop*; each is matched by LOOP_GET_STATUS64 (device and inode
 * of its backing file) or, where its node cannot be opened, by the backing
 * file's path.
 */
int bp_devlock_find_loop(const struct bp_devlock *lk, char *name, size_t len);

/* bp_devlock_find_loop as a refusal: BP_ET_BUSY naming the loop device and the fix. */
errcode_t bp_devlock_check_loops(const struct bp_devlock *lk, struct bp_err *err);

void bp_devlock_release(struct bp_devlock *lk);

#endif /* BP_DEVLOCK_H */
