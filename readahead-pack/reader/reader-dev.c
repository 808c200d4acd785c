// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-dev.c --- bootpack-read: open the root's block device, in a bare init too
 *
 * The metadata ranges are read through the block device that holds the
 * root's filesystem, known only by its number (st_dev of the root). As
 * init= nothing may be mounted yet: no /proc, no /sys, no udev, maybe not
 * even devtmpfs. The node is looked for, in this order:
 *
 *   1. /dev/block/MAJ:MIN (udev's links);
 *   2. /dev/DEVNAME, DEVNAME from /sys/dev/block/MAJ:MIN/uevent;
 *   3. any block device node directly in /dev with that number (devtmpfs
 *      without /sys: "vda1", "loop3", ...);
 *   4. a private node: the process unshares its mount namespace, makes a
 *      tmpfs that no other process can see (a detached mount from
 *      fsopen(2)/fsmount(2), else a tmpfs mounted over /dev, /tmp, /run or
 *      /mnt in the now private namespace, whose mounts were all made
 *      private first, detached again at once), mknod(2)s the node in it,
 *      opens it, and lets the tmpfs go.
 *
 * As init= with /dev the root's own directory (no devtmpfs), step 4 comes
 * first: steps 1-3 would read directory blocks from the disk being read.
 *
 * The system's /dev is never written to. Every node opened is checked to be
 * a block device with exactly the number asked for. Step 4 changes the
 * calling process's mount namespace: as init= it runs in the reading child,
 * never in PID 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "c.h"
#include "queueattr.h"
#include "reader.h"
#include "smallfile.h"

#define DEV_SCAN_MAX	8192	/* entries of /dev looked at, at most */

/* From <linux/mount.h> (Linux 5.2), not included: it clashes with <sys/mount.h>. */
#define BP_FSOPEN_CLOEXEC	0x00000001
#define BP_FSMOUNT_CLOEXEC	0x00000001
#define BP_FSCONFIG_SET_STRING	1
#define BP_FSCONFIG_CMD_CREATE	6

static int ns_private;		/* 1: this process has its own mount namespace */

/* Open a node and check it is of that type and number; fd or -errno. */
static int open_node(int dirfd, const char *path, mode_t type, dev_t want, int flags)
{
	struct stat st;
	int fd;

	fd = openat(dirfd, path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (st.st_mode & S_IFMT) != type || st.st_rdev != want) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/* Step 3: a block device node with that number directly in /dev. */
static int scan_dev(dev_t want, char *name, size_t namesz)
{
	struct dirent *d;
	unsigned int n = 0;
	int fd = -ENODEV;
	DIR *dir;

	dir = opendir("/dev");
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) && n++ < DEV_SCAN_MAX) {
		struct stat st;

		if (d->d_type != DT_BLK && d->d_type != DT_UNKNOWN)
			continue;
		if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISBLK(st.st_mode) || st.st_rdev != want)
			continue;
		fd = open_node(dirfd(dir), d->d_name, S_IFBLK, want, O_RDONLY);
		if (fd >= 0) {
			snprintf(name, namesz, "/dev/%.64s", d->d_name);
			break;
		}
	}
	closedir(dir);
	return fd;
}

/* Once per process: a mount namespace of our own whose mounts are all private. */
static int private_ns(int *all_private)
{
	static int all;

	if (!ns_private) {
		if (unshare(CLONE_NEWNS) < 0)
			return -errno;
		ns_private = 1;
		/* fails only where / is not a mount point (a chroot) */
		all = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
	}
	*all_private = all;
	return 0;
}

