// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-verify.c --- check a pack's entries against the filesystem (libext2fs, read-only)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "c.h"
#include "ext2file.h"
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

/* bp_file_compare()'s verdicts as the pack's states */
static const uint8_t change_state[] = {
	[BP_FILE_SAME] = BP_PACK_FRESH,
	[BP_FILE_INODE] = BP_PACK_STALE_INODE,
	[BP_FILE_GENERATION] = BP_PACK_STALE_GENERATION,
	[BP_FILE_SIZE] = BP_PACK_STALE_SIZE,
	[BP_FILE_MTIME] = BP_PACK_STALE_MTIME,
};

/* State of a file, from its first entry (they all carry the same inode data); its runs if fresh. */
static errcode_t check_file(ext2_filsys fs, const struct bp_pack_entry *e, unsigned int how,
			    struct bp_ext2_map *map, int *state)
{
	char path[BP_PACK_PATH_MAX];
	struct ext2_inode_large in;
	struct bp_file_id now, then = bp_pack_entry_id(e);
	ext2_ino_t ino;
	errcode_t rc;

	/* The rule pack and relayout apply (fspath.h): the same file, or stale. */
	rc = bp_fs_path_resolve(fs, e->path, path, sizeof(path), &ino);
	if (rc == EXT2_ET_FILE_NOT_FOUND || rc == EXT2_ET_NO_DIRECTORY || rc == ELOOP ||
	    rc == ENAMETOOLONG) {
		*state = BP_PACK_STALE_MISSING;
		return 0;
	}
	if (rc)
		return rc;
	rc = bp_ext2_file_read(fs, ino, &in, &now);
	if (rc)
		return rc;
	if (!LINUX_S_ISREG(in.i_mode))
		*state = BP_PACK_STALE_NOT_REGULAR;
	else
		*state = change_state[bp_file_compare(&now, &then, how)];
	return *state == BP_PACK_FRESH ? bp_ext2_map_load(fs, ino, &in, map) : 0;
}

/* Every block of the range where the entry says it is? */
static int moved(uint64_t bs, const struct bp_ext2_map *map, const struct bp_pack_entry *e)
{
	uint64_t l = e->offset / bs, last = (e->offset + e->length - 1) / bs, want = e->phys / bs;

	if (e->phys % bs != e->offset % bs)
		return 1;
	while (l <= last) {
		uint64_t pblk, n = bp_ext2_map_find(map, l, &pblk);

		if (pblk != want)
			return 1;	/* elsewhere, a hole or unwritten */
		n = MIN(n, last - l + 1);
		l += n;
		want += n;
	}
	return 0;
}

errcode_t bp_pack_check(ext2_filsys fs, const struct bp_pack *p, struct bp_pack_check *c,
			struct bp_err *err)
{
	const struct bp_pack_info *info = bp_pack_info(p);
	unsigned int how = bp_pack_id_cmp(info->feature_compat);
	struct bp_ext2_map map = { 0 };
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
		int fstate, file_stale = 0;

		bp_pack_entry(p, refs[i].idx, &e);
		rc = check_file(fs, &e, how, &map, &fstate);
		if (rc) {
			bp_err_lib(err, rc, "while looking up %s", e.path);
			goto out;
		}
		for (j = i; j < n && refs[j].path_off == refs[i].path_off; j++) {
			int st = fstate;

			bp_pack_entry(p, refs[j].idx, &e);
			if (st == BP_PACK_FRESH && moved(fs->blocksize, &map, &e))
				st = BP_PACK_STALE_MOVED;
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
	bp_ext2_map_free(&map);
	free(refs);
	return rc;
}

void bp_pack_check_free(struct bp_pack_check *c)
{
	free(c->state);
	c->state = NULL;
}
