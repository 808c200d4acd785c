// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-blockkind.c --- what every block of an ext2/3/4 image is, for the boot bench's miss report
 *
 *   bp-blockkind IMAGE > IMAGE.kinds
 *
 * Prints "blocksize N", then one line per run of blocks of one kind:
 *
 *   START COUNT KIND
 *
 * KIND is one of sb (superblocks, group descriptors, reserved GDT blocks),
 * bitmap (block and inode bitmaps), itable (inode tables), dir (directory
 * blocks), xtree (extent tree and indirect blocks), xattr (extended
 * attribute blocks), journal (the journal inode's blocks), data (a file's
 * data). Free blocks are not listed. Blocks are counted from 0 on the
 * filesystem. The bench classifies the boot's reads with it
 * (report.py): what a boot process read that the pack did not hold, by kind.
 * Which block is which kind is its own view, shared with neither relayout
 * nor the pack; only the walk over the inode tables is the common one
 * (bp_ext2_inodes_walk()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "ext2file.h"

enum kind { K_FREE, K_SB, K_BITMAP, K_ITABLE, K_DIR, K_XTREE, K_XATTR, K_JOURNAL, K_DATA };

static const char *const names[] = {
	[K_FREE] = "free", [K_SB] = "sb", [K_BITMAP] = "bitmap", [K_ITABLE] = "itable",
	[K_DIR] = "dir", [K_XTREE] = "xtree", [K_XATTR] = "xattr", [K_JOURNAL] = "journal",
	[K_DATA] = "data",
};

struct walk {
	unsigned char *k;
	blk64_t nblocks;
	enum kind leaf;
};

static void set(struct walk *w, blk64_t b, blk64_t n, enum kind k)
{
	for (; n && b < w->nblocks; b++, n--)
		w->k[b] = (unsigned char)k;
}

static int block_cb(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		    int ref_offset, void *priv)
{
	struct walk *w = priv;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	set(w, *blocknr, 1, blockcnt < 0 ? K_XTREE : w->leaf);
	return 0;
}

static errcode_t fixed(ext2_filsys fs, struct walk *w)
{
	ext2fs_block_bitmap sb;
	dgrp_t g;
	blk64_t b;
	errcode_t rc;

	rc = ext2fs_allocate_block_bitmap(fs, "sb", &sb);
	if (rc)
		return rc;
	for (g = 0; g < fs->group_desc_count; g++) {
		ext2fs_reserve_super_and_bgd(fs, g, sb);
		set(w, ext2fs_block_bitmap_loc(fs, g), 1, K_BITMAP);
		set(w, ext2fs_inode_bitmap_loc(fs, g), 1, K_BITMAP);
		set(w, ext2fs_inode_table_loc(fs, g), fs->inode_blocks_per_group, K_ITABLE);
	}
	for (b = fs->super->s_first_data_block; b < w->nblocks; b++)
		if (ext2fs_test_block_bitmap2(sb, b) && w->k[b] == K_FREE)
			w->k[b] = K_SB;
	/* block 0 of a 4 KiB filesystem holds the boot sector and the superblock */
	if (!fs->super->s_first_data_block)
		w->k[0] = K_SB;
	ext2fs_free_block_bitmap(sb);
	return 0;
}

static errcode_t inode_cb(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *inode,
			  void *priv)
{
	struct walk *w = priv;
	blk64_t acl;

	acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)inode);
	if (acl)
		set(w, acl, 1, K_XATTR);
	if (!ext2fs_inode_has_valid_blocks2(fs, (struct ext2_inode *)inode))
		return 0;
	w->leaf = ino == fs->super->s_journal_inum ? K_JOURNAL :
		  LINUX_S_ISDIR(inode->i_mode) ? K_DIR : K_DATA;
	return ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY, NULL, block_cb, w);
}

int main(int argc, char **argv)
{
	ext2_filsys fs;
	struct walk w = { 0 };
	blk64_t b, start;
	errcode_t rc;

	if (argc != 2) {
		fprintf(stderr, "usage: bp-blockkind IMAGE\n");
		return 2;
	}
	rc = ext2fs_open(argv[1], EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (rc) {
		fprintf(stderr, "bp-blockkind: %s: %s\n", argv[1], error_message(rc));
		return 1;
	}
	w.nblocks = ext2fs_blocks_count(fs->super);
	w.k = calloc(w.nblocks, 1);
	rc = w.k ? 0 : ENOMEM;
	if (!rc)
		rc = fixed(fs, &w);
	if (!rc)
		rc = bp_ext2_inodes_walk(fs, inode_cb, &w);
	if (rc) {
		fprintf(stderr, "bp-blockkind: %s: %s\n", argv[1], error_message(rc));
		ext2fs_close_free(&fs);
		free(w.k);
		return 1;
	}
	printf("blocksize %u\n", fs->blocksize);
	for (b = 0; b < w.nblocks; b = start) {
		start = b + 1;
		if (w.k[b] == K_FREE)
			continue;
		while (start < w.nblocks && w.k[start] == w.k[b])
			start++;
		printf("%llu %llu %s\n", (unsigned long long)b, (unsigned long long)(start - b),
		       names[w.k[b]]);
	}
	ext2fs_close_free(&fs);
	free(w.k);
	return 0;
}
