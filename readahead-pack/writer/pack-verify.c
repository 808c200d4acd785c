// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-verify.c --- check a pack's entries against the filesystem (libext2fs, read-only)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "fsident.h"
#include "fspath.h"
#include "pack-verify.h"

static const char *const names[BP_PACK_STALE_NR] = {
	[BP_PACK_FRESH] = "fresh",
	[BP_PACK_STALE_MISSING] = "missing",
	[BP_PACK_STALE_NOT_REGULAR] = "not-regular",
	[BP_PACK_STALE_INODE] = "replaced",
	[BP_PACK_STALE_GENERATION] = "generation",
	[BP_PACK_STALE_SIZE] = "size",
	[BP_PACK_STALE_MTIME] = "mtime",
	[BP_PACK_STALE_MOVED] = "moved",
};

const char *bp_pack_stale_name(enum bp_pack_stale s)
{
	return (unsigned int)s < BP_PACK_STALE_NR ? names[s] : "unknown";
}

struct ref {
	uint32_t path_off, idx;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->path_off != y->path_off)
		return x->path_off < y->path_off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* State of a file, from its first entry (they all carry the same inode data). */
static errcode_t check_file(ext2_filsys fs, const struct bp_pack_entry *e, int nsec,
			    struct ext2_inode_large *in, ext2_ino_t *ino, int *state)
{
	char path[BP_PACK_PATH_MAX];
	int64_t mtime;
	uint32_t mnsec = 0;
	errcode_t rc;

	/* The rule pack and relayout apply (fspath.h): the same file, or stale. */
	rc = bp_fs_path_resolve(fs, e->path, path, sizeof(path), ino);
	if (rc == EXT2_ET_FILE_NOT_FOUND || rc == EXT2_ET_NO_DIRECTORY || rc == ELOOP ||
	    rc == ENAMETOOLONG) {
		*state = BP_PACK_STALE_MISSING;
		return 0;
	}
	if (rc)
		return rc;
	rc = ext2fs_read_inode_full(fs, *ino, (struct ext2_inode *)in, sizeof(*in));
	if (rc)
		return rc;
	mtime = (int32_t)in->i_mtime;
	if (EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE && in->i_extra_isize >= 12) {
		mtime += (int64_t)(in->i_mtime_extra & 3) << 32;
		mnsec = in->i_mtime_extra >> 2;
	}
	if (!LINUX_S_ISREG(in->i_mode))
		*state = BP_PACK_STALE_NOT_REGULAR;
	else if (*ino != e->ino)
		*state = BP_PACK_STALE_INODE;
	else if (in->i_generation != e->generation)
		*state = BP_PACK_STALE_GENERATION;
	else if (EXT2_I_SIZE(in) != e->size)
		*state = BP_PACK_STALE_SIZE;
	else if (mtime != e->mtime_sec || (nsec && mnsec != e->mtime_nsec))
		*state = BP_PACK_STALE_MTIME;
	else
		*state = BP_PACK_FRESH;
	return 0;
}

/* Every block of the range where the entry says it is? */
static errcode_t check_blocks(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in,
			      const struct bp_pack_entry *e, int *moved)
{
	uint64_t bs = fs->blocksize, first = e->offset / bs, last = (e->offset + e->length - 1) / bs;
	uint64_t want = e->phys / bs, l;
	errcode_t rc;

	*moved = (e->phys % bs) != (e->offset % bs);
	for (l = first; l <= last && !*moved; l++, want++) {
		blk64_t pblk = 0;
		int flags = 0;

		rc = ext2fs_bmap2(fs, ino, (struct ext2_inode *)in, NULL, 0, l, &flags, &pblk);
		if (rc)
			return rc;
		if (pblk != want || (flags & BMAP_RET_UNINIT))
			*moved = 1;
	}
	return 0;
}

errcode_t bp_pack_check(ext2_filsys fs, const struct bp_pack *p, struct bp_pack_check *c,
			struct bp_err *err)
{
	const struct bp_pack_info *info = bp_pack_info(p);
	int nsec = !!(info->feature_compat & BP_PACK_COMPAT_MTIME_NSEC);
	struct ext2_inode_large in;
	struct bp_pack_entry e;
	struct ref *refs;
	uint32_t n = info->nentries, i, j;
	char uuid[BP_UUID_STR_LEN];
	errcode_t rc = 0;

	memset(c, 0, sizeof(*c));
	bp_uuid_str(info->uuid, uuid);
	/* Another filesystem's pack is refused (exit 4), as a trace is: nothing to check. */
	rc = bp_fs_check_ident(fs, fs->device_name, "pack", uuid, info->block_size, err);
	if (rc)
		return rc;
	c->uuid_match = 1;
	c->state = calloc(n ? n : 1, 1);
	refs = malloc((n ? n : 1) * sizeof(*refs));
	if (!c->state || !refs) {
		free(refs);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		bp_pack_entry(p, i, &e);
		refs[i] = (struct ref){ e.path_off, i };
	}
	qsort(refs, n, sizeof(*refs), cmp_ref);
	for (i = 0; i < n; i = j) {
		ext2_ino_t ino = 0;
		int fstate, file_stale = 0;

		bp_pack_entry(p, refs[i].idx, &e);
		rc = check_file(fs, &e, nsec, &in, &ino, &fstate);
		if (rc) {
			bp_err_lib(err, rc, "while looking up %s", e.path);
			goto out;
		}
		for (j = i; j < n && refs[j].path_off == refs[i].path_off; j++) {
			int st = fstate, moved;

			bp_pack_entry(p, refs[j].idx, &e);
			if (st == BP_PACK_FRESH) {
				rc = check_blocks(fs, ino, &in, &e, &moved);
				if (rc) {
					bp_err_lib(err, rc, "while mapping the blocks of %s", e.path);
					goto out;
				}
				if (moved)
					st = BP_PACK_STALE_MOVED;
			}
			c->state[refs[j].idx] = (uint8_t)st;
			c->count[st]++;
			if (st != BP_PACK_FRESH) {
				c->stale_entries++;
				c->stale_bytes += e.length;
				file_stale = 1;
			}
		}
		c->stale_files += file_stale;
	}
out:
	free(refs);
	return rc;
}

void bp_pack_check_free(struct bp_pack_check *c)
{
	free(c->state);
	c->state = NULL;
}
