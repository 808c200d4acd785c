// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-verify.c --- check a pack's entries against the filesystem (libext2fs, read-only)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "c.h"
#include "contig.h"
#include "ext2file.h"
#include "fsident.h"
#include "fspath.h"
#include "bp_et.h"
#include "pack-build.h"
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

/* --- the trace's blocks in the pack (bp_pack_cover) --- */

const char *bp_cover_kind_name(uint32_t kind)
{
	return kind == BP_COVER_DATA ? "data" : bp_own_kind_name(kind);
}

struct brun {
	uint64_t first, last;	/* blocks, inclusive */
};

static int cmp_brun(const void *a, const void *b)
{
	const struct brun *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

struct pspan {
	uint64_t phys, len;
};

static int cmp_pspan(const void *a, const void *b)
{
	const struct pspan *x = a, *y = b;

	return x->phys < y->phys ? -1 : x->phys > y->phys;
}

struct cover_ctx {
	struct brun *runs;	/* the pack's blocks, merged */
	size_t nruns;
	uint64_t bs;
	struct bp_pack_cover *c;
	struct {
		uint32_t kind;
		uint64_t block;
		const char *path;
	} *pend;		/* blocks not in the pack, yet to be called cut or missing */
	size_t npend, apend;
};

static int in_pack(const struct cover_ctx *x, uint64_t blk)
{
	size_t lo = 0, hi = x->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->runs[mid].first <= blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && blk <= x->runs[lo - 1].last;
}

static errcode_t one_block(struct cover_ctx *x, uint32_t kind, uint64_t blk, const char *path)
{
	x->c->read[kind]++;
	if (in_pack(x, blk)) {
		x->c->packed[kind]++;
		return 0;
	}
	if (x->npend == x->apend) {
		size_t na = x->apend ? 2 * x->apend : 64;
		void *nv = realloc(x->pend, na * sizeof(*x->pend));

		if (!nv)
			return ENOMEM;
		x->pend = nv;
		x->apend = na;
	}
	x->pend[x->npend].kind = kind;
	x->pend[x->npend].block = blk;
	x->pend[x->npend++].path = path;
	return 0;
}

/* One range of the pack, in reading order: counted, and kept as a span and a block run. */
static size_t add_range(struct cover_ctx *x, struct pspan *s, size_t k, struct bp_contig *rd,
			uint64_t bs, uint64_t phys, uint64_t len)
{
	bp_contig_add(rd, phys, len);
	s[k] = (struct pspan){ phys, len };
	x->runs[k] = (struct brun){ phys / bs, (phys + len - 1) / bs };
	return k + 1;
}

/* The pack's ranges as merged block runs; the reading order's and the minimum's counts. */
static errcode_t pack_runs(const struct bp_pack *p, uint64_t bs, struct cover_ctx *x)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	size_t n = (size_t)in->nmeta + in->nentries, i, k = 0;
	struct bp_contig rd, mn;
	struct bp_pack_entry e;
	struct bp_pack_meta m;
	struct pspan *s;

	x->runs = malloc((n ? n : 1) * sizeof(*x->runs));
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!x->runs || !s) {
		free(s);
		return ENOMEM;
	}
	bp_contig_init(&rd, bs);
	bp_contig_init(&mn, bs);
	/* bootpack-read: the metadata by offset, then the entries by offset */
	for (i = 0; i < in->nmeta; i++) {
		bp_pack_meta(p, (uint32_t)i, &m);
		if (m.length)
			k = add_range(x, s, k, &rd, bs, m.offset, m.length);
	}
	for (i = 0; i < in->nentries; i++) {
		bp_pack_entry(p, (uint32_t)i, &e);
		if (e.length)
			k = add_range(x, s, k, &rd, bs, e.phys, e.length);
	}
	if (k)
		qsort(s, k, sizeof(*s), cmp_pspan);
	for (i = 0; i < k; i++)
		bp_contig_add(&mn, s[i].phys, s[i].len);
	free(s);
	x->c->requests = bp_contig_runs(&rd);
	x->c->seeks = rd.discontig;
	x->c->min_requests = bp_contig_runs(&mn);
	x->c->min_seeks = mn.discontig;
	if (k)
		qsort(x->runs, k, sizeof(*x->runs), cmp_brun);
	x->nruns = 0;
	for (i = 0; i < k; i++) {
		struct brun *last = x->nruns ? &x->runs[x->nruns - 1] : NULL;

		if (last && x->runs[i].first <= last->last + 1) {
			if (x->runs[i].last > last->last)
				last->last = x->runs[i].last;
			continue;
		}
		x->runs[x->nruns++] = x->runs[i];
	}
	return 0;
}

