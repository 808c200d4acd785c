// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * head.c --- the boot stream's whole items: first files, listed directories, path directories
 *
 * Items that join the stream whole rather than piece by piece: what runs
 * before the first traced read (rl_add_first), the directories the boot
 * listed (rl_add_traced_dirs, known only from the trace's metadata) and
 * the directories on each traced file's path (rl_add_dirs). bootset.c
 * builds the stream and calls them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "ext2file.h"
#include "fspath.h"
#include "rl-int.h"
#include "rl-pieces.h"

/* The directories on path (root first), each laid out whole the first time it is seen. */
errcode_t rl_add_dirs(struct rl_stream *s, struct pieces *p, const char *path, uint64_t rank)
{
	char buf[BP_TRACE_PATH_MAX + 1];
	size_t n = strlen(path), i;
	ext2_ino_t ino = EXT2_ROOT_INO;
	uint32_t idx;
	errcode_t rc;

	if (n > BP_TRACE_PATH_MAX)
		return ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (i = 0; i <= n; i++) {
		int found;

		if (i && buf[i] != '/')
			continue;
		if (i) {
			buf[i] = 0;
			rc = ext2fs_namei_follow(s->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, buf, &ino);
			buf[i] = '/';
			if (rc)
				return 0;	/* the file check reports it missing */
		}
		found = rl_item_find(s, ino);
		if (found >= 0)
			continue;
		rc = rl_item_new(s, ino, 1, &idx);
		if (rc)
			return rc;
		if (s->items[idx].skipped)
			continue;
		s->dirs++;
		rc = rl_piece_add(p, idx, PIECE_WHOLE, rank, 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Directories the boot read without opening a file under them (systemd
 * listing its .wants directories, /etc/init.d, ...) are in the trace only
 * as metadata ranges. Every directory owning a traced metadata block joins
 * the stream whole, ranked at the first access of its earliest such block:
 * left where they were, they cost the reader one seek each (40 directories,
 * ~0.2 s on the 5400 rpm model, on the traced Debian boot). They go first,
 * at the very head of the region, before the path directories: after the
 * run their traced blocks are stale and they cannot be found again, and at
 * the head they leave no hole in the stream a later verify sees (the
 * reader reads the whole metadata head in one request either way).
 */
struct dscan {
	const struct bp_trace_meta *meta;	/* the trace's metadata now (sorted) */
	size_t nmeta;
	uint64_t bs, first_ns;
};

/* first_ns of the traced metadata range holding blk, or UINT64_MAX. */
static uint64_t meta_ns(const struct dscan *d, blk64_t blk)
{
	uint64_t off = blk * d->bs;
	size_t lo = 0, hi = d->nmeta;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct bp_trace_meta *m = &d->meta[mid];

		if (off < m->offset)
			hi = mid;
		else if (off - m->offset >= m->length)
			lo = mid + 1;
		else
			return m->first_ns;
	}
	return UINT64_MAX;
}

/* The earliest first access of the directory's data blocks, one run at a time. */
static errcode_t dscan_run(const struct bp_ext2_run *r, void *priv)
{
	struct dscan *d = priv;
	uint64_t i;

	for (i = 0; i < r->len; i++) {
		uint64_t ns = meta_ns(d, r->pblk + i);

		if (ns < d->first_ns)
			d->first_ns = ns;
	}
	return 0;
}

/* The first index of refs (sorted by time) read at or after ns. */
static size_t rank_at(const struct bp_trace_ref *refs, size_t n, uint64_t ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (refs[mid].range->first_ns < ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* rl_add_traced_dirs() across the inode tables. */
struct tdirs {
	struct rl_stream *s;
	struct pieces *p;
	const struct bp_trace_ref *refs;
	size_t nrefs;
	struct dscan d;
};

static errcode_t tdirs_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *inode,
			     void *priv)
{
	struct tdirs *td = priv;
	struct rl_stream *s = td->s;
	struct pieces *p = td->p;
	uint32_t idx;
	errcode_t rc;

	if (!LINUX_S_ISDIR(inode->i_mode) || (inode->i_flags & EXT4_INLINE_DATA_FL))
		return 0;
	td->d.first_ns = UINT64_MAX;
	if (bp_ext2_file_walk(fs, ino, inode, 0, dscan_run, &td->d) ||
	    td->d.first_ns == UINT64_MAX)
		return 0;
	if (rl_item_find(s, ino) >= 0)
		return 0;
	rc = rl_item_new(s, ino, 1, &idx);
	if (rc)
		return rc;
	if (s->items[idx].skipped)
		return 0;
	s->dirs++;
	rc = rl_piece_add(p, idx, PIECE_WHOLE, rank_at(td->refs, td->nrefs, td->d.first_ns), 0, 0);
	if (rc)
		return rc;
	p->v[p->n - 1].front = RL_FRONT_LISTED_DIR;
	return 0;
}

errcode_t rl_add_traced_dirs(struct rl_stream *s, struct pieces *p, const struct bp_trace *t,
			     const struct bp_trace_ref *refs, size_t nrefs)
{
	struct tdirs td = { s, p, refs, nrefs, { .bs = s->fs->blocksize } };
	struct bp_trace_meta *now = NULL;
	struct bp_err err = { 0 };
	size_t nnow = 0;
	errcode_t rc;

	if (!t->nmeta && !t->nowned)
		return 0;
	/*
	 * Where the trace's metadata is now (tracefile.h): a directory named
	 * by owner is found wherever an earlier relayout put it.
	 */
	rc = bp_trace_meta_now(s->fs, t, &now, &nnow, NULL, &err);
	if (rc)
		return rc;
	td.d.meta = now;
	td.d.nmeta = nnow;
	rc = nnow ? bp_ext2_inodes_walk(s->fs, tdirs_inode, &td) : 0;
	free(now);
	return rc;
}

/*
 * What runs before the boot's first traced read was not traced: the reader
 * (exec'd as init, or started first by the initramfs) and the directory it
 * finds the pack in. Left where they were, the reader's own page faults and
 * lookups cost the traced Debian boot 8 requests far from everything else
 * (~70 ms on the 5400 rpm model) before its metadata pass. They go whole,
 * in the order given, at the very head, before the listed directories.
 * A path missing on this filesystem is no error: the filesystem may not be
 * the root, or the reader may live elsewhere.
 */
errcode_t rl_add_first(struct rl_stream *s, struct pieces *p, const struct rl_build *b)
{
	char canon[BP_TRACE_PATH_MAX + 1];
	struct ext2_inode inode;
	ext2_ino_t ino;
	uint32_t idx;
	size_t i;
	errcode_t rc;

	for (i = 0; i < b->nfirst; i++) {
		int dir;

		if (!b->first[i] || !*b->first[i])
			continue;
		/* The traced paths' rule (fspath.h), so a --first path names the same file. */
		if (bp_fs_path_resolve(s->fs, b->first[i], canon, sizeof(canon), &ino) ||
		    rl_item_find(s, ino) >= 0 || ext2fs_read_inode(s->fs, ino, &inode))
			continue;
		dir = LINUX_S_ISDIR(inode.i_mode);
		if (!dir && !LINUX_S_ISREG(inode.i_mode))
			continue;
		rc = rl_item_new(s, ino, dir, &idx);
		if (rc)
			return rc;
		if (s->items[idx].skipped)
			continue;
		if (dir) {
			s->dirs++;
		} else {
			s->files++;
			s->items[idx].whole = 1;
		}
		rc = rl_piece_add(p, idx, PIECE_WHOLE, 0, 0, 0);
		if (rc)
			return rc;
		p->v[p->n - 1].front = RL_FRONT_FIRST;
	}
	return 0;
}
