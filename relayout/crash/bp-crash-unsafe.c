// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bp-crash-unsafe.c --- negative control: relocate files the resize2fs way (known unsafe)
 *
 *   bp-crash-unsafe IMAGE PATH...
 *
 * Moves every data block of each PATH to newly allocated blocks the way
 * resize2fs does (doc/relayout-safety.md §1, §9): mark ERROR_FS, copy, one
 * flush, then rewrite the references with ext2fs_block_iterate3() returning
 * BLOCK_CHANGED (one ext2fs_extent_set_bmap() per block on extent files),
 * free the old blocks, close. Run through crash_io it must produce crash
 * states e2fsck -p cannot preen; the crash driver asserts that it does, which
 * shows the oracle can fail. Never use this on real data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "c.h"
#include "crash_io.h"

struct move {
	blk64_t *old, *new;
	size_t n, a;
	size_t next;	/* block_iterate3 visit index */
};

static int collect(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		   int ref_offset, void *priv)
{
	struct move *m = priv;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0)
		return 0;
	if (m->n == m->a) {
		size_t na = m->a ? 2 * m->a : 256;
		blk64_t *o = realloc(m->old, na * sizeof(*o));

		if (!o)
			return BLOCK_ABORT;
		m->old = o;
		o = realloc(m->new, na * sizeof(*o));
		if (!o)
			return BLOCK_ABORT;
		m->new = o;
		m->a = na;
	}
	m->old[m->n++] = *blocknr;
	return 0;
}

static int relink(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		  int ref_offset, void *priv)
{
	struct move *m = priv;

	(void)fs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0 || m->next >= m->n || *blocknr != m->old[m->next])
		return 0;
	*blocknr = m->new[m->next++];
	return BLOCK_CHANGED;
}

static errcode_t move_file(ext2_filsys fs, const char *path, char *buf)
{
	struct move m = { 0 };
	ext2_ino_t ino;
	blk64_t goal;
	errcode_t rc;
	size_t i;

	rc = ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);
	if (rc)
		return rc;
	rc = ext2fs_block_iterate3(fs, ino, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY, NULL,
				   collect, &m);
	/* Targets in the upper half, one block at a time, as get_new_block() does. */
	goal = ext2fs_blocks_count(fs->super) / 2;
	for (i = 0; !rc && i < m.n; i++) {
		rc = ext2fs_new_block2(fs, goal, NULL, &m.new[i]);
		if (rc)
			break;
		ext2fs_block_alloc_stats2(fs, m.new[i], +1);
		goal = m.new[i] + 1;
		rc = io_channel_read_blk64(fs->io, m.old[i], 1, buf);
		if (!rc)
			rc = io_channel_write_blk64(fs->io, m.new[i], 1, buf);
	}
	if (!rc)
		rc = io_channel_flush(fs->io);
	if (!rc)
		rc = ext2fs_block_iterate3(fs, ino, 0, NULL, relink, &m);
	for (i = 0; !rc && i < m.n; i++)
		ext2fs_block_alloc_stats2(fs, m.old[i], -1);
	free(m.old);
	free(m.new);
	return rc;
}

int main(int argc, char **argv)
{
	ext2_filsys fs = NULL;
	char *buf = NULL;
	errcode_t rc;
	int i;

	if (argc < 3) {
		fprintf(stderr, "Usage: %s IMAGE PATH...\n", argv[0]);
		return 2;
	}
	rc = ext2fs_open2(argv[1], NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, crash_io_manager,
			  &fs);
	if (!rc)
		rc = ext2fs_read_bitmaps(fs);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], error_message(rc));
		return 1;
	}
	rc = ext2fs_get_mem(fs->blocksize, &buf);
	if (!rc) {
		/* resize_fs(): ERROR_FS first, with the library's own flush. */
		fs->super->s_state |= EXT2_ERROR_FS;
		ext2fs_mark_super_dirty(fs);
		rc = ext2fs_flush(fs);
	}
	for (i = 2; !rc && i < argc; i++) {
		rc = move_file(fs, argv[i], buf);
		if (rc)
			fprintf(stderr, "%s: %s: %s\n", argv[0], argv[i], error_message(rc));
	}
	ext2fs_free_mem(&buf);
	if (rc) {
		ext2fs_free(fs);
		return 1;
	}
	fs->super->s_state &= ~EXT2_ERROR_FS;
	ext2fs_mark_super_dirty(fs);
	rc = ext2fs_close_free(&fs);
	if (rc) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], error_message(rc));
		return 1;
	}
	printf("writes %llu flushes %llu\n", (unsigned long long)crash_io_writes(),
	       (unsigned long long)crash_io_flushes());
	return 0;
}
