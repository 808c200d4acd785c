// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-ext2file.c --- lib/ext2file.c and fileid.h: the mtime's nanoseconds
 * read only where the inode includes i_mtime_extra (i_extra_isize 8: not;
 * 12 and more: yes; 128-byte inodes: never); the staleness rule with and
 * without nanoseconds and generation, also as the reader applies it to an
 * open file and a pack entry (COMPAT_MTIME_NSEC on and off); the walk of
 * an extent-mapped file (holes, an unwritten extent, a tree block), a
 * block-mapped file (its indirect block before the blocks it maps) and an
 * inline-data file (no run), on a small filesystem built here with
 * libext2fs (the mappings set with ext2fs_bmap2(), not with the code under
 * test)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "ext2file.h"
#include "fileid-fd.h"
#include "pack-parse.h"
#include "unit.h"

#define NSEC 123456789u

static void test_identity(void)
{
	struct ext2_inode_large in;
	struct bp_file_id id;

	memset(&in, 0, sizeof(in));
	in.i_generation = 77;
	in.i_size = 5000;
	in.i_mtime = 1700000000;
	in.i_mtime_extra = NSEC << EXT4_EPOCH_BITS | 1;	/* + 2^32 s */

	in.i_extra_isize = 8;	/* ends before i_mtime_extra */
	bp_ext2_file_id(&in, 256, 12, &id);
	CHECK(id.ino == 12 && id.generation == 77 && id.size == 5000);
	CHECK(id.mtime_sec == 1700000000 && id.mtime_nsec == 0);

	in.i_extra_isize = 12;	/* just includes it */
	bp_ext2_file_id(&in, 256, 12, &id);
	CHECK(id.mtime_sec == 1700000000 + (1LL << 32) && id.mtime_nsec == NSEC);

	in.i_extra_isize = 32;
	bp_ext2_file_id(&in, 256, 12, &id);
	CHECK(id.mtime_nsec == NSEC);

	in.i_extra_isize = 32;	/* what lies past a 128-byte inode is no field */
	bp_ext2_file_id(&in, 128, 12, &id);
	CHECK(id.mtime_sec == 1700000000 && id.mtime_nsec == 0);

	in.i_mtime = (uint32_t)-5;	/* before 1970, no epoch bits */
	in.i_mtime_extra = 0;
	bp_ext2_file_id(&in, 256, 12, &id);
	CHECK(id.mtime_sec == -5);

	in.i_size_high = 1;
	bp_ext2_file_id(&in, 256, 12, &id);
	CHECK(id.size == (1ULL << 32) + 5000);
}

static void test_compare(void)
{
	struct bp_file_id a = { 12, 77, 5000, 1700000000, NSEC }, b = a;

	CHECK(bp_file_compare(&a, &b, BP_FILE_CMP_NSEC) == BP_FILE_SAME);
	b.mtime_nsec = 0;	/* COMPAT_MTIME_NSEC off: the nanoseconds are not compared */
	CHECK(bp_file_compare(&a, &b, 0) == BP_FILE_SAME);
	CHECK(bp_file_compare(&a, &b, BP_FILE_CMP_NSEC) == BP_FILE_MTIME);
	b = a;
	b.mtime_sec++;
	CHECK(bp_file_compare(&a, &b, 0) == BP_FILE_MTIME);
	b = a;
	b.generation++;
	CHECK(bp_file_compare(&a, &b, 0) == BP_FILE_GENERATION);
	CHECK(bp_file_compare(&a, &b, BP_FILE_CMP_NO_GEN) == BP_FILE_SAME);
	b.size++;
	CHECK(bp_file_compare(&a, &b, BP_FILE_CMP_NO_GEN) == BP_FILE_SIZE);
	b.ino++;	/* the first difference in rule order names the change */
	CHECK(bp_file_compare(&a, &b, 0) == BP_FILE_INODE);
}

