// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-map.c --- the pack builder's admission: a traced file now, its ranges on disk, the budget
 *
 * Each traced file is looked up again by path (pb_resolve_file), the names
 * of one inode are found (pb_find_links), and each range, file or
 * metadata, is admitted whole in first-access order until the budget is
 * reached (pb_map_range, pb_add_meta); file ranges are split where the
 * disk is not contiguous.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "c.h"
#include "fspath.h"
#include "pack-build-int.h"

errcode_t pb_resolve_file(struct builder *b, const struct bp_trace_file *f, struct fstate *s)
{
	char path[BP_PACK_PATH_MAX];
	struct ext2_inode_large inode;
	struct bp_file_id then;
	errcode_t rc;

	s->skip = -1;
	/* The rule relayout and verify apply too (fspath.h); the pack keeps the canonical path. */
	rc = bp_fs_path_resolve(b->fs, f->path, path, sizeof(path), &s->ino);
	if (rc == EXT2_ET_FILE_NOT_FOUND || rc == EXT2_ET_NO_DIRECTORY || rc == ELOOP) {
		s->skip = BP_PACK_SKIP_MISSING;
		return 0;
	}
	if (rc == ENAMETOOLONG || (!rc && !bp_pack_path_ok(path, strlen(path)))) {
		s->skip = BP_PACK_SKIP_BAD_PATH;
		return 0;
	}
	if (rc)
		return rc;
	s->path = strdup(path);
	if (!s->path)
		return ENOMEM;
	rc = bp_ext2_file_read(b->fs, s->ino, &inode, &s->id);
	if (rc)
		return rc;
	if (!LINUX_S_ISREG(inode.i_mode)) {
		s->skip = BP_PACK_SKIP_NOT_REGULAR;
		return 0;
	}
	if (inode.i_flags & EXT4_INLINE_DATA_FL) {
		s->skip = BP_PACK_SKIP_NO_BLOCKS;
		return 0;
	}
	then = bp_trace_file_id(f);
	s->changed = bp_file_compare(&s->id, &then, 0) != BP_FILE_SAME;
	return bp_ext2_map_load(b->fs, s->ino, &inode, &s->map);
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
	e->size = s->id.size;
	e->mtime_sec = s->id.mtime_sec;
	e->mtime_nsec = s->id.mtime_nsec;
	e->ino = s->ino;
	e->generation = s->id.generation;
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
		uint64_t lblk = pos / bs, pblk, n = bp_ext2_map_find(&s->map, lblk, &pblk);
		uint64_t piece_end = n < DIV_ROUND_UP(end, bs) - lblk ? (lblk + n) * bs : end;

		if (pblk) {
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
 * Admit the traced range [off, off + len) of a file, rounded out to whole
 * pages of b->page (what the kernel of the machine the pack is for reads)
 * and clamped to the file's size, whole, or, if it does not fit in what is
 * left of the budget, not at all: then it and every later range are cut.
 * Bytes already packed, under this name (two ranges in one page) or
 * another name of the same inode (a hard link), are not packed twice.
 */
errcode_t pb_map_range(struct builder *b, size_t file, uint64_t off, uint64_t len)
{
	struct fstate *s = &b->fst[file];
	size_t n0 = b->nents, i;
	uint64_t used0 = b->used, end, pos, want = 0;
	int nofit = 0;
	errcode_t rc;

	if (off >= s->id.size)
		return 0;
	end = len > s->id.size - off ? s->id.size : off + len;
	off &= ~(b->page - 1);
	end = (end + b->page - 1) & ~(b->page - 1);	/* end <= i_size: no overflow */
	if (end > s->id.size)
		end = s->id.size;	/* the last page: up to the end of the file */
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
	return add_done(s, off, end);
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

errcode_t pb_find_links(struct builder *b, size_t nfiles)
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

errcode_t pb_add_meta(struct builder *b, const struct bp_trace_meta *m)
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
