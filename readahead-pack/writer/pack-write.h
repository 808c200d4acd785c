/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-write.h --- serialize a pack (pack-format.h) and save it atomically
 */
#ifndef BP_PACK_WRITE_H
#define BP_PACK_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "bperr.h"
#include "pack-parse.h"

/* One file entry to write; 'file' indexes bp_pack_wdata.paths. */
struct bp_pack_wentry {
	uint64_t offset, length, phys, budget_pos, size;
	int64_t mtime_sec;
	uint32_t mtime_nsec, ino, generation, flags;
	uint32_t file;
};

enum bp_pack_compress {
	BP_PACK_COMPRESS_AUTO = 0,	/* deflate when the body gets smaller */
	BP_PACK_COMPRESS_NEVER,
	BP_PACK_COMPRESS_ALWAYS,
};

struct bp_pack_wdata {
	uint8_t uuid[16];
	uint32_t block_size;
	uint32_t dev_major, dev_minor;
	int64_t created;
	uint64_t budget;		/* 0: none */
	uint64_t cut_bytes;
	uint32_t feature_compat;	/* BP_PACK_COMPAT_* (PAGE_SIZE: from page_size) */
	/*
	 * The page size the pack is for (a power of two, BP_PACK_PAGE_SIZE_MIN
	 * to _MAX): written with COMPAT_PAGE_SIZE in a 136-byte header. 0:
	 * the 128-byte header of older writers, read as 4096.
	 */
	uint32_t page_size;
	enum bp_pack_compress compress;

	const struct bp_pack_meta *meta;	/* sorted by offset, not overlapping */
	size_t nmeta;
	const struct bp_pack_wentry *entries;	/* sorted by phys */
	size_t nentries;
	const char *const *paths;		/* distinct, absolute and normalized */
	size_t npaths;
};

/*
 * Build the pack bytes in a malloc'd buffer. Refuses (EINVAL, message in
 * err) anything the parser would refuse: unsorted records, bad paths,
 * limits exceeded. *ret_len is the file size.
 */
errcode_t bp_pack_serialize(const struct bp_pack_wdata *d, void **ret_buf, size_t *ret_len,
			    struct bp_err *err);

/*
 * Write buf to path atomically: PATH.tmp-XXXXXX in the same directory
 * (mode 0644), write, fsync, rename over path, fsync the directory. The
 * directory must exist. Owned by whoever runs it (root at boot).
 */
errcode_t bp_pack_save(const char *path, const void *buf, size_t len, struct bp_err *err);

#endif /* BP_PACK_WRITE_H */
