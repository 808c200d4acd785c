/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdlist.h --- the read list of the boot bench's sreadahead- and ureadahead-style readers
 *
 * Text, one record per line, fields separated by one TAB, '#' starts a
 * comment. Written on the host by bp-readlist from a bootpack trace and the
 * image (libext2fs block map), read in the guest by the readers:
 *
 *   D <device>                         the root block device in the guest
 *   I <offset> <length> <files>        an inode table: bytes on the device, of a
 *                                      block group holding <files> listed files
 *   /<path> <offset> <length> <physical> <inode_pos>
 *                                      one range of a file, in first-access order:
 *                                      file bytes [offset, offset+length), which lie
 *                                      contiguously at byte <physical> of the device;
 *                                      <inode_pos>: byte position of the file's inode
 *
 * Paths are absolute in the guest and contain no TAB or newline. Numbers
 * are unsigned decimal.
 */
#ifndef BP_RDLIST_H
#define BP_RDLIST_H

#include <stddef.h>
#include <stdint.h>

#define RD_PATH_MAX 4096
#define RD_MAX_RANGES 1000000

struct rd_range {
	size_t file;		/* index into rd_list.files */
	uint64_t offset, length, physical;
};

struct rd_file {
	char *path;
	uint64_t inode_pos;
	int fd;			/* -1 when not open */
};

struct rd_itable {
	uint64_t offset, length, files;
};

struct rd_list {
	char *device;
	struct rd_file *files;		/* in order of first appearance */
	size_t nfiles;
	struct rd_range *ranges;	/* in list order */
	size_t nranges;
	struct rd_itable *itables;
	size_t nitables;
};

/* Parse path; returns 0 or a negative errno; *line gets a bad line's number. */
int rd_list_load(const char *path, struct rd_list *l, unsigned long *line);
void rd_list_free(struct rd_list *l);

#endif /* BP_RDLIST_H */
