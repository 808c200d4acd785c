/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsident.h --- which filesystem: the one read-only open, UUID text, and
 * the one "is this trace or pack of this filesystem" rule
 *
 * Read-only open. Every verb that only reads a filesystem (trace, pack,
 * verify, bench, dump) opens it with bp_fs_open_ro(), with the flags
 * BP_FS_OPEN_RO_FLAGS: 64-bit block numbers; MMP skipped (we never write,
 * so there is nothing to protect, and a mounted filesystem stays readable);
 * checksum errors ignored (a measurement reads what is there; relayout,
 * which writes, opens with its own flags in relayout/preflight.c and
 * refuses what does not check out).
 *
 * Identity rule. A trace or a pack belongs to a filesystem when both
 * (1) its UUID, parsed as 16 bytes (canonical text with the four dashes;
 *     the trace loader accepts lower case only), equals the superblock's
 *     s_uuid, or the pack's 16 bytes do; a UUID that does not parse
 *     or is empty never matches, and a filesystem whose UUID is null (all
 *     zeros) cannot be told apart from another and is refused (the fix is
 *     'tune2fs -U random'); and
 * (2) its block size equals the filesystem's.
 * Anything else is BP_ET_TRACE_MISMATCH with one message naming both UUIDs
 * and block sizes, whatever the verb (exit status 4). bootpack-read links no
 * libext2fs: it applies (1) to the root's UUID as FS_IOC_GETFSUUID gives it
 * (readahead-pack/reader/reader-io.c), and skips the check where the kernel
 * cannot say; the writer never makes a pack without (2) holding.
 */
#ifndef BP_FSIDENT_H
#define BP_FSIDENT_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"

#define BP_FS_OPEN_RO_FLAGS (EXT2_FLAG_64BITS | EXT2_FLAG_SKIP_MMP | EXT2_FLAG_IGNORE_CSUM_ERRORS)

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" and its NUL. */
#define BP_UUID_STR_LEN 37

/*
 * Where a filesystem is: a block device or an image file, and the byte
 * offset in it where the filesystem starts (a partition inside a disk
 * image; 0: at the start). The offset reaches libext2fs as the unix I/O
 * manager's "offset=" option, so no loop device is needed; every path
 * that takes a bare device name means offset 0.
 */
struct bp_fsloc {
	const char *path;
	uint64_t offset;
};

/* The io_options of ext2fs_open2() for loc into buf ("offset=N"), or NULL at offset 0. */
const char *bp_fsloc_io_options(const struct bp_fsloc *loc, char *buf, size_t len);

/* bp_fs_open_ro() of the filesystem at loc. */
errcode_t bp_fs_open_ro_at(const struct bp_fsloc *loc, ext2_filsys *ret, struct bp_err *err);

/*
 * Open device read-only (flags above). Errors: BP_ET_NOT_EXT (not ext2/3/4
 * or a damaged superblock), BP_ET_UNSUPPORTED (features this libext2fs
 * cannot read), or the library's code; err says which device and why.
 */
errcode_t bp_fs_open_ro(const char *device, ext2_filsys *ret, struct bp_err *err);

/* The same errors for any failed ext2fs_open2() rc (relayout's own open),
 * plus BP_ET_BUSY for EBUSY (an exclusive open refused). Returns the code. */
errcode_t bp_fs_open_error(const char *device, errcode_t rc, struct bp_err *err);

/* Lower-case canonical text of a 16-byte UUID into buf (BP_UUID_STR_LEN). */
void bp_uuid_str(const uint8_t uuid[16], char *buf);

/* Parse canonical UUID text (either case): 0, or -1 if it is not one. */
int bp_uuid_parse(const char *s, uint8_t uuid[16]);

/*
 * The identity rule above: 0 if the trace or pack (what: "trace" or
 * "pack") with this UUID text and block size is of fs, else
 * BP_ET_TRACE_MISMATCH with the message in err.
 */
errcode_t bp_fs_check_ident(ext2_filsys fs, const char *device, const char *what,
			    const char *uuid, uint32_t block_size, struct bp_err *err);

#endif /* BP_FSIDENT_H */
