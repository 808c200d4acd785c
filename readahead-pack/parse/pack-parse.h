/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pack-parse.h --- the pack parser: libc and zlib only, for bootpack-read too
 *
 * Every count, offset and length of a pack is checked against the buffer and
 * the hard limits of pack-format.h when it is opened; the accessors below
 * then only decode and cannot fail on a pack that opened. Functions return
 * 0 or a negative errno and never print:
 *
 *   -EBADMSG     corrupt: bad magic, CRC mismatch, truncated, inconsistent
 *                counts or sizes, out-of-range offsets, unsorted records,
 *                an invalid path
 *   -EOPNOTSUPP  valid but not understood: other version, unknown incompat
 *                feature
 *   -E2BIG       beyond a hard limit (entries, string table, body, file size)
 *   -ENOMEM      out of memory
 *   -EPERM       bp_pack_load_file(): not owned by root, or writable by
 *                group or others
 *   -EINVAL      bp_pack_load_file(): not a regular file
 *   other        errno of open/fstat/read
 *
 * A static string saying what exactly was wrong ("header CRC mismatch") is
 * stored through 'why' when it is not NULL.
 */
#ifndef BP_PACK_PARSE_H
#define BP_PACK_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "fileid.h"
#include "pack-format.h"

struct bp_pack;

/* The header, decoded to host order. */
struct bp_pack_info {
	uint32_t version;
	uint32_t hdr_size;
	uint32_t feature_compat;
	uint32_t feature_incompat;
	uint32_t feature_ro_compat;
	uint8_t uuid[16];
	uint32_t block_size;
	uint32_t dev_major, dev_minor;
	int64_t created;
	uint64_t budget;
	uint64_t total_bytes;
	uint64_t cut_bytes;
	uint64_t body_size;
	uint64_t body_raw_size;
	uint32_t nmeta;
	uint32_t nentries;
	uint32_t strtab_size;
	uint32_t nfiles;
	uint32_t page_size;	/* built for; 4096 without BP_PACK_COMPAT_PAGE_SIZE */
	uint32_t header_crc, body_crc;
};

struct bp_pack_meta {
	uint64_t offset;	/* physical byte offset on the device */
	uint64_t length;
	uint64_t budget_pos;
};

struct bp_pack_entry {
	uint64_t offset;	/* byte offset in the file */
	uint64_t length;
	uint64_t phys;		/* physical byte offset on the device */
	uint64_t budget_pos;
	uint64_t size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
	uint32_t ino;
	uint32_t generation;
	uint32_t flags;
	uint32_t path_off;	/* identifies the file: entries of one file share it */
	uint32_t path_len;
	const char *path;	/* NUL-terminated, inside the pack; valid until bp_pack_free() */
};

/* The file's identity as the pack recorded it. */
static inline struct bp_file_id bp_pack_entry_id(const struct bp_pack_entry *e)
{
	return (struct bp_file_id){ .ino = e->ino, .generation = e->generation, .size = e->size,
				    .mtime_sec = e->mtime_sec, .mtime_nsec = e->mtime_nsec };
}

/* How bp_file_compare() compares with this pack's entries (feature_compat bits). */
static inline unsigned int bp_pack_id_cmp(uint32_t feature_compat)
{
	return (feature_compat & BP_PACK_COMPAT_MTIME_NSEC) ? BP_FILE_CMP_NSEC : 0;
}

/*
 * Parse a pack held in memory. The pack refers to buf when the body is not
 * compressed: buf must stay valid and unchanged until bp_pack_free().
 */
int bp_pack_open_mem(const void *buf, size_t len, struct bp_pack **ret);
int bp_pack_open_mem_why(const void *buf, size_t len, struct bp_pack **ret, const char **why);

/* bp_pack_load_file() flags */
#define BP_PACK_LOAD_ANY_OWNER	0x1	/* accept a pack not owned by root (tests as non-root) */

/*
 * Read and parse a pack file: opened with O_RDONLY|O_NOFOLLOW|O_CLOEXEC|
 * O_NONBLOCK (a FIFO never blocks), then fstat(): a regular file, at most
 * BP_PACK_MAX_FILE bytes, owned by root (unless BP_PACK_LOAD_ANY_OWNER) and
 * not writable by group or others. The pack owns the bytes it read.
 */
int bp_pack_load_file(const char *path, unsigned int flags, struct bp_pack **ret,
		      const char **why);

/* Same, on an open descriptor (not closed). */
int bp_pack_load_fd(int fd, unsigned int flags, struct bp_pack **ret, const char **why);

void bp_pack_free(struct bp_pack *p);

const struct bp_pack_info *bp_pack_info(const struct bp_pack *p);
uint32_t bp_pack_nmeta(const struct bp_pack *p);
uint32_t bp_pack_nentries(const struct bp_pack *p);

/* Decode record i; -ERANGE if i is out of range. */
int bp_pack_meta(const struct bp_pack *p, uint32_t i, struct bp_pack_meta *m);
int bp_pack_entry(const struct bp_pack *p, uint32_t i, struct bp_pack_entry *e);

/*
 * 1 if path is absolute and normalized as the format requires (len bytes,
 * no NUL among them), else 0.
 */
int bp_pack_path_ok(const char *path, size_t len);

/* "BOOTPACK" at the start of buf? (for dispatch by magic) */
int bp_pack_has_magic(const void *buf, size_t len);

/* Text for the negative errno values above, for messages (never NULL). */
const char *bp_pack_strerror(int err);

#endif /* BP_PACK_PARSE_H */
