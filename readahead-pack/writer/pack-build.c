// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-build.c --- trace + filesystem -> pack: re-resolve, budget, sort
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "fsident.h"
#include "pack-build.h"
#include "pack-meta.h"

/* What a traced file is now. */
struct fstate {
	struct ext2_inode_large inode;	/* for ext2fs_bmap2 */
	ext2_ino_t ino;
	uint32_t generation, mtime_nsec;
	uint64_t size;
	int64_t mtime;
	int skip;			/* enum bp_pack_skip, or -1 if usable */
	int changed;
	int in_pack;
	uint32_t path_idx;
	size_t root;			/* first traced name of the same inode (hard links) */
	int linked;			/* root of other names: track what is packed */
	struct span *done;		/* bytes packed, sorted, merged (linked roots only) */
	size_t ndone, adone;
};

struct span {
	uint64_t start, end;
};

/* A metadata or file range in first-access order. */
struct item {
	uint64_t first_ns;
	int is_meta;
	size_t idx;			/* into t->meta or the refs */
};

struct builder {
	ext2_filsys fs;
	const struct bp_trace *t;
	struct fstate *fst;
	struct bp_pack_wentry *ents;	/* .file = index into t->files until the end */
	size_t nents, aents;
	struct bp_pack_meta *meta;
	size_t nmeta;
	uint64_t budget, used;
	int full;			/* budget reached: everything else is cut */
	struct bp_pack_report *rep;
};

static const char *const skip_names[BP_PACK_SKIP_NR] = {
	[BP_PACK_SKIP_MISSING] = "missing",
	[BP_PACK_SKIP_NOT_REGULAR] = "not-regular",
	[BP_PACK_SKIP_BAD_PATH] = "bad-path",
	[BP_PACK_SKIP_NO_BLOCKS] = "no-blocks",
	[BP_PACK_SKIP_CUT] = "cut",
	[BP_PACK_SKIP_LINK] = "hard-link",
};

const char *bp_pack_skip_name(enum bp_pack_skip s)
{
	return (unsigned int)s < BP_PACK_SKIP_NR ? skip_names[s] : "unknown";
}

static void read_times(ext2_filsys fs, const struct ext2_inode_large *in, int64_t *sec,
		       uint32_t *nsec)
{
	int64_t t = (int32_t)in->i_mtime;

	*nsec = 0;
	/* i_mtime_extra ends 12 bytes into the extra space */
	if (EXT2_INODE_SIZE(fs->super) > EXT2_GOOD_OLD_INODE_SIZE && in->i_extra_isize >= 12) {
		t += (int64_t)(in->i_mtime_extra & 3) << 32;
		*nsec = in->i_mtime_extra >> 2;
	}
	*sec = t;
}

static errcode_t resolve_file(struct builder *b, const struct bp_trace_file *f,
			      struct fstate *s)
{
	errcode_t rc;

	s->skip = -1;
	if (!bp_pack_path_ok(f->path, strlen(f->path))) {
		s->skip = BP_PACK_SKIP_BAD_PATH;
		return 0;
	}
	rc = ext2fs_namei(b->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, f->path, &s->ino);
	if (rc == EXT2_ET_FILE_NOT_FOUND || rc == EXT2_ET_NO_DIRECTORY) {
		s->skip = BP_PACK_SKIP_MISSING;
		return 0;
	}
	if (rc)
		return rc;
	rc = ext2fs_read_inode_full(b->fs, s->ino, (struct ext2_inode *)&s->inode,
				    sizeof(s->inode));
	if (rc)
		return rc;
	if (!LINUX_S_ISREG(s->inode.i_mode)) {
		s->skip = BP_PACK_SKIP_NOT_REGULAR;
		return 0;
	}
	s->generation = s->inode.i_generation;
	s->size = EXT2_I_SIZE(&s->inode);
	read_times(b->fs, &s->inode, &s->mtime, &s->mtime_nsec);
	if (s->inode.i_flags & EXT4_INLINE_DATA_FL) {
		s->skip = BP_PACK_SKIP_NO_BLOCKS;
		return 0;
	}
	s->changed = s->ino != f->ino || s->generation != f->generation || s->size != f->size ||
		     s->mtime != f->mtime;
	return 0;
}

