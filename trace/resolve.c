// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * resolve.c --- inodes and page ranges to files, paths and physical
 * extents, with libext2fs opened read-only (a mounted filesystem is fine);
 * bp_trace_from_events(), collected events to a trace in one call
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "c.h"
#include "ext2file.h"
#include "fsident.h"
#include "trace-engine.h"

/* Split [s, e) where the disk stops being contiguous and add it to f with physical offsets. */
static errcode_t add_range(struct bp_trace_file *f, const struct bp_ext2_map *m, uint64_t bs,
			   uint64_t s, uint64_t e, uint64_t first)
{
	errcode_t rc;

	while (s < e) {
		uint64_t lb = s / bs, pblk, end = e, phys = BP_PHYS_NONE;
		uint64_t n = bp_ext2_map_find(m, lb, &pblk);

		if (n < DIV_ROUND_UP(e, bs) - lb)
			end = (lb + n) * bs;	/* the run, hole or unwritten extent ends */
		if (pblk)
			phys = pblk * bs + s % bs;
		rc = bp_trace_file_add_range(f, s, end - s, first, phys);
		if (rc)
			return rc;
		s = end;
	}
	return 0;
}

/* --- paths: walk directories from the root until every inode is named --- */

struct namer {
	const ext2_ino_t *want;	/* sorted */
	char **names;
	size_t nwant, left;
	char **queue;		/* directory paths, "/" + ... */
	ext2_ino_t *qino;
	size_t qn, qcap;
	const char *dir;
	int nomem;
};

static long want_index(const struct namer *nm, ext2_ino_t ino)
{
	size_t lo = 0, hi = nm->nwant;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nm->want[mid] == ino)
			return (long)mid;
		if (nm->want[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static char *join(const char *dir, const char *name, int len)
{
	size_t dl = strlen(dir);
	char *p;

	if (dl + 1 + (size_t)len >= BP_TRACE_PATH_MAX)
		return NULL;
	p = malloc(dl + (size_t)len + 2);
	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	if (dl == 0 || dir[dl - 1] != '/')
		p[dl++] = '/';
	memcpy(p + dl, name, (size_t)len);
	p[dl + (size_t)len] = '\0';
	return p;
}

static int dir_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent, int offset,
		  int blocksize, char *buf, void *priv)
{
	struct namer *nm = priv;
	int len = ext2fs_dirent_name_len(dirent);
	int type = ext2fs_dirent_file_type(dirent);
	long k;

	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE || !dirent->inode)
		return 0;
	if (len == 0 || (len == 1 && dirent->name[0] == '.') ||
	    (len == 2 && dirent->name[0] == '.' && dirent->name[1] == '.'))
		return 0;
	k = want_index(nm, dirent->inode);
	if (k >= 0 && !nm->names[k]) {
		nm->names[k] = join(nm->dir, dirent->name, len);
		if (nm->names[k])
			nm->left--;
	}
	if (type == EXT2_FT_DIR) {
		char *p = join(nm->dir, dirent->name, len);

		if (!p)
			return 0;	/* too deep: its files stay unnamed */
		if (nm->qn == nm->qcap) {
			size_t ncap = nm->qcap ? nm->qcap * 2 : 64;
			char **q = realloc(nm->queue, ncap * sizeof(*q));
			ext2_ino_t *qi = q ? realloc(nm->qino, ncap * sizeof(*qi)) : NULL;

			if (q)
				nm->queue = q;
			if (!q || !qi) {
				free(p);
				nm->nomem = 1;
				return DIRENT_ABORT;
			}
			nm->qino = qi;
			nm->qcap = ncap;
		}
		nm->queue[nm->qn] = p;
		nm->qino[nm->qn++] = dirent->inode;
	}
	return nm->left ? 0 : DIRENT_ABORT;
}