/* The blocks of one traced file's ranges, where the file has them now. */
static errcode_t cover_file(ext2_filsys fs, struct cover_ctx *x, const struct bp_trace_file *f,
			    struct bp_ext2_map *map)
{
	char path[BP_PACK_PATH_MAX];
	struct ext2_inode_large in;
	struct bp_file_id now;
	uint64_t bs = x->bs, size;
	ext2_ino_t ino;
	errcode_t rc;
	size_t j;

	rc = bp_fs_path_resolve(fs, f->path, path, sizeof(path), &ino);
	if (rc == EXT2_ET_FILE_NOT_FOUND || rc == EXT2_ET_NO_DIRECTORY || rc == ELOOP ||
	    rc == ENAMETOOLONG) {
		x->c->gone_files++;
		return 0;
	}
	if (rc)
		return rc;
	rc = bp_ext2_file_read(fs, ino, &in, &now);
	if (rc)
		return rc;
	if (!LINUX_S_ISREG(in.i_mode)) {
		x->c->gone_files++;
		return 0;
	}
	rc = bp_ext2_map_load(fs, ino, &in, map);
	if (rc)
		return rc;
	size = now.size;
	for (j = 0; j < f->nranges; j++) {
		const struct bp_trace_range *r = &f->ranges[j];
		uint64_t end = r->offset + r->length, l, last;

		if (r->phys == BP_PHYS_NONE || r->offset >= size)
			continue;	/* nothing was read from the disk, or no longer there */
		if (end > size)
			end = size;
		for (l = r->offset / bs, last = (end - 1) / bs; l <= last;) {
			uint64_t pblk, n = bp_ext2_map_find(map, l, &pblk), i;

			n = MIN(n, last - l + 1);
			for (i = 0; pblk && i < n; i++) {
				rc = one_block(x, BP_COVER_DATA, pblk + i, f->path);
				if (rc)
					return rc;
			}
			l += n;
		}
	}
	return 0;
}

errcode_t bp_pack_cover(ext2_filsys fs, const struct bp_pack *p, const struct bp_trace *t,
			struct bp_pack_cover *c, struct bp_err *err)
{
	const struct bp_pack_info *info = bp_pack_info(p);
	uint64_t bs = fs->blocksize, nblocks = ext2fs_blocks_count(fs->super);
	struct cover_ctx x = { .bs = bs, .c = c };
	struct bp_ext2_map map = { 0 };
	struct bp_meta_now_stats st;
	struct bp_trace_meta *now = NULL;
	char uuid[BP_UUID_STR_LEN];
	size_t nnow = 0, i;
	errcode_t rc;
	int cut;

