// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * devlock.c --- an exclusive flock on the image or device, loop devices found
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/loop.h>

#include "bp_et.h"
#include "devlock.h"
#include "smallfile.h"

/* udev holds a shared lock on a block device for a moment while it probes it. */
#define LOCK_TRIES 20
#define LOCK_WAIT_NS 50000000L

errcode_t bp_devlock_acquire(const char *path, struct bp_devlock *lk, struct bp_err *err)
{
	struct timespec ts = { 0, LOCK_WAIT_NS };
	struct stat st;
	int i, r = -1;

	memset(lk, 0, sizeof(*lk));
	lk->fd = -1;
	if (strlen(path) >= sizeof(lk->path))
		return bp_err_set(err, ENAMETOOLONG, "%s: name too long", path);
	strcpy(lk->path, path);
	lk->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (lk->fd < 0 || fstat(lk->fd, &st) < 0) {
		errcode_t rc = bp_err_lib(err, errno, "while opening %s", path);

		bp_devlock_release(lk);
		return rc;
	}
	lk->dev = st.st_dev;
	lk->ino = st.st_ino;
	lk->is_blockdev = S_ISBLK(st.st_mode);
	if (lk->is_blockdev)
		lk->rdev = st.st_rdev;
	for (i = 0; i < LOCK_TRIES; i++) {
		r = flock(lk->fd, LOCK_EX | LOCK_NB);
		if (r == 0 || errno != EWOULDBLOCK)
			break;
		nanosleep(&ts, NULL);
	}
	if (r < 0) {
		errcode_t rc = errno == EWOULDBLOCK ?
			bp_err_set(err, BP_ET_BUSY,
				   "%s: is locked by another process (another bootpack relayout "
				   "of it is running?); 'lslocks' shows which; try again when it "
				   "is done",
				   path) :
			bp_err_lib(err, errno, "while locking %s", path);

		bp_devlock_release(lk);
		return rc;
	}
	return 0;
}


/* 1 if the loop device (attached, backing file named in sysfs) is backed by lk. */
static int loop_matches(const struct bp_devlock *lk, const char *dev, const char *backing)
{
	struct loop_info64 li;
	struct stat st;
	int fd, r;

	fd = open(dev, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		r = ioctl(fd, LOOP_GET_STATUS64, &li);
		close(fd);
		if (r == 0) {
			if (li.lo_device == (uint64_t)lk->dev && li.lo_inode == (uint64_t)lk->ino)
				return 1;
			return lk->is_blockdev && li.lo_rdevice == (uint64_t)lk->rdev;
		}
	}
	/* No node to ask (another namespace, no permission): the path sysfs gives. */
	if (stat(backing, &st) < 0)
		return strcmp(backing, lk->path) == 0;
	if (st.st_dev == lk->dev && st.st_ino == lk->ino)
		return 1;
	return lk->is_blockdev && S_ISBLK(st.st_mode) && st.st_rdev == lk->rdev;
}

int bp_devlock_find_loop(const struct bp_devlock *lk, char *name, size_t len)
{
	char path[512], backing[4096], dev[300];
	struct dirent *de;
	DIR *d;
	int found = 0;

	d = opendir("/sys/block");
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "loop", 4) || strlen(de->d_name) > 250)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
		if (bp_read_line(path, backing, sizeof(backing)) < 0)
			continue;	/* not attached */
		snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
		if (loop_matches(lk, dev, backing)) {
			snprintf(name, len, "%s", dev);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

errcode_t bp_devlock_check_loops(const struct bp_devlock *lk, struct bp_err *err)
{
	char loop[300];

	if (!bp_devlock_find_loop(lk, loop, sizeof(loop)))
		return 0;
	return bp_err_set(err, BP_ET_BUSY,
			  "%s: is attached to the loop device %s, through which it can be "
			  "mounted while relayout writes it; detach it first with 'losetup -d %s' "
			  "(after unmounting it if it is mounted)",
			  lk->path, loop, loop);
}

void bp_devlock_release(struct bp_devlock *lk)
{
	if (lk->fd >= 0)
		close(lk->fd);
	lk->fd = -1;
}
