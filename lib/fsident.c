// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsident.c --- read-only open, UUID text, the identity rule (fsident.h)
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "fsident.h"

const char *bp_fsloc_io_options(const struct bp_fsloc *loc, char *buf, size_t len)
{
	if (!loc->offset)
		return NULL;
	snprintf(buf, len, "offset=%llu", (unsigned long long)loc->offset);
	return buf;
}

errcode_t bp_fs_open_ro_at(const struct bp_fsloc *loc, ext2_filsys *ret, struct bp_err *err)
{
	char opt[64];
	errcode_t rc;

	*ret = NULL;
	rc = ext2fs_open2(loc->path, bp_fsloc_io_options(loc, opt, sizeof(opt)),
			  BP_FS_OPEN_RO_FLAGS, 0, 0, unix_io_manager, ret);
	return rc ? bp_fs_open_error(loc->path, rc, err) : 0;
}

errcode_t bp_fs_open_ro(const char *device, ext2_filsys *ret, struct bp_err *err)
{
	struct bp_fsloc loc = { device, 0 };

	return bp_fs_open_ro_at(&loc, ret, err);
}

errcode_t bp_fs_open_error(const char *device, errcode_t rc, struct bp_err *err)
{
	if (rc == EBUSY)
		return bp_err_set(err, BP_ET_BUSY,
				  "%s: cannot be opened exclusively (mounted or in use)", device);
	if (rc == EXT2_ET_UNSUPP_FEATURE || rc == EXT2_ET_RO_UNSUPP_FEATURE)
		return bp_err_lib(err, BP_ET_UNSUPPORTED, "%s: %s", device, error_message(rc));
	if (rc == EXT2_ET_BAD_MAGIC || rc == EXT2_ET_SB_CSUM_INVALID ||
	    rc == EXT2_ET_CORRUPT_SUPERBLOCK)
		return bp_err_set(err, BP_ET_NOT_EXT, "%s: %s; run 'e2fsck -f %s'", device,
				  error_message(rc), device);
	return bp_err_lib(err, rc, "%s: while opening the filesystem", device);
}

void bp_uuid_str(const uint8_t u[16], char *buf)
{
	snprintf(buf, BP_UUID_STR_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int bp_uuid_parse(const char *s, uint8_t u[16])
{
	size_t i, n = 0;

	if (!s || strlen(s) != BP_UUID_STR_LEN - 1)
		return -1;
	for (i = 0; i < BP_UUID_STR_LEN - 1; i += 2) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -1;
			i++;
		}
		hi = hexval((unsigned char)s[i]);
		lo = hexval((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		u[n++] = (uint8_t)(hi << 4 | lo);
	}
	return n == 16 ? 0 : -1;
}

errcode_t bp_fs_check_ident(ext2_filsys fs, const char *device, const char *what,
			    const char *uuid, uint32_t block_size, struct bp_err *err)
{
	static const uint8_t null_uuid[16];
	char fs_uuid[BP_UUID_STR_LEN];
	uint8_t u[16];

	bp_uuid_str(fs->super->s_uuid, fs_uuid);
	if (memcmp(fs->super->s_uuid, null_uuid, 16) == 0)
		return bp_err_set(err, BP_ET_TRACE_MISMATCH,
				  "%s: the filesystem has no UUID, so no %s can be shown to be of "
				  "it; give it one with 'tune2fs -U random %s'",
				  device, what, device);
	if (bp_uuid_parse(uuid, u) || memcmp(u, fs->super->s_uuid, 16) ||
	    block_size != fs->blocksize)
		return bp_err_set(err, BP_ET_TRACE_MISMATCH,
				  "%s: the %s is of filesystem UUID %s (block size %u), this one "
				  "is UUID %s (block size %u); make the %s again on this filesystem",
				  device, what, uuid && *uuid ? uuid : "(none)", block_size,
				  fs_uuid, fs->blocksize, what);
	return 0;
}