static errcode_t name_inodes(ext2_filsys fs, struct namer *nm)
{
	size_t head = 0;
	errcode_t rc = 0;

	nm->queue = malloc(sizeof(*nm->queue));
	nm->qino = malloc(sizeof(*nm->qino));
	if (!nm->queue || !nm->qino)
		return ENOMEM;
	nm->queue[0] = strdup("/");
	nm->qino[0] = EXT2_ROOT_INO;
	nm->qn = 1;
	nm->qcap = 1;
	if (!nm->queue[0])
		return ENOMEM;
	/* Breadth first: boot files are rarely deep, and we stop once all are named. */
	while (head < nm->qn && nm->left) {
		nm->dir = nm->queue[head];
		rc = ext2fs_dir_iterate2(fs, nm->qino[head], 0, NULL, dir_cb, nm);
		head++;
		if (nm->nomem)
			return ENOMEM;
		if (rc)
			rc = 0;	/* an unreadable directory: its files stay unnamed */
	}
	return 0;
}

static void namer_free(struct namer *nm)
{
	size_t i;

	for (i = 0; i < nm->qn; i++)
		free(nm->queue[i]);
	free(nm->queue);
	free(nm->qino);
	if (nm->names)
		for (i = 0; i < nm->nwant; i++)
			free(nm->names[i]);
	free(nm->names);
}

errcode_t bp_resolve(const struct bp_collected *col, const char *devpath, int64_t written_after,
		     struct bp_trace *t, struct bp_resolve_stats *st, struct bp_err *err)
{
	struct bp_fsloc loc = { devpath, 0 };

	return bp_resolve_at(col, &loc, written_after, t, st, err);
}

errcode_t bp_resolve_at(const struct bp_collected *col, const struct bp_fsloc *loc,
			int64_t written_after, struct bp_trace *t, struct bp_resolve_stats *st,
			struct bp_err *err)
{
	const char *devpath = loc->path;
	struct ext2_inode_large in;
	struct namer nm = { 0 };
	struct bp_ext2_map map = { 0 };
	struct bp_file_id id;
	ext2_ino_t *want = NULL;
	ext2_filsys fs = NULL;
	size_t i, j, nwant = 0;
	errcode_t rc;
	uint64_t bs;

