// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz-mutate.c --- corrupt an ext2/3/4 image where relayout's preflight must look
 *
 *   fuzz-mutate IMAGE SEED
 *
 * Finds, through libext2fs, the bytes that describe the filesystem's layout:
 * group descriptors, block and inode bitmaps, the in-use part of the inode
 * tables and every extent tree block (index and leaf nodes below i_block).
 * Then applies 1-4 AFL-style mutations (bit flip, or a byte set to 0x00,
 * 0xff or a random value) at places drawn from those classes with a
 * deterministic generator seeded by SEED, writes them into IMAGE and prints
 * one line per mutation: class, byte offset, old and new value. Part of
 * `make fuzz-relayout` (relayout/fuzz-relayout.sh), not of the test suite.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

enum { C_GDT, C_BBITMAP, C_IBITMAP, C_ITABLE, C_ETREE, C_NR };
static const char *const cname[C_NR] = { "gdt", "block-bitmap", "inode-bitmap", "inode-table",
					 "extent-tree" };

struct span {
	uint64_t off, len;	/* bytes */
};

struct cls {
	struct span *v;
	size_t n, cap;
	uint64_t bytes;
};

static struct cls classes[C_NR];

static void add(int c, uint64_t off, uint64_t len)
{
	struct cls *k = &classes[c];

	if (!len)
		return;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->v = realloc(k->v, k->cap * sizeof(*k->v));
		if (!k->v) {
			perror("realloc");
			exit(1);
		}
	}
	k->v[k->n++] = (struct span){ off, len };
	k->bytes += len;
}

/* xorshift64*: small, deterministic for a seed */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static void collect_trees(ext2_filsys fs)
{
	ext2_inode_scan scan;
	struct ext2_inode inode;
	ext2_ino_t ino;

	if (ext2fs_open_inode_scan(fs, 0, &scan))
		return;
	while (!ext2fs_get_next_inode(scan, &ino, &inode) && ino) {
		ext2_extent_handle_t h;
		struct ext2fs_extent e;
		int op = EXT2_EXTENT_ROOT;

		if (!inode.i_links_count || !(inode.i_flags & EXT4_EXTENTS_FL))
			continue;
		if (ext2fs_extent_open2(fs, ino, &inode, &h))
			continue;
		while (!ext2fs_extent_get(h, op, &e)) {
			op = EXT2_EXTENT_NEXT;
			if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF) &&
			    !(e.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT))
				add(C_ETREE, e.e_pblk * fs->blocksize, fs->blocksize);
		}
		ext2fs_extent_free(h);
	}
	ext2fs_close_inode_scan(scan);
}

static void collect(ext2_filsys fs)
{
	uint64_t bs = fs->blocksize, isz = EXT2_INODE_SIZE(fs->super);
	blk64_t sb, old_desc, new_desc;
	blk_t used;
	dgrp_t g;

	ext2fs_super_and_bgd_loc2(fs, 0, &sb, &old_desc, &new_desc, &used);
	if (old_desc)
		add(C_GDT, old_desc * bs, (uint64_t)fs->group_desc_count * EXT2_DESC_SIZE(fs->super));
	for (g = 0; g < fs->group_desc_count; g++) {
		uint64_t ninodes = fs->super->s_inodes_per_group;

		if (!ext2fs_bg_flags_test(fs, g, EXT2_BG_BLOCK_UNINIT))
			add(C_BBITMAP, ext2fs_block_bitmap_loc(fs, g) * bs, bs);
		if (!ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))
			add(C_IBITMAP, ext2fs_inode_bitmap_loc(fs, g) * bs, bs);
		if (ext2fs_has_group_desc_csum(fs))
			ninodes -= ext2fs_bg_itable_unused(fs, g);
		else if (ext2fs_bg_free_inodes_count(fs, g) == ninodes)
			ninodes = 0;	/* empty group: nothing interesting */
		add(C_ITABLE, ext2fs_inode_table_loc(fs, g) * bs, ninodes * isz);
	}
	collect_trees(fs);
}

static int pick_class(void)
{
	int avail[C_NR], n = 0, c;

	for (c = 0; c < C_NR; c++)
		if (classes[c].bytes)
			avail[n++] = c;
	return n ? avail[rnd() % (uint64_t)n] : -1;
}

static uint64_t pick_offset(int c)
{
	uint64_t x = rnd() % classes[c].bytes;
	size_t i;

	for (i = 0; i < classes[c].n; i++) {
		if (x < classes[c].v[i].len)
			return classes[c].v[i].off + x;
		x -= classes[c].v[i].len;
	}
	return classes[c].v[0].off;
}

int main(int argc, char **argv)
{
	ext2_filsys fs;
	errcode_t rc;
	int fd, i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IMAGE SEED\n", argv[0]);
		return 2;
	}
	rng_state = strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ULL + 1;
	rc = ext2fs_open(argv[1], EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (rc) {
		fprintf(stderr, "%s: %s\n", argv[1], error_message(rc));
		return 1;
	}
	collect(fs);
	ext2fs_close_free(&fs);

	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	n = 1 + (int)(rnd() % 4);
	for (i = 0; i < n; i++) {
		int c = pick_class(), op;
		uint64_t off;
		unsigned char old, val;

		if (c < 0)
			break;
		off = pick_offset(c);
		if (pread(fd, &old, 1, (off_t)off) != 1) {
			perror("pread");
			return 1;
		}
		op = (int)(rnd() % 10);
		if (op < 7)
			val = old ^ (unsigned char)(1u << (rnd() % 8));
		else if (op == 7)
			val = 0;
		else if (op == 8)
			val = 0xff;
		else
			val = (unsigned char)rnd();
		if (pwrite(fd, &val, 1, (off_t)off) != 1) {
			perror("pwrite");
			return 1;
		}
		printf("%s %llu 0x%02x 0x%02x\n", cname[c], (unsigned long long)off, old, val);
	}
	if (fsync(fd) || close(fd)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