/* The reader's side: an open file's identity against a pack entry, COMPAT_MTIME_NSEC on and off. */
static void test_reader_side(void)
{
	char path[] = "/tmp/bp-test-fileid.XXXXXX";
	struct bp_pack_entry e = { 0 };
	struct bp_file_id now, then;
	struct stat st;
	unsigned int how;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, "abc", 3) != 3 || fstat(fd, &st) < 0) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	how = bp_file_id_fd(-1, &st, &now);	/* no descriptor: no generation */
	CHECK(how == BP_FILE_CMP_NO_GEN && now.ino == st.st_ino && now.size == 3);
	e.ino = (uint32_t)st.st_ino;
	e.size = 3;
	e.mtime_sec = st.st_mtim.tv_sec;
	e.mtime_nsec = (uint32_t)st.st_mtim.tv_nsec ^ 1;	/* another nanosecond */
	then = bp_pack_entry_id(&e);
	CHECK(bp_pack_id_cmp(0) == 0);
	CHECK(bp_pack_id_cmp(BP_PACK_COMPAT_MTIME_NSEC) == BP_FILE_CMP_NSEC);
	CHECK(bp_file_compare(&now, &then, how | bp_pack_id_cmp(0)) == BP_FILE_SAME);
	CHECK(bp_file_compare(&now, &then, how | bp_pack_id_cmp(BP_PACK_COMPAT_MTIME_NSEC)) ==
	      BP_FILE_MTIME);
	how = bp_file_id_fd(fd, &st, &now);	/* with it: the generation, where /tmp keeps one */
	if (!how) {
		e.generation = now.generation + 1;
		then = bp_pack_entry_id(&e);
		CHECK(bp_file_compare(&now, &then, how) == BP_FILE_GENERATION);
	}
	close(fd);
	unlink(path);
}

/* --- a small filesystem --- */

struct got {
	struct bp_ext2_run v[64];
	int n;
};

static errcode_t collect(const struct bp_ext2_run *r, void *priv)
{
	struct got *g = priv;

	if (g->n < 64)
		g->v[g->n] = *r;
	g->n++;
	return 0;
}

static errcode_t stop_at_second(const struct bp_ext2_run *r, void *priv)
{
	(void)r;
	return ++*(int *)priv == 2 ? EXT2_ET_OP_NOT_SUPPORTED : 0;
}

static int is_run(const struct bp_ext2_run *r, enum bp_ext2_kind k, uint64_t lblk, uint64_t pblk,
		  uint64_t len)
{
	return r->kind == k && r->lblk == lblk && r->pblk == pblk && r->len == len;
}

static void die(const char *what, errcode_t rc)
{
	fprintf(stderr, "test-ext2file: %s: %s\n", what, error_message(rc));
	exit(EXIT_FAILURE);
}

static ext2_ino_t new_file(ext2_filsys fs, uint32_t flags, uint64_t size)
{
	struct ext2_inode_large in;
	ext2_ino_t ino;
	errcode_t rc;

	rc = ext2fs_new_inode(fs, EXT2_ROOT_INO, LINUX_S_IFREG | 0644, NULL, &ino);
	if (rc)
		die("new inode", rc);
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	memset(&in, 0, sizeof(in));
	in.i_mode = LINUX_S_IFREG | 0644;
	in.i_links_count = 1;
	in.i_flags = flags;
	in.i_size = (uint32_t)size;
	in.i_extra_isize = 32;
	rc = ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in));
	if (rc)
		die("write inode", rc);
	return ino;
}

static void set_block(ext2_filsys fs, ext2_ino_t ino, uint64_t lblk, blk64_t pblk, int uninit)
{
	errcode_t rc;

	ext2fs_block_alloc_stats2(fs, pblk, +1);
	rc = ext2fs_bmap2(fs, ino, NULL, NULL, BMAP_ALLOC | BMAP_SET | (uninit ? BMAP_UNINIT : 0),
			  lblk, NULL, &pblk);
	if (rc)
		die("bmap", rc);
}