static errcode_t add_entry(struct builder *b, size_t file, uint64_t off, uint64_t len,
			   uint64_t phys)
{
	const struct fstate *s = &b->fst[file];
	struct bp_pack_wentry *e;

	if (b->nents == b->aents && (b->aents ? b->aents * 2 : 256) > BP_PACK_MAX_ENTRIES)
		return E2BIG;
	if (bp_array_reserve((void **)&b->ents, &b->aents, b->nents, sizeof(*b->ents), 256))
		return ENOMEM;
	b->used += len;
	e = &b->ents[b->nents++];
	memset(e, 0, sizeof(*e));
	e->offset = off;
	e->length = len;
	e->phys = phys;
	e->budget_pos = b->used;
	e->size = s->size;
	e->mtime_sec = s->mtime;
	e->mtime_nsec = s->mtime_nsec;
	e->ino = s->ino;
	e->generation = s->generation;
	e->flags = s->changed ? BP_PACK_ENTRY_F_CHANGED : 0;
	e->file = (uint32_t)file;
	b->rep->nentries++;
	b->rep->file_bytes += len;
	return 0;
}

/*
 * Map [off, end) of a file to physically contiguous pieces and add them.
 * Holes and unwritten extents are not read, so they are not in the pack.
 * *nofit is set when the budget or the entry limit is reached.
 */
static errcode_t map_span(struct builder *b, size_t file, uint64_t off, uint64_t end,
			  int *nofit)
{
	struct fstate *s = &b->fst[file];
	uint64_t bs = b->fs->blocksize, pos, run_start = 0, run_phys = 0, run_len = 0;
	errcode_t rc;

	for (pos = off; pos < end;) {
		blk64_t lblk = pos / bs, pblk = 0;
		uint64_t blk_end = (lblk + 1) * bs, piece_end = blk_end < end ? blk_end : end;
		int flags = 0;

		rc = ext2fs_bmap2(b->fs, s->ino, (struct ext2_inode *)&s->inode, NULL, 0, lblk,
				  &flags, &pblk);
		if (rc)
			return rc;
		if (pblk && !(flags & BMAP_RET_UNINIT)) {
			uint64_t phys = pblk * bs + (pos - lblk * bs);

			if (run_len && run_phys + run_len == phys) {
				run_len += piece_end - pos;
			} else {
				if (run_len) {
					rc = add_entry(b, file, run_start, run_len, run_phys);
					if (rc)
						goto out;
				}
				run_start = pos;
				run_phys = phys;
				run_len = piece_end - pos;
			}
		} else if (run_len) {
			rc = add_entry(b, file, run_start, run_len, run_phys);
			if (rc)
				goto out;
			run_len = 0;
		}
		pos = piece_end;
		if (b->budget && b->used + run_len > b->budget) {
			*nofit = 1;	/* cannot fit any more: stop mapping */
			return 0;
		}
	}
	rc = run_len ? add_entry(b, file, run_start, run_len, run_phys) : 0;
out:
	if (rc == E2BIG) {
		*nofit = 1;
		return 0;
	}
	return rc;
}

/* Record [start, end) as packed for a file with several names. */
static errcode_t add_done(struct fstate *s, uint64_t start, uint64_t end)
{
	size_t i = 0, j;

	while (i < s->ndone && s->done[i].end < start)
		i++;
	j = i;
	while (j < s->ndone && s->done[j].start <= end) {
		start = MIN(start, s->done[j].start);
		end = MAX(end, s->done[j].end);
		j++;
	}
	if (j == i) {		/* insert at i */
		if (bp_array_reserve((void **)&s->done, &s->adone, s->ndone, sizeof(*s->done), 8))
			return ENOMEM;
		memmove(s->done + i + 1, s->done + i, (s->ndone - i) * sizeof(*s->done));
		s->ndone++;
	} else if (j > i + 1) {	/* spans i..j-1 become one */
		memmove(s->done + i + 1, s->done + j, (s->ndone - j) * sizeof(*s->done));
		s->ndone -= j - i - 1;
	}
	s->done[i] = (struct span){ start, end };
	return 0;
}

