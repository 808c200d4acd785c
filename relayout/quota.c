// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * quota.c --- keep the quota files' space usage right after a relayout
 *
 * Relayout changes i_blocks of some inodes (a new extent tree with more or
 * fewer leaves, extent-build.c); with the quota feature the usage in the
 * quota files must change by the same amount, or e2fsck finds "usage
 * inconsistent" on a filesystem marked clean. libext2fs 1.47 does not
 * export e2fsprogs' quota library, so this file reads the quota files
 * (format QFMT_VFS_V1: a header, a 4-level radix tree of 1 KiB blocks of
 * 256 references from block 1, data blocks of 72-byte v2r1 entries) and
 * changes one field, dqb_curspace, of the entries whose usage changed.
 *
 * Before any write (rl_quota_prepare) one inode scan sums, per user, group
 * and project id, the bytes i_blocks says each id holds, and finds every
 * id's entry in the quota file; an id without one is a refusal (the file
 * is then inconsistent already: e2fsck -f first). After the last commit
 * (rl_quota_update) a second scan sums again and each id's dqb_curspace
 * changes by the difference. The change is charged the way the kernel and
 * e2fsck charge it: i_blocks of every in-use inode except special inodes,
 * quota inodes and xattr-value inodes. The writes go through ext2fs_file
 * into blocks the file already maps (checked), while EXT2_ERROR_FS is set;
 * the final barrier makes them durable before the superblock says clean
 * (doc/relayout-safety.md §4.10).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "rl-int.h"

#define QT_BLK		1024u		/* quota tree block */
#define QT_DEPTH	4
#define QT_REFS		(QT_BLK / 4)
#define QT_DBHDR	16u		/* data block header (free list, entry count) */
#define QT_ENTRY	72u		/* struct v2r1_disk_dqblk */
#define QT_ENTRIES	((QT_BLK - QT_DBHDR) / QT_ENTRY)
#define QT_CURSPACE	48u		/* offset of dqb_curspace in an entry */
#define QT_MAX_BYTES	(256u << 20)	/* larger quota files are refused */

static const uint32_t qt_magic[RL_QUOTA_TYPES] = { 0xd9c01f11, 0xd9c01927, 0xd9c03f14 };
static const char *const qt_name[RL_QUOTA_TYPES] = { "user", "group", "project" };

struct rl_qid {
	uint32_t id;
	uint8_t used;
	uint64_t off;		/* byte offset of the id's entry in the quota file */
	uint64_t before, after;	/* bytes held, summed over the inode scans */
};

struct rl_qfile {
	ext2_ino_t ino;		/* 0: this type is not tracked */
	unsigned char *buf;	/* the whole quota file */
	uint64_t size;
	struct rl_qid *tab;	/* open addressing by id */
	size_t cap, n;
};

struct rl_quota {
	struct rl_qfile f[RL_QUOTA_TYPES];
};

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

void rl_quota_free(struct rl_quota *q)
{
	int t;

	if (!q)
		return;
	for (t = 0; t < RL_QUOTA_TYPES; t++) {
		free(q->f[t].buf);
		free(q->f[t].tab);
	}
	free(q);
}

static ext2_ino_t quota_inum(ext2_filsys fs, int type)
{
	switch (type) {
	case 0:
		return fs->super->s_usr_quota_inum;
	case 1:
		return fs->super->s_grp_quota_inum;
	default:
		return ext2fs_has_feature_project(fs->super) ? fs->super->s_prj_quota_inum : 0;
	}
}

static errcode_t load_file(ext2_filsys fs, struct rl_qfile *f)
{
	ext2_file_t file;
	unsigned int got;
	__u64 size;
	errcode_t rc, rc2;

	rc = ext2fs_file_open(fs, f->ino, 0, &file);
	if (rc)
		return rc;
	rc = ext2fs_file_get_lsize(file, &size);
	if (rc)
		goto out;
	f->size = size;
	if (f->size < 2 * QT_BLK || f->size > QT_MAX_BYTES) {
		rc = BP_ET_NOT_CLEAN;	/* the caller says why */
		goto out;
	}
	f->buf = malloc(f->size);
	if (!f->buf) {
		rc = ENOMEM;
		goto out;
	}
	rc = ext2fs_file_read(file, f->buf, (unsigned int)f->size, &got);
	if (!rc && got != f->size)
		rc = EXT2_ET_SHORT_READ;
out:
	rc2 = ext2fs_file_close(file);
	return rc ? rc : rc2;
}

static int entry_empty(const unsigned char *e)
{
	unsigned int i;

	for (i = 0; i < QT_ENTRY; i++)
		if (e[i])
			return 0;
	return 1;
}