static void test_extents(ext2_filsys fs)
{
	struct ext2_inode_large in;
	struct bp_ext2_map m = { 0 };
	struct got g = { 0 };
	ext2_ino_t ino = new_file(fs, EXT4_EXTENTS_FL, 14 * 1024);
	uint64_t i, n, p;
	int tree = 0, k;

	for (i = 0; i < 4; i++)
		set_block(fs, ino, i, 3000 + i, 0);
	/* 4..9 a hole */
	set_block(fs, ino, 10, 3010, 1);
	set_block(fs, ino, 11, 3011, 1);
	set_block(fs, ino, 12, 3020, 0);
	set_block(fs, ino, 13, 3021, 0);
	CHECK(bp_ext2_read_inode(fs, ino, &in) == 0);
	CHECK(bp_ext2_file_walk(fs, ino, &in, 0, collect, &g) == 0);
	CHECK(g.n == 3);
	CHECK(is_run(&g.v[0], BP_EXT2_DATA, 0, 3000, 4));
	CHECK(is_run(&g.v[1], BP_EXT2_UNINIT, 10, 3010, 2));
	CHECK(is_run(&g.v[2], BP_EXT2_DATA, 12, 3020, 2));

	CHECK(bp_ext2_map_load(fs, ino, &in, &m) == 0 && m.n == 3);
	n = bp_ext2_map_find(&m, 2, &p);
	CHECK(p == 3002 && n == 2);
	n = bp_ext2_map_find(&m, 5, &p);	/* the hole */
	CHECK(p == 0 && n == 5);
	n = bp_ext2_map_find(&m, 11, &p);	/* unwritten: nothing to read */
	CHECK(p == 0 && n == 1);
	n = bp_ext2_map_find(&m, 13, &p);
	CHECK(p == 3021 && n == 1);
	n = bp_ext2_map_find(&m, 14, &p);	/* past the end */
	CHECK(p == 0 && n == UINT64_MAX - 14);

	/* More extents than the inode holds: a tree block, given before its leaves. */
	for (i = 0; i < 8; i++)
		set_block(fs, ino, 20 + 2 * i, 3100 + 2 * i, 0);
	CHECK(bp_ext2_read_inode(fs, ino, &in) == 0);
	g.n = 0;
	CHECK(bp_ext2_file_walk(fs, ino, &in, BP_EXT2_WALK_META, collect, &g) == 0);
	CHECK(g.n == 12 && g.v[0].kind == BP_EXT2_TREE && g.v[0].len == 1);
	for (k = 0; k < g.n && k < 64; k++)
		tree += g.v[k].kind == BP_EXT2_TREE;
	CHECK(tree == 1);
	CHECK(bp_ext2_map_load(fs, ino, &in, &m) == 0 && m.n == 11);	/* no TREE in a map */
	n = bp_ext2_map_find(&m, 22, &p);
	CHECK(p == 3102 && n == 1);

	k = 0;
	CHECK(bp_ext2_file_walk(fs, ino, &in, 0, stop_at_second, &k) == EXT2_ET_OP_NOT_SUPPORTED);
	CHECK(k == 2);
	bp_ext2_map_free(&m);
}

static void test_blockmap(ext2_filsys fs)
{
	struct ext2_inode_large in;
	struct got g = { 0 };
	ext2_ino_t ino = new_file(fs, 0, 22 * 1024);
	uint64_t i;

	for (i = 0; i < 14; i++)	/* 12 direct, then the indirect block's first two */
		set_block(fs, ino, i, 3200 + i, 0);
	set_block(fs, ino, 20, 3300, 0);	/* after a hole */
	set_block(fs, ino, 21, 3400, 0);	/* next logically, not physically: a run of its own */
	CHECK(bp_ext2_read_inode(fs, ino, &in) == 0);
	CHECK(bp_ext2_file_walk(fs, ino, &in, 0, collect, &g) == 0);
	CHECK(g.n == 3);
	CHECK(is_run(&g.v[0], BP_EXT2_DATA, 0, 3200, 14));
	CHECK(is_run(&g.v[1], BP_EXT2_DATA, 20, 3300, 1));
	CHECK(is_run(&g.v[2], BP_EXT2_DATA, 21, 3400, 1));
	g.n = 0;
	CHECK(bp_ext2_file_walk(fs, ino, &in, BP_EXT2_WALK_META, collect, &g) == 0);
	CHECK(g.n == 5);
	CHECK(is_run(&g.v[0], BP_EXT2_DATA, 0, 3200, 12));
	CHECK(g.v[1].kind == BP_EXT2_IND && g.v[1].lblk == 1 && g.v[1].pblk == in.i_block[12]);
	CHECK(is_run(&g.v[2], BP_EXT2_DATA, 12, 3212, 2));
	CHECK(is_run(&g.v[3], BP_EXT2_DATA, 20, 3300, 1));
	CHECK(is_run(&g.v[4], BP_EXT2_DATA, 21, 3400, 1));
}

static void test_inline(ext2_filsys fs)
{
	struct ext2_inode_large in;
	struct got g = { 0 };
	ext2_ino_t ino = new_file(fs, EXT4_INLINE_DATA_FL, 10);

	memset(&in, 0, sizeof(in));
	CHECK(bp_ext2_read_inode(fs, ino, &in) == 0);
	memcpy(in.i_block, "some bytes", 10);	/* as inline data would be */
	CHECK(bp_ext2_file_walk(fs, ino, &in, BP_EXT2_WALK_META, collect, &g) == 0);
	CHECK(g.n == 0);
}