/*
 * Admit the traced range [off, off + len) of a file (clamped to its size)
 * whole, or, if it does not fit in what is left of the budget, not at all:
 * then it and every later range are cut. Bytes already packed under
 * another name of the same inode (a hard link) are not packed twice.
 */
static errcode_t map_range(struct builder *b, size_t file, uint64_t off, uint64_t len)
{
	struct fstate *s = &b->fst[file];
	size_t n0 = b->nents, i;
	uint64_t used0 = b->used, end, pos, want = 0;
	int nofit = 0;
	errcode_t rc;

	if (off >= s->size)
		return 0;
	end = len > s->size - off ? s->size : off + len;
	/* the parts of [off, end) not packed yet */
	for (i = 0, pos = off; pos < end;) {
		uint64_t gap_end = end;

		while (i < s->ndone && s->done[i].end <= pos)
			i++;
		if (i < s->ndone && s->done[i].start <= pos) {
			pos = s->done[i].end;
			continue;
		}
		if (i < s->ndone && s->done[i].start < end)
			gap_end = s->done[i].start;
		want += gap_end - pos;
		if (!b->full && !nofit) {
			rc = map_span(b, file, pos, gap_end, &nofit);
			if (rc)
				return rc;
		}
		pos = gap_end;
	}
	if (!want)
		return 0;
	if (b->full)
		goto cut;
	if (nofit || (b->budget && b->used > b->budget))
		goto rollback;
	return s->linked ? add_done(s, off, end) : 0;
rollback:
	b->rep->nentries -= b->nents - n0;
	b->rep->file_bytes -= b->used - used0;
	b->nents = n0;
	b->used = used0;
	b->full = 1;
cut:
	b->rep->cut_ranges++;
	b->rep->cut_bytes += want;
	return 0;
}

/* Names of one inode: ranges of later names go to the first (root). */
static int cmp_ino_idx(const void *a, const void *b, void *arg)
{
	const struct fstate *f = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (f[x].ino != f[y].ino)
		return f[x].ino < f[y].ino ? -1 : 1;
	return x < y ? -1 : x > y;
}

static errcode_t find_links(struct builder *b, size_t nfiles)
{
	size_t *v = malloc((nfiles ? nfiles : 1) * sizeof(*v)), n = 0, i;

	if (!v)
		return ENOMEM;
	for (i = 0; i < nfiles; i++) {
		b->fst[i].root = i;
		if (b->fst[i].skip < 0)
			v[n++] = i;
	}
	qsort_r(v, n, sizeof(*v), cmp_ino_idx, b->fst);
	for (i = 1; i < n; i++) {
		struct fstate *prev = &b->fst[v[i - 1]], *cur = &b->fst[v[i]];

		if (cur->ino != prev->ino)
			continue;
		cur->root = prev->root;
		b->fst[cur->root].linked = 1;
		b->rep->files_skipped[BP_PACK_SKIP_LINK]++;
	}
	free(v);
	return 0;
}