	memset(c, 0, sizeof(*c));
	bp_uuid_str(info->uuid, uuid);
	rc = bp_fs_check_ident(fs, fs->device_name, "pack", uuid, info->block_size, err);
	if (!rc)
		rc = bp_fs_check_ident(fs, fs->device_name, "trace", t->hdr.uuid,
				       t->hdr.block_size, err);
	if (rc)
		return rc;
	rc = pack_runs(p, bs, &x);
	if (!rc)
		rc = bp_trace_meta_now(fs, t, &now, &nnow, &st, err);
	else
		bp_err_set(err, rc, "out of memory");
	if (rc)
		goto out;
	for (i = 0; i < BP_OWN_NR; i++)
		c->gone += st.gone[i];
	for (i = 0; i < nnow && !rc; i++) {
		const struct bp_trace_meta *m = &now[i];
		uint64_t b, last = (m->offset + m->length - 1) / bs;

		for (b = m->offset / bs; b <= last && !rc; b++) {
			if (b >= nblocks) {	/* the rest too: counted at once */
				c->past_end += last - b + 1;
				break;
			}
			if (m->kind == BP_OWN_JOURNAL)
				c->journal++;
			else
				rc = one_block(&x, m->kind, b, NULL);
		}
	}
	for (i = 0; i < t->nfiles && !rc; i++) {
		rc = cover_file(fs, &x, &t->files[i], &map);
		if (rc) {
			bp_err_lib(err, rc, "while looking up %s", t->files[i].path);
			goto out;
		}
	}
	if (rc) {
		bp_err_set(err, rc, "out of memory");
		goto out;
	}
	/* what the pack is missing: the budget's cut, or a broken pack */
	cut = info->cut_bytes && x.npend * bs <= info->cut_bytes;
	for (i = 0; i < x.npend; i++) {
		if (cut) {
			c->cut[x.pend[i].kind]++;
			continue;
		}
		c->missing[x.pend[i].kind]++;
		c->missing_total++;
		if (c->nexamples < BP_COVER_EXAMPLES) {
			c->example[c->nexamples].kind = x.pend[i].kind;
			c->example[c->nexamples].block = x.pend[i].block;
			c->example[c->nexamples++].path = x.pend[i].path;
		}
	}
out:
	bp_ext2_map_free(&map);
	free(now);
	free(x.runs);
	free(x.pend);
	return rc;
}

errcode_t bp_pack_build_write_checked(ext2_filsys fs, const struct bp_trace *t,
				      const struct bp_pack_opts *o, struct bp_pack_report *rep,
				      struct bp_pack_cover *cover, struct bp_err *err)
{
	struct bp_pack_cover local;
	struct bp_pack *p = NULL;
	const char *why = NULL;
	char kinds[256];
	size_t len, used = 0;
	uint32_t k;
	void *buf;
	errcode_t rc;

	if (!cover)
		cover = &local;
	if (!o->output)
		return bp_err_set(err, EINVAL, "no output path for the pack");
	rc = bp_pack_build(fs, t, o, &buf, &len, rep, err);
	if (rc)
		return rc;
	if (bp_pack_open_mem_why(buf, len, &p, &why) < 0) {
		free(buf);
		return bp_err_set(err, BP_ET_PACK_CORRUPT, "the pack just built does not parse: %s",
				  why ? why : "?");
	}
	rc = bp_pack_cover(fs, p, t, cover, err);
	bp_pack_free(p);
	if (!rc && cover->missing_total) {
		kinds[0] = '\0';
		for (k = 0; k < BP_COVER_NR && used < sizeof(kinds) - 1; k++) {
			int n;

			if (!cover->missing[k])
				continue;
			n = snprintf(kinds + used, sizeof(kinds) - used, "%s%s %llu",
				     used ? ", " : "", bp_cover_kind_name(k),
				     (unsigned long long)cover->missing[k]);
			if (n > 0)
				used += (size_t)n;
		}
		rc = bp_err_set(err, BP_ET_PACK_CORRUPT,
				"%s: not written: the pack misses %llu blocks the trace read (%s) "
				"that its budget did not cut; 'bootpack verify --pack PACK --trace "
				"TRACE %s' lists them", o->output,
				(unsigned long long)cover->missing_total, kinds, fs->device_name);
	}
	if (!rc)
		rc = bp_pack_save(o->output, buf, len, err);
	free(buf);
	return rc;
}