int bp_reader_detached_fs(const char *type)
{
#if defined(SYS_fsopen) && defined(SYS_fsconfig) && defined(SYS_fsmount)
	int tmpfs = strcmp(type, "tmpfs") == 0;
	long fs, mnt;

	fs = syscall(SYS_fsopen, type, BP_FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	if ((tmpfs && (syscall(SYS_fsconfig, (int)fs, BP_FSCONFIG_SET_STRING, "size", "64k", 0) < 0 ||
		       syscall(SYS_fsconfig, (int)fs, BP_FSCONFIG_SET_STRING, "mode", "0700", 0) < 0)) ||
	    syscall(SYS_fsconfig, (int)fs, BP_FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		int e = errno;

		close((int)fs);
		return -e;
	}
	mnt = syscall(SYS_fsmount, (int)fs, BP_FSMOUNT_CLOEXEC, 0);
	if (mnt < 0) {
		int e = errno;

		close((int)fs);
		return -e;
	}
	close((int)fs);
	return (int)mnt;
#else
	return -ENOSYS;
#endif
}

/* mknod + open in the directory dirfd, the node removed again at once. */
static int node_in(int dirfd, mode_t type, dev_t want, int flags)
{
	static const char node[] = "bootpack-node";
	int fd;

	unlinkat(dirfd, node, 0);
	if (mknodat(dirfd, node, type | 0600, want) < 0)
		return -errno;
	fd = open_node(dirfd, node, type, want, flags);
	unlinkat(dirfd, node, 0);
	return fd;
}

int bp_reader_private_node(mode_t type, dev_t want, int flags)
{
	static const char *const dirs[] = { "/dev", "/tmp", "/run", "/mnt" };
	int all_private = 0, mfd, fd, r;
	size_t i;

	r = private_ns(&all_private);
	if (r < 0)
		return r;
	mfd = bp_reader_detached_fs("tmpfs");
	if (mfd >= 0) {
		fd = node_in(mfd, type, want, flags);
		close(mfd);	/* the tmpfs goes with its last reference */
		return fd;
	}
	/*
	 * Older kernels: a tmpfs over a directory, in this namespace only. Not
	 * where our mounts could propagate back to the system's namespace.
	 */
	if (!all_private)
		return -EPERM;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (mount("bootpack", dirs[i], "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0700") < 0)
			continue;
		mfd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		fd = mfd >= 0 ? node_in(mfd, type, want, flags) : -errno;
		if (mfd >= 0)
			close(mfd);
		umount2(dirs[i], MNT_DETACH);
		return fd;
	}
	return -ENODEV;
}

/*
 * 1 if /dev is the root filesystem's own directory (no devtmpfs mounted):
 * as init= without an initramfs. Looking in it would only read directory
 * blocks from the very disk the reader is about to read in order.
 */
int bp_reader_dev_is_bare(void)
{
	struct stat root, dev;

	return stat("/", &root) == 0 && stat("/dev", &dev) == 0 && root.st_dev == dev.st_dev;
}

int bp_reader_open_blockdev(unsigned int major, unsigned int minor, int as_init, char *how,
			    size_t howsz)
{
	char path[96], buf[512];
	dev_t want = makedev(major, minor);
	const char *p;
	ssize_t n;
	int fd;

	if (major == 0)
		return -ENODEV;	/* no block device: tmpfs, btrfs, overlayfs, NFS ... */
	if (as_init && bp_reader_dev_is_bare()) {
		fd = bp_reader_private_node(S_IFBLK, want, O_RDONLY);
		if (fd >= 0) {
			snprintf(path, sizeof(path), "a private node");
			goto found;
		}
	}
	snprintf(path, sizeof(path), "/dev/block/%u:%u", major, minor);
	fd = open_node(AT_FDCWD, path, S_IFBLK, want, O_RDONLY);
	if (fd >= 0)
		goto found;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major, minor);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		p = strstr(buf, "DEVNAME=");
		if (p) {
			p += strlen("DEVNAME=");
			n = (ssize_t)strcspn(p, "\n");
			if (n > 0 && n <= 64 && !memmem(p, (size_t)n, "..", 2)) {
				snprintf(path, sizeof(path), "/dev/%.*s", (int)n, p);
				fd = open_node(AT_FDCWD, path, S_IFBLK, want, O_RDONLY);
				if (fd >= 0)
					goto found;
			}
		}
	}
	fd = scan_dev(want, path, sizeof(path));
	if (fd >= 0)
		goto found;
	fd = bp_reader_private_node(S_IFBLK, want, O_RDONLY);
	if (fd < 0)
		return fd;
	snprintf(path, sizeof(path), "a private node");
found:
	if (how && howsz)
		snprintf(how, howsz, "%s", path);
	return fd;
}

/* ext2/3/4 superblock: 1024 bytes at byte 1024, s_magic at 0x38, s_uuid at 0x68. */
#define SB_AT 1024
#define SB_MAGIC_AT 0x38
#define SB_UUID_AT 0x68