/* Byte offset of id's entry, walking the radix tree; 0 if it has none. */
static uint64_t find_entry(const struct rl_qfile *f, uint32_t id)
{
	uint64_t nblk = f->size / QT_BLK, blk = 1;
	unsigned int d, i;

	for (d = 0; d < QT_DEPTH; d++) {
		unsigned int idx = (id >> ((QT_DEPTH - 1 - d) * 8)) & 0xff;

		blk = get32(f->buf + blk * QT_BLK + 4 * idx);
		if (!blk || blk >= nblk)
			return 0;
	}
	for (i = 0; i < QT_ENTRIES; i++) {
		uint64_t off = blk * QT_BLK + QT_DBHDR + (uint64_t)i * QT_ENTRY;

		if (get32(f->buf + off) == id && !entry_empty(f->buf + off))
			return off;
	}
	return 0;
}

static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	return x ^ (x >> 16);
}

static struct rl_qid *tab_find(struct rl_qfile *f, uint32_t id)
{
	size_t i;

	if (!f->cap)
		return NULL;
	for (i = hash32(id) & (f->cap - 1); f->tab[i].used; i = (i + 1) & (f->cap - 1))
		if (f->tab[i].id == id)
			return &f->tab[i];
	return &f->tab[i];
}

static errcode_t tab_grow(struct rl_qfile *f)
{
	struct rl_qid *old = f->tab;
	size_t oldcap = f->cap, i;

	f->cap = oldcap ? 2 * oldcap : 64;
	f->tab = calloc(f->cap, sizeof(*f->tab));
	if (!f->tab) {
		f->tab = old;
		f->cap = oldcap;
		return ENOMEM;
	}
	for (i = 0; i < oldcap; i++)
		if (old[i].used)
			*tab_find(f, old[i].id) = old[i];
	free(old);
	return 0;
}

/* The inodes quota charges (as e2fsck pass 1 does): the ids they belong to. */
static int charged(ext2_filsys fs, const struct rl_quota *q, ext2_ino_t ino,
		   const struct ext2_inode_large *inode, uint32_t id[RL_QUOTA_TYPES])
{
	unsigned int isize = EXT2_GOOD_OLD_INODE_SIZE;
	int t;

	if (!inode->i_links_count || !inode->i_mode)
		return 0;
	if (ino != EXT2_ROOT_INO && ino < EXT2_FIRST_INODE(fs->super))
		return 0;
	if (inode->i_flags & EXT4_EA_INODE_FL)
		return 0;
	for (t = 0; t < RL_QUOTA_TYPES; t++)
		if (ino == quota_inum(fs, t) || (q->f[t].ino && ino == q->f[t].ino))
			return 0;
	if (EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE)
		isize += inode->i_extra_isize;
	id[0] = inode_uid(*inode);
	id[1] = inode_gid(*inode);
	id[2] = inode_includes(isize, i_projid) ? inode->i_projid : 0;
	return 1;
}

/*
 * One scan: add each charged inode's bytes to its ids, before or after.
 * Before: an id not yet in the table is looked up in the quota file (no
 * entry: *missing_type/id say which). After: every id must be known.
 */
static errcode_t scan(ext2_filsys fs, struct rl_quota *q, int after, int *missing_type,
		      uint32_t *missing_id)
{
	ext2_inode_scan sc;
	struct ext2_inode_large inode;
	ext2_ino_t ino;
	errcode_t rc;

	rc = ext2fs_open_inode_scan(fs, 0, &sc);
	if (rc)
		return rc;
	for (;;) {
		uint32_t id[RL_QUOTA_TYPES];
		uint64_t bytes;
		int t;

		rc = ext2fs_get_next_inode_full(sc, &ino, (struct ext2_inode *)&inode,
						sizeof(inode));
		if (rc == EXT2_ET_BAD_BLOCK_IN_INODE_TABLE)
			continue;
		/* A free inode may fail its checksum; one in use was refused by owner.c. */
		if ((rc == EXT2_ET_INODE_CSUM_INVALID || rc == EXT2_ET_INODE_IS_GARBAGE) &&
		    !charged(fs, q, ino, &inode, id))
			continue;
		if (rc || !ino)
			break;
		if (!charged(fs, q, ino, &inode, id))
			continue;
		bytes = (uint64_t)ext2fs_get_stat_i_blocks(fs, (struct ext2_inode *)&inode) * 512;
		for (t = 0; t < RL_QUOTA_TYPES; t++) {
			struct rl_qfile *f = &q->f[t];
			struct rl_qid *e;

			if (!f->ino)
				continue;
			if (2 * (f->n + 1) > f->cap) {
				rc = tab_grow(f);
				if (rc)
					goto out;
			}
			e = tab_find(f, id[t]);
			if (!e->used) {
				if (after) {
					rc = EXT2_ET_INODE_CORRUPTED;	/* an id appeared: impossible */
					goto out;
				}
				e->off = find_entry(f, id[t]);
				if (!e->off) {
					*missing_type = t;
					*missing_id = id[t];
					rc = BP_ET_NOT_CLEAN;
					goto out;
				}
				e->id = id[t];
				e->used = 1;
				f->n++;
			}
			if (after)
				e->after += bytes;
			else
				e->before += bytes;
		}
	}
out:
	ext2fs_close_inode_scan(sc);
	return rc;
}

