/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * queueattr.h --- a disk's queue attributes in sysfs, read in one place
 *
 * /sys/dev/block/MAJOR:MINOR/queue/NAME, or for a partition its disk's
 * (.../MAJOR:MINOR/../queue/NAME). Used by the reader (also static, as
 * init=, with sysfs mounted nowhere: dirfd is that mount), by
 * 'bootpack trace --from-boot' and by 'bootpack probe'. libc only.
 */
#ifndef BP_QUEUEATTR_H
#define BP_QUEUEATTR_H

#include <stdint.h>

/*
 * Open queue/name of major:minor with flags (O_CLOEXEC added): fd, or
 * -errno of the last try. dirfd: AT_FDCWD for /sys, else a sysfs mount.
 */
int bp_queue_open(int dirfd, unsigned int major, unsigned int minor, const char *name, int flags);

/* Its value as a number: 0, or -errno (-EINVAL: not a number). */
int bp_queue_u64(int dirfd, unsigned int major, unsigned int minor, const char *name,
		 uint64_t *v);

/* The number at offset 0 of an open attribute: 0 or -errno. */
int bp_queue_fd_u64(int fd, uint64_t *v);

#endif /* BP_QUEUEATTR_H */
