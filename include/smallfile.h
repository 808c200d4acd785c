/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smallfile.h --- reading a small file whole: sysfs and procfs values, settings
 *
 * libc only: bootpack-read links this file.
 */
#ifndef BP_SMALLFILE_H
#define BP_SMALLFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Up to max-1 bytes of the regular file path into buf, NUL-terminated (a
 * FIFO or device is refused, -EINVAL: it could block or never end). 0 or
 * -errno.
 */
int bp_read_small(const char *path, char *buf, size_t max);
/* Its first line, the newline dropped. 0 or -errno. */
int bp_read_line(const char *path, char *buf, size_t max);
/* The decimal number it starts with (a sysfs value). 0 or -errno. */
int bp_read_u64(const char *path, uint64_t *v);
/* The decimal number buf starts with, as sysfs prints one ("128\n"). 0 or -EINVAL. */
int bp_parse_value_u64(const char *buf, uint64_t *v);

#endif /* BP_SMALLFILE_H */