int bp_reader_sb_uuid(unsigned int major, unsigned int minor, int as_init, uint8_t uuid[16])
{
	uint8_t sb[SB_UUID_AT + 16];
	ssize_t n;
	int fd;

	fd = bp_reader_open_blockdev(major, minor, as_init, NULL, 0);
	if (fd < 0)
		return fd;
	n = pread(fd, sb, sizeof(sb), SB_AT);
	close(fd);
	if (n != (ssize_t)sizeof(sb))
		return n < 0 ? -errno : -EIO;
	if (sb[SB_MAGIC_AT] != 0x53 || sb[SB_MAGIC_AT + 1] != 0xef)
		return -EINVAL;	/* not ext2/3/4 */
	memcpy(uuid, sb + SB_UUID_AT, 16);
	return 0;
}

/*
 * Open the disk's queue/NAME (a partition's parent's) with flags; fd or
 * -errno. As init= with no /sys mounted, in a sysfs mounted nowhere
 * (bp_reader_detached_fs): no lookup in the root's own /sys, nothing
 * visible to anyone else.
 */
static int queue_attr(unsigned int major, unsigned int minor, int as_init, const char *name,
		      int flags)
{
	int dirfd = AT_FDCWD, fd;

	if (as_init) {
		struct stat root, st;

		/* no sysfs on /sys: stat does not read the directory, a lookup would */
		if (stat("/", &root) < 0 || stat("/sys", &st) < 0 || st.st_dev == root.st_dev) {
			dirfd = bp_reader_detached_fs("sysfs");
			if (dirfd < 0)
				return dirfd;
		}
	}
	fd = bp_queue_open(dirfd, major, minor, name, flags);
	if (dirfd != AT_FDCWD)
		close(dirfd);
	return fd;
}

int bp_reader_queue_u64(unsigned int major, unsigned int minor, int as_init, const char *name,
			uint64_t *v)
{
	int fd, rc;

	fd = queue_attr(major, minor, as_init, name, O_RDONLY);
	if (fd < 0)
		return fd;
	rc = bp_queue_fd_u64(fd, v);
	close(fd);
	return rc;
}

int bp_reader_rotational(unsigned int major, unsigned int minor, int as_init)
{
	uint64_t v;

	if (bp_reader_queue_u64(major, minor, as_init, "rotational", &v) || v > 1)
		return -1;
	return (int)v;
}

/*
 * A request the disk takes whole: the largest power of two of bytes not
 * above BP_READER_REQUEST, queue/max_sectors_kb, nor max_segments + 2 pages.
 * Pages of the page cache are a segment each unless adjacent in memory, so
 * 2^k pages fit into max_segments segments as soon as that many pages sit
 * next to a neighbour (virtio-blk: 254 segments, its queue of 256 less 2;
 * 1 MiB is whole when 2 of its 256 pages are). 0: unknown.
 */
uint64_t bp_reader_max_request(unsigned int major, unsigned int minor, int as_init)
{
	uint64_t kb, segs, max = BP_READER_REQUEST, req = 4096;

	if (bp_reader_queue_u64(major, minor, as_init, "max_sectors_kb", &kb) || kb > (1ULL << 30))
		return 0;
	if (kb * 1024 < max)
		max = kb * 1024;
	if (!bp_reader_queue_u64(major, minor, as_init, "max_segments", &segs) &&
	    segs < (1ULL << 30) && (segs + 2) * 4096 < max)
		max = (segs + 2) * 4096;
	if (max < 4096)
		return 0;
	while (req * 2 <= max)
		req *= 2;
	return req;
}

int bp_reader_set_read_ahead(unsigned int major, unsigned int minor, int as_init,
			     unsigned int kb, uint64_t *was)
{
	char buf[16];
	int fd, rc, n;

	fd = queue_attr(major, minor, as_init, "read_ahead_kb", O_RDWR);
	if (fd < 0)
		return fd;
	rc = bp_queue_fd_u64(fd, was);
	n = snprintf(buf, sizeof(buf), "%u\n", kb);
	if (!rc && pwrite(fd, buf, (size_t)n, 0) != n)
		rc = -errno;
	close(fd);
	return rc;
}