static void test_on_disk_identity(ext2_filsys fs)
{
	struct ext2_inode_large in;
	struct bp_file_id id;
	ext2_ino_t ino = new_file(fs, 0, 0);

	CHECK(bp_ext2_read_inode(fs, ino, &in) == 0);
	in.i_generation = 4242;
	in.i_mtime = 1600000000;
	in.i_mtime_extra = NSEC << EXT4_EPOCH_BITS;
	in.i_extra_isize = 8;
	CHECK(ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(bp_ext2_file_read(fs, ino, &in, &id) == 0);
	CHECK(in.i_mtime_extra == NSEC << EXT4_EPOCH_BITS);	/* on disk, but not a field */
	CHECK(id.generation == 4242 && id.mtime_sec == 1600000000 && id.mtime_nsec == 0);
	in.i_extra_isize = 12;
	CHECK(ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(bp_ext2_file_read(fs, ino, &in, &id) == 0);
	CHECK(id.mtime_nsec == NSEC);

	/* The staleness rule on disk: the same inode is unchanged; a deletion
	 * time, no links, another mtime or not a regular file is not. */
	CHECK(bp_ext2_file_unchanged(fs, &id, BP_FILE_CMP_NSEC, &in) == 1);
	in.i_dtime = 1600000001;
	CHECK(ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(bp_ext2_file_unchanged(fs, &id, BP_FILE_CMP_NSEC, &in) == 0);
	in.i_dtime = 0;
	in.i_links_count = 0;
	CHECK(ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(bp_ext2_file_unchanged(fs, &id, BP_FILE_CMP_NSEC, &in) == 0);
	in.i_links_count = 1;
	in.i_mtime_extra = (NSEC + 1) << EXT4_EPOCH_BITS;
	CHECK(ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(bp_ext2_file_unchanged(fs, &id, BP_FILE_CMP_NSEC, &in) == 0);
	CHECK(bp_ext2_file_unchanged(fs, &id, 0, &in) == 1);
	in.i_mode = LINUX_S_IFLNK | 0777;
	CHECK(ext2fs_write_inode_full(fs, ino, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(bp_ext2_file_unchanged(fs, &id, 0, &in) == 0);
}

struct seen {
	ext2_ino_t ino[32];
	int n;
	ext2_ino_t stop_at;
};

static errcode_t note_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			    void *priv)
{
	struct seen *s = priv;

	(void)fs;
	(void)in;
	if (ino < EXT2_FIRST_INO(fs->super))
		return 0;
	if (s->n < 32)
		s->ino[s->n] = ino;
	s->n++;
	return ino == s->stop_at ? 4242 : 0;
}

/* bp_ext2_inodes_walk() visits the inodes in use, in order, and stops when told. */
static void test_inodes_walk(ext2_filsys fs)
{
	struct ext2_inode_large in;
	struct seen s = { 0 };
	ext2_ino_t a = new_file(fs, 0, 0), gone = new_file(fs, 0, 0), dead = new_file(fs, 0, 0);
	ext2_ino_t b = new_file(fs, 0, 0);

	CHECK(bp_ext2_read_inode(fs, gone, &in) == 0);
	in.i_links_count = 0;
	CHECK(ext2fs_write_inode_full(fs, gone, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(bp_ext2_read_inode(fs, dead, &in) == 0);
	in.i_dtime = 1600000000;
	CHECK(ext2fs_write_inode_full(fs, dead, (struct ext2_inode *)&in, sizeof(in)) == 0);
	CHECK(ext2fs_flush(fs) == 0);

	CHECK(bp_ext2_inodes_walk(fs, note_inode, &s) == 0);
	/* the files of the other tests, then a and b; never gone (no links) nor dead (dtime) */
	CHECK(s.n >= 2 && s.n <= 32);
	CHECK(s.n >= 2 && s.ino[s.n - 2] == a && s.ino[s.n - 1] == b);
	memset(&s, 0, sizeof(s));
	s.stop_at = a;
	CHECK(bp_ext2_inodes_walk(fs, note_inode, &s) == 4242);
	CHECK(s.n >= 1 && s.ino[s.n - 1] == a);
}

int main(void)
{
	char path[] = "/tmp/bp-test-ext2file.XXXXXX";
	struct ext2_super_block param;
	ext2_filsys fs;
	errcode_t rc;
	int fd;

	test_identity();
	test_compare();
	test_reader_side();

	add_error_table(&et_ext2_error_table);
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 4096 * 1024) < 0) {
		perror(path);
		return EXIT_FAILURE;
	}
	close(fd);
	memset(&param, 0, sizeof(param));
	ext2fs_blocks_count_set(&param, 4096);
	param.s_log_block_size = 0;	/* 1 KiB blocks */
	param.s_rev_level = EXT2_DYNAMIC_REV;
	param.s_inode_size = 256;
	ext2fs_set_feature_extents(&param);
	rc = ext2fs_initialize(path, EXT2_FLAG_RW | EXT2_FLAG_64BITS, &param, unix_io_manager, &fs);
	if (!rc)
		rc = ext2fs_allocate_tables(fs);
	if (rc) {
		unlink(path);
		die("a filesystem", rc);
	}
	test_extents(fs);
	test_blockmap(fs);
	test_inline(fs);
	test_on_disk_identity(fs);
	test_inodes_walk(fs);
	ext2fs_free(fs);
	unlink(path);
	return unit_exit();
}
