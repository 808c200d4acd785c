// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sbwrite.c --- superblock writes that change only the superblock's first sector
 *
 * The primary superblock is 1024 bytes: two 512-byte sectors. On a disk
 * whose physical sector is 512 bytes, a power cut during the write may land
 * one sector and not the other; with metadata_csum the superblock then fails
 * its checksum, e2fsck -p gives up and the kernel refuses to mount.
 *
 * Everything relayout changes in the superblock (s_state, the free counts)
 * lies in the first sector; only s_checksum lies in the second. So the
 * checksum is kept as it is on disk, and four bytes of the first sector that
 * nothing reads -- the tail of s_last_mounted, after its terminating NUL --
 * are chosen so that the new contents have that same checksum. CRC32c is
 * affine over GF(2): the four bytes are 32 unknowns of a 32x32 linear
 * system, solved by Gaussian elimination. The write then changes a single
 * sector, and any crash leaves the old or the new superblock, both valid.
 * When that is not possible (s_last_mounted is full, or something else in
 * the second sector changed) the superblock is written as one 1024-byte
 * write, as the library does.
 */
#include <stddef.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "rl-int.h"

#define SB_SECTOR 512
#define FORGE_AT (offsetof(struct ext2_super_block, s_last_mounted) + 60)
#define CSUM_AT offsetof(struct ext2_super_block, s_checksum)

static __u32 sb_crc(const unsigned char *sb)
{
	return ext2fs_crc32c_le(~0U, sb, CSUM_AT);
}

/* Choose sb[FORGE_AT..+4) so that sb_crc(sb) == target. 0, or -1 if impossible. */
static int forge_crc(unsigned char *sb, __u32 target)
{
	__u32 col[32], row[32], base, want, t;
	int rhs[32], i, r, c, p, ti;

	memset(sb + FORGE_AT, 0, 4);
	base = sb_crc(sb);
	for (i = 0; i < 32; i++) {
		sb[FORGE_AT + i / 8] = (unsigned char)(1U << (i % 8));
		col[i] = sb_crc(sb) ^ base;
		sb[FORGE_AT + i / 8] = 0;
	}
	want = base ^ target;
	/* Row r: which unknown bits flip output bit r. */
	for (r = 0; r < 32; r++) {
		row[r] = 0;
		for (i = 0; i < 32; i++)
			if ((col[i] >> r) & 1)
				row[r] |= 1U << i;
		rhs[r] = (want >> r) & 1;
	}
	for (c = 0; c < 32; c++) {
		for (p = c; p < 32 && !((row[p] >> c) & 1); p++)
			;
		if (p == 32)
			return -1;
		t = row[p], row[p] = row[c], row[c] = t;
		ti = rhs[p], rhs[p] = rhs[c], rhs[c] = ti;
		for (r = 0; r < 32; r++) {
			if (r != c && ((row[r] >> c) & 1)) {
				row[r] ^= row[c];
				rhs[r] ^= rhs[c];
			}
		}
	}
	for (i = 0; i < 32; i++)
		if (rhs[i])
			sb[FORGE_AT + i / 8] |= (unsigned char)(1U << (i % 8));
	return sb_crc(sb) == target ? 0 : -1;
}

static errcode_t sb_io(ext2_filsys fs, unsigned char *buf, int write)
{
	errcode_t rc, rc2;

	io_channel_set_blksize(fs->io, SUPERBLOCK_OFFSET);
	if (write)
		rc = io_channel_write_blk64(fs->io, 1, -SUPERBLOCK_SIZE, buf);
	else
		rc = io_channel_read_blk64(fs->io, 1, -SUPERBLOCK_SIZE, buf);
	rc2 = io_channel_set_blksize(fs->io, fs->blocksize);
	return rc ? rc : rc2;
}

errcode_t rl_write_super(ext2_filsys fs, struct bp_relayout_report *rep)
{
	unsigned char old[SUPERBLOCK_SIZE], new[SUPERBLOCK_SIZE];
	struct ext2_super_block *sb = (struct ext2_super_block *)new;
	struct ext2_super_block *osb = (struct ext2_super_block *)old;
	errcode_t rc;

	rc = sb_io(fs, old, 0);
	if (rc)
		return rc;
	ext2fs_superblock_csum_set(fs, fs->super);
	memcpy(new, fs->super, SUPERBLOCK_SIZE);
#ifdef WORDS_BIGENDIAN
	ext2fs_swap_super(sb);
#endif
	if (ext2fs_has_feature_metadata_csum(fs->super) &&
	    strnlen((const char *)sb->s_last_mounted, sizeof(sb->s_last_mounted)) < 60) {
		unsigned char try[SUPERBLOCK_SIZE];

		memcpy(try, new, sizeof(try));
		((struct ext2_super_block *)try)->s_checksum = osb->s_checksum;
		if (forge_crc(try, ext2fs_le32_to_cpu(osb->s_checksum)) == 0 &&
		    memcmp(try + SB_SECTOR, old + SB_SECTOR, SUPERBLOCK_SIZE - SB_SECTOR) == 0) {
			memcpy(new, try, sizeof(new));
			/* Keep the copy in memory identical to what is on disk. */
			memcpy(fs->super->s_last_mounted, sb->s_last_mounted,
			       sizeof(sb->s_last_mounted));
			fs->super->s_checksum = ext2fs_le32_to_cpu(sb->s_checksum);
			rep->sb_one_sector++;
		}
	}
	rc = sb_io(fs, new, 1);
	rep->sb_writes++;
	rep->writes++;
	if (!rc)
		fs->flags &= ~EXT2_FLAG_DIRTY;
	return rc;
}