	memset(st, 0, sizeof(*st));
	rc = bp_fs_open_ro_at(loc, &fs, err);
	if (rc)
		return rc;
	bp_uuid_str(fs->super->s_uuid, t->hdr.uuid);
	t->hdr.block_size = fs->blocksize;
	bs = fs->blocksize;
	want = malloc((col->nfiles ? col->nfiles : 1) * sizeof(*want));
	if (!want) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < col->nmeta; i++) {
		rc = bp_trace_add_meta(t, col->meta[i].start, col->meta[i].end - col->meta[i].start,
				       col->meta[i].first_ns);
		if (rc) {
			rc = bp_err_set(err, rc, "out of memory");
			goto out;
		}
	}

	/* Pass 1: which inodes are regular files that can be read back later. */
	for (i = 0; i < col->nfiles; i++) {
		const struct bp_cfile *cf = &col->files[i];

		if (!cf->ino || cf->ino > fs->super->s_inodes_count) {
			st->deleted++;
			continue;
		}
		rc = bp_ext2_file_read(fs, (ext2_ino_t)cf->ino, &in, &id);
		if (rc) {
			rc = bp_err_lib(err, rc, "%s: while reading inode %" PRIu64, devpath,
					cf->ino);
			goto out;
		}
		if (!in.i_links_count || in.i_dtime) {
			st->deleted++;
			continue;
		}
		if (!LINUX_S_ISREG(in.i_mode)) {
			st->nonreg++;
			continue;
		}
		if (written_after != INT64_MIN &&
		    id.mtime_sec * 1000000000LL + id.mtime_nsec >= written_after) {
			st->written++;
			continue;
		}
		want[nwant++] = (ext2_ino_t)cf->ino;	/* col->files is sorted by ino */
	}
	nm.want = want;
	nm.nwant = nm.left = nwant;
	nm.names = calloc(nwant ? nwant : 1, sizeof(*nm.names));
	if (!nm.names) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (nwant) {
		rc = name_inodes(fs, &nm);
		if (rc) {
			rc = bp_err_set(err, rc, "while naming the traced files: %s",
					strerror((int)rc));
			goto out;
		}
	}

	/* Pass 2: files, with physical offsets. */
	for (i = 0, j = 0; i < col->nfiles && j < nwant; i++) {
		const struct bp_cfile *cf = &col->files[i];
		struct bp_trace_file *f;
		size_t k;

		if (cf->ino != want[j])
			continue;
		if (!nm.names[j]) {
			st->unnamed++;
			j++;
			continue;
		}
		rc = bp_ext2_file_read(fs, want[j], &in, &id);
		if (rc) {
			rc = bp_err_lib(err, rc, "%s: while reading inode %u", devpath, want[j]);
			goto out;
		}
		rc = bp_ext2_map_load(fs, want[j], &in, &map);
		if (rc) {
			rc = bp_err_lib(err, rc, "%s: while mapping the blocks of inode %u (%s)",
					devpath, want[j], nm.names[j]);
			goto out;
		}
		f = bp_trace_add_file(t, want[j], id.generation, id.size, id.mtime_sec,
				      nm.names[j]);
		if (!f) {
			rc = bp_err_set(err, ENOMEM, "out of memory");
			goto out;
		}
		for (k = 0; k < cf->n; k++) {
			uint64_t s = cf->r[k].start, e = MIN(cf->r[k].end, id.size);

			if (s >= e)
				continue;
			rc = add_range(f, &map, bs, s, e, cf->r[k].first_ns);
			if (rc) {
				rc = bp_err_set(err, rc, "out of memory");
				goto out;
			}
		}
		st->files++;
		j++;
	}
	t->hdr.events_added = col->added;
	t->hdr.events_accessed = col->accessed;
	t->hdr.events_lost = col->lost;
	rc = bp_trace_normalize(t);
	if (rc) {
		rc = bp_err_set(err, rc, "out of memory");
		goto out;
	}
	/* the device's metadata named by owner, against this filesystem, once */
	rc = bp_trace_owners_resolve(fs, t, &st->owner_ns, err);
out:
	namer_free(&nm);
	bp_ext2_map_free(&map);
	free(want);
	ext2fs_close_free(&fs);
	return rc;
}

errcode_t bp_trace_check_device(const struct bp_trace *t, const char *devpath, struct bp_err *err)
{
	ext2_filsys fs = NULL;
	errcode_t rc;

	rc = bp_fs_open_ro(devpath, &fs, err);
	if (rc)
		return rc;
	rc = bp_fs_check_ident(fs, devpath, "trace", t->hdr.uuid, t->hdr.block_size, err);
	ext2fs_close_free(&fs);
	return rc;
}

errcode_t bp_trace_from_events(struct bp_collect *c, uint32_t kdev, const struct bp_fsloc *loc,
			       int64_t written_after, struct bp_trace **ret,
			       struct bp_events_stats *st, struct bp_err *err)
{
	struct bp_collected col;
	struct bp_trace *t;
	errcode_t rc;

	*ret = NULL;
	memset(st, 0, sizeof(*st));
	rc = bp_collect_finish(c, kdev, &col, err);
	if (rc)
		return rc;
	st->collected = 1;
	st->lost = col.lost;
	st->used_access = col.used_access;
	t = bp_trace_new();
	if (!t) {
		bp_collected_free(&col);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	rc = bp_resolve_at(&col, loc, written_after, t, &st->res, err);
	bp_collected_free(&col);
	if (rc) {
		bp_trace_free(t);
		return rc;
	}
	t->hdr.dev_major = BP_KDEV_MAJOR(kdev);
	t->hdr.dev_minor = BP_KDEV_MINOR(kdev);
	*ret = t;
	return 0;
}
