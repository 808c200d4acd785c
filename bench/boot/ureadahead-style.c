// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ureadahead-style.c --- the boot bench's re-implementation of ureadahead's HDD replay
 *
 * As published by Scott James Remnant (Ubuntu 9.10-19.10, do_readahead_hdd):
 * nice -20 and the highest real-time I/O priority ("to hog all bandwidth");
 * the inode tables of block groups holding more than 8 listed files are
 * preloaded (ureadahead scans them with libext2fs: buffered reads of the
 * device, which fill the device's page cache the filesystem reads inodes
 * from; here plain reads of the same bytes of the device); then every file
 * is opened, in the order of its inode on disk; then one readahead(2) pass
 * over all ranges sorted by physical position (each range asked for in
 * pieces the kernel honours, as ureadahead does since 2019: rdinit.c). No relayout. Unlike the
 * original it does not hold up init: it is started as an init= wrapper
 * (rdinit.c) that execs init at once. The list (rdlist.h) comes from
 * bp-readlist on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rdinit.h"
#include "rdlist.h"

#define INODE_GROUP_PRELOAD_THRESHOLD 8
#define IOPRIO_CLASS_RT 1
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_PRIO_VALUE(class, data) (((class) << 13) | (data))

static struct rd_opts opts = {
	.name = "ureadahead-style",
	.list = "/var/lib/bench/ureadahead.list",
	.root = "",
};
static struct rd_list list;

static int by_inode(const void *a, const void *b)
{
	const struct rd_file *x = *(struct rd_file *const *)a, *y = *(struct rd_file *const *)b;

	return x->inode_pos < y->inode_pos ? -1 : x->inode_pos > y->inode_pos;
}

static int by_physical(const void *a, const void *b)
{
	const struct rd_range *x = a, *y = b;

	return x->physical < y->physical ? -1 : x->physical > y->physical;
}

/*
 * The device holding root: the list's D line if it is that device, else a
 * node of our own (in the private /dev rdinit.c mounts in a bare init).
 */
static int open_device(void)
{
	static const char node[] = "/dev/.ureadahead-style-root";
	struct stat root, dev;
	int fd = -1;

	if (stat(*opts.root ? opts.root : "/", &root) < 0)
		return -1;
	if (list.device)
		fd = open(list.device, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &dev) < 0 || !S_ISBLK(dev.st_mode) || dev.st_rdev != root.st_dev)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && mknod(node, S_IFBLK | 0600, root.st_dev) == 0) {
		fd = open(node, O_RDONLY | O_CLOEXEC);
		unlink(node);
		if (fd >= 0)
			rd_log(&opts, "inode tables read through a private node");
	}
	if (fd < 0)
		rd_log(&opts, "no node for the root's device: inode tables not preloaded");
	return fd;
}

/* Read [off, off+len) of the device through its page cache, as a scan would. */
static int read_dev(int fd, uint64_t off, uint64_t len)
{
	static char buf[1 << 20];
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len < sizeof(buf) ? len : sizeof(buf), (off_t)off);
		if (n <= 0)
			return -1;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[RD_PATH_MAX * 2];
	struct rd_file **order;
	struct rlimit rl;
	unsigned long line;
	uint64_t bytes = 0, itbytes = 0;
	size_t i, opened = 0, groups = 0;
	double t0, t1, t2;
	int rc, dev;

	rd_start(argc, argv, &opts);
	t0 = rd_now_ms();
	if (setpriority(PRIO_PROCESS, 0, -20) < 0)
		rd_log(&opts, "nice -20: %s", strerror(errno));
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0)) < 0)
		rd_log(&opts, "real-time I/O priority: %s", strerror(errno));
	rc = rd_list_load(opts.list, &list, &line);
	if (rc) {
		rd_log(&opts, "%s:%lu: %s", opts.list, line, strerror(-rc));
		return 1;
	}
	rd_log(&opts, "start: %zu files, %zu ranges", list.nfiles, list.nranges);

	/* 1. Inode tables of the groups with many listed files. */
	dev = open_device();
	if (dev >= 0) {
		for (i = 0; i < list.nitables; i++) {
			const struct rd_itable *it = &list.itables[i];

			if (it->files <= INODE_GROUP_PRELOAD_THRESHOLD)
				continue;
			if (read_dev(dev, it->offset, it->length) == 0) {
				itbytes += it->length;
				groups++;
			}
		}
		close(dev);
	}
	t1 = rd_now_ms();

	/* 2. Open every file, in the order of its inode on disk; keep it open. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < list.nfiles + 64) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	order = malloc((list.nfiles ? list.nfiles : 1) * sizeof(*order));
	if (!order) {
		rd_log(&opts, "out of memory");
		return 1;
	}
	for (i = 0; i < list.nfiles; i++)
		order[i] = &list.files[i];
	qsort(order, list.nfiles, sizeof(*order), by_inode);
	for (i = 0; i < list.nfiles; i++) {
		struct stat st;
		int fd;

		snprintf(path, sizeof(path), "%s%s", opts.root, order[i]->path);
		fd = open(path, O_RDONLY | O_NOATIME | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		order[i]->fd = fd;
		opened++;
	}
	free(order);
	t2 = rd_now_ms();

	/* 3. One pass over all ranges in physical order. */
	qsort(list.ranges, list.nranges, sizeof(*list.ranges), by_physical);
	for (i = 0; i < list.nranges; i++) {
		const struct rd_range *r = &list.ranges[i];
		int fd = list.files[r->file].fd;

		if (fd >= 0 && rd_readahead(&opts, fd, r->offset, r->length) == 0)
			bytes += r->length;
	}
	for (i = 0; i < list.nfiles; i++)
		if (list.files[i].fd >= 0)
			close(list.files[i].fd);
	rd_log(&opts,
	       "done: %zu inode tables (%llu bytes) in %.0f ms, %zu files opened in %.0f ms, "
	       "%llu bytes in %.0f ms", groups, (unsigned long long)itbytes, t1 - t0, opened,
	       t2 - t1, (unsigned long long)bytes, rd_now_ms() - t2);
	rd_list_free(&list);
	return 0;
}
