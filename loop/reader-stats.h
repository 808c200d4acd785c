/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader-stats.h --- how much of a pack the page cache holds now (mincore)
 */
#ifndef BP_READER_STATS_H
#define BP_READER_STATS_H

#include <stdint.h>

struct bp_pack;

struct bp_pack_residency {
	uint64_t packed;	/* bytes of file ranges in the pack */
	uint64_t resident;	/* of those, in the page cache now, files unchanged */
	uint64_t changed;	/* bytes of files that are gone or changed since the pack */
	uint32_t files, changed_files;
	char first_changed[256];	/* one changed file, for the message */
};

/*
 * For every file range of the pack, under root ("/" or a tree): the file is
 * opened (O_NOATIME when allowed), compared with the pack (inode number,
 * size, mtime: a file replaced by a package differs), and the range is
 * mapped and asked with mincore(2) which pages are resident. Nothing is
 * read, so the sample does not change what it measures. Returns 0 or a
 * negative errno (out of memory).
 */
int bp_pack_residency(const char *root, const struct bp_pack *p, struct bp_pack_residency *r);

#endif /* BP_READER_STATS_H */