static errcode_t add_meta(struct builder *b, const struct bp_trace_meta *m)
{
	uint64_t fs_bytes = ext2fs_blocks_count(b->fs->super) * (uint64_t)b->fs->blocksize;
	uint64_t len = m->length;

	if (m->offset >= fs_bytes || len == 0)
		return 0;
	if (len > fs_bytes - m->offset)
		len = fs_bytes - m->offset;
	if (!b->full && b->budget && b->used + len > b->budget)
		b->full = 1;
	if (b->full) {
		b->rep->cut_ranges++;
		b->rep->cut_bytes += len;
		return 0;
	}
	b->used += len;
	b->meta[b->nmeta].offset = m->offset;
	b->meta[b->nmeta].length = len;
	b->meta[b->nmeta].budget_pos = b->used;
	b->nmeta++;
	b->rep->nmeta++;
	b->rep->meta_bytes += len;
	return 0;
}

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	if (x->is_meta != y->is_meta)
		return x->is_meta ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_meta(const void *a, const void *b)
{
	const struct bp_pack_meta *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct bp_pack_wentry *x = a, *y = b;

	if (x->phys != y->phys)
		return x->phys < y->phys ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

errcode_t bp_pack_build(ext2_filsys fs, const struct bp_trace *t, const struct bp_pack_opts *o,
			void **ret_buf, size_t *ret_len, struct bp_pack_report *rep,
			struct bp_err *err)
{
	struct bp_pack_report local;
	struct builder b = { .fs = fs, .t = t, .budget = o->budget };
	struct bp_meta_list ml = { 0 };
	const struct bp_trace_meta *tmeta;
	struct bp_trace_meta *allmeta = NULL;
	unsigned int meta_src = o->meta ? o->meta : BP_PACK_META_TRACE | BP_PACK_META_FILES;
	struct bp_trace_meta *live = NULL;
	size_t nall = 0, nlive = 0;
	struct bp_trace_ref *refs = NULL;
	struct item *items = NULL;
	const char **paths = NULL;
	struct bp_pack_wdata d;
	size_t nrefs = 0, nitems, i, npaths = 0;
	errcode_t rc;

	*ret_buf = NULL;
	*ret_len = 0;
	if (!rep)
		rep = &local;
	memset(rep, 0, sizeof(*rep));
	b.rep = rep;
	rep->files_traced = t->nfiles;

	rc = bp_fs_check_ident(fs, fs->device_name, "trace", t->hdr.uuid, t->hdr.block_size, err);
	if (rc)
		return rc;

	b.fst = calloc(t->nfiles ? t->nfiles : 1, sizeof(*b.fst));
	if (!b.fst) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < t->nfiles; i++) {
		rc = resolve_file(&b, &t->files[i], &b.fst[i]);
		if (rc) {
			bp_err_lib(err, rc, "while looking up %s", t->files[i].path);
			goto out;
		}
		if (b.fst[i].skip < 0 && b.fst[i].changed)
			rep->files_changed++;
	}
	rc = find_links(&b, t->nfiles);
	if (rc) {
		bp_err_set(err, rc, "out of memory");
		goto out;
	}

	/*
	 * Metadata: the trace's ranges and/or what the files need now (files
	 * are in first-access order, so each block gets its earliest time).
	 */
	if (meta_src & BP_PACK_META_TRACE) {
		rc = bp_meta_live(fs, t->meta, t->nmeta, o->moved_from, o->nmoved_from, &live,
				  &nlive, &rep->meta_moved_blocks, &rep->meta_stale_blocks);
		if (rc) {
			bp_err_set(err, rc, "out of memory");
			goto out;
		}
	}
	if (meta_src & BP_PACK_META_FILES) {
		for (i = 0; i < nlive; i++) {
			rc = bp_meta_mark(&ml, fs, live[i].offset, live[i].length);
			if (rc) {
				bp_err_set(err, rc, "out of memory");
				goto out;
			}
		}
		for (i = 0; i < t->nfiles; i++) {
			if (b.fst[i].skip >= 0 || b.fst[i].root != i)
				continue;
			rc = bp_meta_add_file(&ml, fs, t->files[i].path, b.fst[i].ino,
					      t->files[i].first_ns);
			if (rc) {
				bp_err_lib(err, rc, "while finding the metadata blocks of %s",
					   t->files[i].path);
				goto out;
			}
		}
	}
	nall = nlive + ml.n;
	allmeta = malloc((nall ? nall : 1) * sizeof(*allmeta));
	b.meta = calloc(nall ? nall : 1, sizeof(*b.meta));
	if (!allmeta || !b.meta) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (nlive)
		memcpy(allmeta, live, nlive * sizeof(*allmeta));
	if (ml.n)
		memcpy(allmeta + nall - ml.n, ml.v, ml.n * sizeof(*allmeta));
	tmeta = allmeta;

	/* Everything in first-access order, metadata first at equal times. */
	rc = bp_trace_ranges_by_time(t, &refs, &nrefs);
	if (rc) {
		bp_err_set(err, rc, "out of memory");
		goto out;
	}
	nitems = nall + nrefs;
	items = malloc((nitems ? nitems : 1) * sizeof(*items));
	if (!items) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nall; i++)
		items[i] = (struct item){ tmeta[i].first_ns, 1, i };
	for (i = 0; i < nrefs; i++)
		items[nall + i] = (struct item){ refs[i].range->first_ns, 0, i };
	qsort(items, nitems, sizeof(*items), cmp_item);

	for (i = 0; i < nitems; i++) {
		const struct bp_trace_ref *r;
		size_t file;

		if (items[i].is_meta) {
			rc = add_meta(&b, &tmeta[items[i].idx]);
			if (rc)
				goto out_rc;
			continue;
		}
		r = &refs[items[i].idx];
		file = (size_t)(r->file - t->files);
		if (b.fst[file].skip >= 0)
			continue;
		file = b.fst[file].root;
		rc = map_range(&b, file, r->range->offset, r->range->length);
		if (rc) {
			bp_err_lib(err, rc, "while mapping the blocks of %s", r->file->path);
			goto out;
		}
	}
	/*
	 * Back to disk order. The trace keeps its ranges disjoint
	 * (tracefile.h) and file metadata blocks are never in a trace range.
	 */
	qsort(b.meta, b.nmeta, sizeof(*b.meta), cmp_meta);

	/* Disk order; paths numbered in the order the reader meets them. */
	if (b.nents)
		qsort(b.ents, b.nents, sizeof(*b.ents), cmp_entry);
	paths = malloc((t->nfiles ? t->nfiles : 1) * sizeof(*paths));
	if (!paths) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < b.nents; i++) {
		struct fstate *s = &b.fst[b.ents[i].file];

		if (!s->in_pack) {
			s->in_pack = 1;
			s->path_idx = (uint32_t)npaths;
			paths[npaths++] = t->files[b.ents[i].file].path;
		}
		b.ents[i].file = s->path_idx;
	}
	rep->nfiles = npaths;
	for (i = 0; i < t->nfiles; i++) {
		const struct fstate *s = &b.fst[i];

		if (s->skip >= 0)
			rep->files_skipped[s->skip]++;
		else if (s->root != i)
			continue;	/* counted as a link */
		else if (!s->in_pack)
			rep->files_skipped[b.full ? BP_PACK_SKIP_CUT : BP_PACK_SKIP_NO_BLOCKS]++;
	}

	memset(&d, 0, sizeof(d));
	memcpy(d.uuid, fs->super->s_uuid, 16);
	d.block_size = fs->blocksize;
	d.dev_major = o->dev_major ? o->dev_major : t->hdr.dev_major;
	d.dev_minor = o->dev_major ? o->dev_minor : t->hdr.dev_minor;
	d.created = o->created ? o->created : (int64_t)time(NULL);
	d.budget = o->budget;
	d.cut_bytes = rep->cut_bytes;
	d.feature_compat = BP_PACK_COMPAT_MTIME_NSEC | o->compat;
	d.compress = o->compress;
	d.meta = b.meta;
	d.nmeta = b.nmeta;
	d.entries = b.ents;
	d.nentries = b.nents;
	d.paths = paths;
	d.npaths = npaths;
	rc = bp_pack_serialize(&d, ret_buf, ret_len, err);
	if (rc)
		goto out;
	rep->pack_size = *ret_len;
	rep->body_raw_size = bp_get_le64((uint8_t *)*ret_buf + BP_PACK_OFF_BODY_RAW_SIZE);
	rep->compressed = !!(bp_get_le32((uint8_t *)*ret_buf + BP_PACK_OFF_INCOMPAT) &
			     BP_PACK_INCOMPAT_DEFLATE);
	goto out;
out_rc:
	bp_err_set(err, rc, "%s", error_message(rc));
out:
	free(live);
	free(paths);
	free(items);
	free(refs);
	free(b.ents);
	free(b.meta);
	for (i = 0; b.fst && i < t->nfiles; i++)
		free(b.fst[i].done);
	free(b.fst);
	free(allmeta);
	bp_meta_list_free(&ml);
	return rc;
}

errcode_t bp_pack_build_write(ext2_filsys fs, const struct bp_trace *t,
			      const struct bp_pack_opts *o, struct bp_pack_report *rep,
			      struct bp_err *err)
{
	void *buf;
	size_t len;
	errcode_t rc;

	if (!o->output)
		return bp_err_set(err, EINVAL, "no output path for the pack");
	rc = bp_pack_build(fs, t, o, &buf, &len, rep, err);
	if (rc)
		return rc;
	rc = bp_pack_save(o->output, buf, len, err);
	free(buf);
	return rc;
}