errcode_t rl_quota_prepare(ext2_filsys fs, const char *device, struct rl_quota **ret,
			   struct bp_err *err)
{
	struct rl_quota *q;
	uint32_t missing_id = 0;
	int t, missing_type = 0, any = 0;
	errcode_t rc;

	if (ret)
		*ret = NULL;
	if (!ext2fs_has_feature_quota(fs->super))
		return 0;
	q = calloc(1, sizeof(*q));
	if (!q)
		return bp_err_set(err, ENOMEM, "out of memory");
	for (t = 0; t < RL_QUOTA_TYPES; t++) {
		struct rl_qfile *f = &q->f[t];

		f->ino = quota_inum(fs, t);
		if (!f->ino)
			continue;
		any = 1;
		if (f->ino > fs->super->s_inodes_count) {
			rc = EXT2_ET_BAD_INODE_NUM;
		} else {
			rc = load_file(fs, f);
			if (!rc && (get32(f->buf) != qt_magic[t] || get32(f->buf + 4) != 1))
				rc = BP_ET_NOT_CLEAN;
		}
		if (rc == BP_ET_NOT_CLEAN) {
			rc = bp_err_set(err, BP_ET_NOT_CLEAN,
					"%s: its %s quota file (inode %u) is not a vfsv1 quota file "
					"relayout can update; please run 'e2fsck -f %s' first",
					device, qt_name[t], f->ino, device);
			goto fail;
		}
		if (rc) {
			bp_err_lib(err, rc, "%s: while reading the %s quota file (inode %u)", device,
				   qt_name[t], f->ino);
			goto fail;
		}
	}
	if (!any)
		goto done;
	rc = scan(fs, q, 0, &missing_type, &missing_id);
	if (rc == BP_ET_NOT_CLEAN) {
		rc = bp_err_set(err, BP_ET_NOT_CLEAN,
				"%s: is inconsistent: its %s quota file has no entry for %s id %u, "
				"which owns files; please run 'e2fsck -f %s' first",
				device, qt_name[missing_type], qt_name[missing_type], missing_id,
				device);
		goto fail;
	}
	if (rc) {
		bp_err_lib(err, rc, "%s: while summing quota usage", device);
		goto fail;
	}
done:
	if (!ret) {
		rl_quota_free(q);
		return 0;
	}
	*ret = q;
	return 0;
fail:
	rl_quota_free(q);
	return rc;
}

/* Rewrite dqb_curspace of the changed ids, in blocks the quota file maps already. */
static errcode_t write_file(ext2_filsys fs, struct rl_qfile *f)
{
	ext2_file_t file;
	size_t i;
	errcode_t rc, rc2;

	rc = ext2fs_file_open(fs, f->ino, EXT2_FILE_WRITE, &file);
	if (rc)
		return rc;
	for (i = 0; i < f->cap && !rc; i++) {
		struct rl_qid *e = &f->tab[i];
		uint64_t pos = e->off + QT_CURSPACE, cur;
		blk64_t phys = 0;
		int flags = 0;
		unsigned int wrote;

		if (!e->used || e->after == e->before)
			continue;
		cur = get64(f->buf + pos);
		if (e->after > e->before)
			cur += e->after - e->before;
		else
			cur = cur > e->before - e->after ? cur - (e->before - e->after) : 0;
		put64(f->buf + pos, cur);
		/* Only data the file maps and has written: never allocate, never convert. */
		rc = ext2fs_bmap2(fs, f->ino, NULL, NULL, 0, pos / fs->blocksize, &flags, &phys);
		if (!rc && (!phys || (flags & BMAP_RET_UNINIT)))
			rc = EXT2_ET_FILE_NOT_FOUND;
		if (!rc)
			rc = ext2fs_file_llseek(file, pos, EXT2_SEEK_SET, NULL);
		if (!rc)
			rc = ext2fs_file_write(file, f->buf + pos, 8, &wrote);
		if (!rc && wrote != 8)
			rc = EXT2_ET_SHORT_WRITE;
	}
	rc2 = ext2fs_file_close(file);
	return rc ? rc : rc2;
}

errcode_t rl_quota_update(ext2_filsys fs, struct rl_quota *q, const char *device,
			  struct bp_err *err)
{
	uint32_t id = 0;
	int t, type = 0;
	errcode_t rc;

	if (!q)
		return 0;
	rc = scan(fs, q, 1, &type, &id);
	if (rc)
		return bp_err_lib(err, rc, "%s: while summing quota usage after the moves", device);
	for (t = 0; t < RL_QUOTA_TYPES; t++) {
		if (!q->f[t].ino)
			continue;
		rc = write_file(fs, &q->f[t]);
		if (rc)
			return bp_err_lib(err, rc, "%s: while updating the %s quota file (inode %u)",
					  device, qt_name[t], q->f[t].ino);
	}
	return 0;
}
