// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * misses.c --- what a boot read from the disk that the pack did not hold
 * (see misses.h): compared by physical position, split by kind, saved
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "misses.h"
#include "outfile.h"
#include "pages.h"


struct piece {
	uint64_t start, end;
	enum bp_mkind kind;
	const char *owner;
	size_t owner_len;
};

struct vec {
	void *v;
	size_t n, alloc, size;
};

static void *vec_push(struct vec *a)
{
	if (a->n == a->alloc) {
		size_t na = a->alloc ? 2 * a->alloc : 256;
		void *nv = realloc(a->v, na * a->size);

		if (!nv)
			return NULL;
		a->v = nv;
		a->alloc = na;
	}
	return (char *)a->v + a->size * a->n++;
}

static int cmp_span(const void *a, const void *b)
{
	const struct bp_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort and merge spans that overlap or touch; returns the new count. */
static size_t merge_spans(struct bp_span *s, size_t n)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	qsort(s, n, sizeof(*s), cmp_span);
	for (i = 1; i < n; i++) {
		if (s[i].start <= s[k].end) {
			if (s[i].end > s[k].end)
				s[k].end = s[i].end;
		} else {
			s[++k] = s[i];
		}
	}
	return k + 1;
}

/* The pack's ranges on the device, merged. */
static errcode_t pack_spans(const struct bp_pack *p, struct vec *cov)
{
	struct bp_pack_entry e;
	struct bp_pack_meta pm;
	struct bp_span *s;
	uint32_t i;

	for (i = 0; i < bp_pack_nmeta(p); i++) {
		if (bp_pack_meta(p, i, &pm) || !(s = vec_push(cov)))
			return ENOMEM;
		*s = (struct bp_span){ pm.offset, pm.offset + pm.length };
	}
	for (i = 0; i < bp_pack_nentries(p); i++) {
		if (bp_pack_entry(p, i, &e) || !(s = vec_push(cov)))
			return ENOMEM;
		*s = (struct bp_span){ e.phys, e.phys + e.length };
	}
	cov->n = merge_spans(cov->v, cov->n);
	return 0;
}

/* A directory's block run now, with the directory's path (dirnames()). */
struct dirrun {
	blk64_t start, count;
	char *path;
};

struct ctx {
	const struct bp_span *cov;
	size_t ncov;
	struct vec miss;
	struct bp_misses *m;
	const struct bp_mkmap *map;
	struct vec dirs;	/* struct dirrun, sorted by start */
	struct vec paths;	/* char *: the dirs' paths, to free */
	uint32_t bs;
	uint64_t page;		/* the system's page size */
};

static errcode_t add_miss(struct ctx *c, uint64_t start, uint64_t end, enum bp_mkind kind,
			  const char *owner, size_t owner_len)
{
	struct piece *p = vec_push(&c->miss);

	if (!p)
		return ENOMEM;
	*p = (struct piece){ start, end, kind, owner, owner_len };
	return 0;
}

struct dirwalk {
	struct vec *v;
	char *path;
	errcode_t rc;
};

static int dir_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		     int ref_offset, void *priv)
{
	struct dirwalk *w = priv;
	struct dirrun *r = w->v->n ? (struct dirrun *)w->v->v + w->v->n - 1 : NULL;

	(void)fs, (void)ref_blk, (void)ref_offset;
	if (blockcnt < 0)
		return 0;
	if (r && r->path == w->path && r->start + r->count == *blocknr) {
		r->count++;
		return 0;
	}
	r = vec_push(w->v);
	if (!r) {
		w->rc = ENOMEM;
		return BLOCK_ABORT;
	}
	*r = (struct dirrun){ *blocknr, 1, w->path };
	return 0;
}

static int cmp_dirrun(const void *a, const void *b)
{
	const struct dirrun *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The directories the boot read by owner (O dir records), by path, where
 * their blocks are now: a directory on no traced file's path is named too.
 * At most BP_MISSES_DIRS of them; the first run of each owns its path.
 */
#define BP_MISSES_DIRS 4096
static errcode_t dirnames(struct ctx *c, ext2_filsys fs, const struct bp_trace *t)
{
	size_t i, ndirs = 0;

	for (i = 0; i < t->nowned && ndirs < BP_MISSES_DIRS; i++) {
		const struct bp_trace_owned *o = &t->owned[i];
		struct ext2_inode in;
		struct dirwalk w = { &c->dirs, NULL, 0 };
		size_t first = c->dirs.n;

		if (o->kind != BP_OWN_DIR || (i && o[-1].kind == BP_OWN_DIR && o[-1].id == o->id &&
					      o[-1].gen == o->gen))
			continue;
		if (!o->id || o->id > fs->super->s_inodes_count ||
		    ext2fs_read_inode(fs, o->id, &in) || in.i_generation != o->gen ||
		    !LINUX_S_ISDIR(in.i_mode) || !in.i_links_count)
			continue;
		if (ext2fs_get_pathname(fs, o->id, 0, &w.path) || !w.path)
			continue;
		ndirs++;
		ext2fs_block_iterate3(fs, o->id, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY, NULL,
				      dir_block, &w);
		if (c->dirs.n == first) {
			ext2fs_free_mem(&w.path);
		} else {
			char **slot = vec_push(&c->paths);

			if (!slot) {
				ext2fs_free_mem(&w.path);
				return ENOMEM;
			}
			*slot = w.path;
		}
		if (w.rc)
			return w.rc;
	}
	if (c->dirs.n > 1)
		qsort(c->dirs.v, c->dirs.n, sizeof(struct dirrun), cmp_dirrun);
	return 0;
}

/* The path of the directory block b is now, or NULL. */
static const char *dirname_of(const struct ctx *c, blk64_t b)
{
	const struct dirrun *v = c->dirs.v;
	size_t lo = 0, hi = c->dirs.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && b - v[lo - 1].start < v[lo - 1].count ? v[lo - 1].path : NULL;
}

static void dirnames_free(struct ctx *c)
{
	char **v = c->paths.v;
	size_t i;

	for (i = 0; i < c->paths.n; i++)
		ext2fs_free_mem(&v[i]);
	free(c->paths.v);
	free(c->dirs.v);
}

/* The miss kind of an owner kind (tracefile.h); BP_MK_NR for none. */
static enum bp_mkind owner_mkind(uint32_t kind)
{
	switch (kind) {
	case BP_OWN_DIR:
		return BP_MK_DIR;
	case BP_OWN_TREE:
		return BP_MK_EXTENT;
	case BP_OWN_ITABLE:
		return BP_MK_ITABLE;
	case BP_OWN_SUPER:
	case BP_OWN_GDT:
	case BP_OWN_BBITMAP:
	case BP_OWN_IBITMAP:
		return BP_MK_GROUP;
	case BP_OWN_JOURNAL:
		return BP_MK_JOURNAL;
	}
	return BP_MK_NR;
}

/*
 * An uncovered piece of metadata: one piece per block, of its kind. The
 * owner's kind (bp_trace_meta_now()) decides it: a directory on no traced
 * path is a directory too; the map of the traced paths names it when it
 * can, and classifies the blocks with no owner.
 */
static errcode_t add_meta_miss(struct ctx *c, uint64_t start, uint64_t end, uint32_t own)
{
	enum bp_mkind ok = owner_mkind(own);
	errcode_t rc = 0;

	while (!rc && start < end) {
		uint64_t b = start / c->bs, next = (b + 1) * c->bs;
		const char *owner = NULL;
		size_t len = 0;
		enum bp_mkind k = c->map ? bp_mkmap_lookup(c->map, b, &owner, &len) : BP_MK_OTHER;

		if (k == BP_MK_DATA)
			k = BP_MK_OTHER;	/* file data through the device: not a file's read */
		if (ok != BP_MK_NR && ok != k) {
			k = ok;
			owner = NULL;	/* the map's name is another owner's */
			len = 0;
		}
		if (k == BP_MK_DIR && !owner && (owner = dirname_of(c, b)))
			len = strlen(owner);
		rc = add_miss(c, start, next < end ? next : end, k, owner, len);
		start = next;
	}
	return rc;
}

/*
 * One read of the boot, [start, end) on the device: metadata of owner kind
 * own (meta set) or path's data.
 */
static errcode_t one_read(struct ctx *c, uint64_t start, uint64_t end, int meta, uint32_t own,
			  const char *path)
{
	size_t lo = 0, hi = c->ncov;
	errcode_t rc = 0;

	/* the first span that ends after start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->cov[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (!rc && start < end) {
		uint64_t to;

		if (lo < c->ncov && c->cov[lo].start <= start) {
			to = c->cov[lo].end < end ? c->cov[lo].end : end;
			c->m->hit_bytes += to - start;
			lo++;
		} else {
			to = lo < c->ncov && c->cov[lo].start < end ? c->cov[lo].start : end;
			rc = meta ? add_meta_miss(c, start, to, own) :
				add_miss(c, start, to, BP_MK_DATA, path, strlen(path));
		}
		start = to;
	}
	return rc;
}

struct named {
	const char *path;
	size_t len;
	enum bp_mkind kind;
	uint64_t bytes;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int r = memcmp(x->path, y->path, n);

	if (r)
		return r;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

/* The largest misses by path: file data, a directory's blocks, a file's mapping. */
static errcode_t name_misses(struct ctx *c)
{
	const struct piece *p = c->miss.v;
	struct named *v = NULL;
	size_t i, n = 0, k;

	if (c->miss.n)
		v = malloc(c->miss.n * sizeof(*v));
	if (c->miss.n && !v)
		return ENOMEM;
	for (i = 0; i < c->miss.n; i++)
		if (p[i].owner)
			v[n++] = (struct named){ p[i].owner, p[i].owner_len, p[i].kind,
						 p[i].end - p[i].start };
	if (n > 1)	/* v is NULL when nothing missed: qsort wants an array */
		qsort(v, n, sizeof(*v), cmp_named);
	for (i = 0; i < n; i = k) {
		struct named s = v[i];
		struct bp_miss_name *slot;
		unsigned int j, small = 0;

		for (k = i + 1; k < n && cmp_named(&v[k], &s) == 0; k++)
			s.bytes += v[k].bytes;
		if (c->m->nnames < BP_MISSES_NAMES) {
			slot = &c->m->names[c->m->nnames++];
		} else {
			for (j = 1; j < BP_MISSES_NAMES; j++)
				if (c->m->names[j].bytes < c->m->names[small].bytes)
					small = j;
			if (c->m->names[small].bytes >= s.bytes)
				continue;
			slot = &c->m->names[small];
		}
		slot->kind = s.kind;
		slot->bytes = s.bytes;
		snprintf(slot->path, sizeof(slot->path), "%.*s", (int)s.len, s.path);
	}
	free(v);
	/* the largest first */
	for (i = 1; i < c->m->nnames; i++)
		for (k = i; k > 0 && c->m->names[k].bytes > c->m->names[k - 1].bytes; k--) {
			struct bp_miss_name t = c->m->names[k];

			c->m->names[k] = c->m->names[k - 1];
			c->m->names[k - 1] = t;
		}
	return 0;
}

static void count_runs(struct ctx *c)
{
	struct piece *p = c->miss.v;
	uint64_t last = 0, klast[BP_MK_NR] = { 0 }, pg = c->page;
	size_t i;
	int any = 0, kany[BP_MK_NR] = { 0 };

	if (c->miss.n > 1)
		qsort(p, c->miss.n, sizeof(*p), cmp_piece);
	for (i = 0; i < c->miss.n; i++) {
		struct bp_miss_count *k = &c->m->kind[p[i].kind];
		uint64_t ps = bp_page_down(p[i].start, pg), pe = bp_page_up(p[i].end, pg);

		k->bytes += p[i].end - p[i].start;
		c->m->miss_bytes += p[i].end - p[i].start;
		if (!kany[p[i].kind] || p[i].start > klast[p[i].kind])
			k->runs++;
		kany[p[i].kind] = 1;
		if (p[i].end > klast[p[i].kind])
			klast[p[i].kind] = p[i].end;
		if (!any || p[i].start > last) {
			c->m->miss_runs++;
		} else if (ps < bp_page_up(last, pg)) {
			ps = bp_page_up(last, pg);	/* a page counted already */
		}
		if (pe > ps)
			c->m->miss_pages += (pe - ps) / pg;
		any = 1;
		if (p[i].end > last)
			last = p[i].end;
	}
	/*
	 * The reader's requests (one per range of the pack at least, in whole
	 * pages: in the region a file's last page and the next file's first
	 * are one stream) and the misses.
	 */
	c->m->pack_runs = bp_page_runs(c->cov, c->ncov, pg);
	c->m->read_runs = c->m->pack_runs + c->m->miss_runs;
}

errcode_t bp_misses_compute(ext2_filsys fs, const struct bp_trace *t, const struct bp_pack *p,
			    uint64_t resident, struct bp_misses *m, struct bp_err *err)
{
	struct ctx c = { .m = m, .bs = fs->blocksize, .page = bp_page_size() };
	struct bp_mkmap *map = NULL;
	struct bp_trace_meta *now = NULL;
	size_t i, j, nnow = 0;
	errcode_t rc;

	memset(m, 0, sizeof(*m));
	m->when = time(NULL);
	m->events = t->hdr.events_added;
	m->lost = t->hdr.events_lost;
	c.miss.size = sizeof(struct piece);
	c.dirs.size = sizeof(struct dirrun);
	c.paths.size = sizeof(char *);
	{
		struct vec cov = { .size = sizeof(struct bp_span) };

		rc = pack_spans(p, &cov);
		c.cov = cov.v;
		c.ncov = cov.n;
		if (rc)
			goto out;
	}
	/*
	 * The boot's metadata where it is now (its owners' blocks: a version 2
	 * trace's O records are in no M line), as the boot read it unless a
	 * relayout ran since. Classified only when the boot read metadata:
	 * the map walks the traced paths.
	 */
	if ((t->nmeta || t->nowned) && (rc = bp_trace_meta_now(fs, t, &now, &nnow, NULL, err)))
		goto out_err;
	if (nnow && (rc = bp_mkmap_build(fs, t, &map, err)))
		goto out_err;
	c.map = map;
	if (nnow && (rc = dirnames(&c, fs, t)))
		goto out;
	for (i = 0; !rc && i < nnow; i++)
		rc = one_read(&c, now[i].offset, now[i].offset + now[i].length, 1, now[i].kind,
			      NULL);
	for (i = 0; !rc && i < t->nfiles; i++) {
		const struct bp_trace_file *f = &t->files[i];

		for (j = 0; !rc && j < f->nranges; j++) {
			const struct bp_trace_range *r = &f->ranges[j];

			if (r->phys == BP_PHYS_NONE)
				continue;	/* a hole: nothing read from the disk */
			rc = one_read(&c, r->phys, r->phys + r->length, 0, BP_OWN_NONE, f->path);
		}
	}
	if (!rc)
		rc = name_misses(&c);
	if (!rc) {
		count_runs(&c);
		/* the reader's own reads are not recorded: what it left resident counts */
		if (resident > m->hit_bytes)
			m->hit_bytes = resident;
		m->read_bytes = m->hit_bytes + m->miss_bytes;
		m->hit_pct = m->read_bytes ? (unsigned int)(m->hit_bytes * 100 / m->read_bytes) : 100;
	}
out:
	if (rc)
		bp_err_set(err, rc, "while counting the boot's misses: %s", strerror((int)rc));
out_err:
	bp_mkmap_free(map);
	dirnames_free(&c);
	free(now);
	free((void *)c.cov);
	free(c.miss.v);
	return rc;
}

/* ---- BP_STATEDIR/misses ------------------------------------------------------ */

static void misses_fill(FILE *fp, const void *priv)
{
	const struct bp_misses *m = priv;
	char esc[3 * sizeof(m->names[0].path) + 1];
	unsigned int i;

	fprintf(fp, "# bootpack: what the last boot read that the pack did not hold; "
		"see bootpack-status(8)\n"
		"time=%lld control=%d events=%" PRIu64 " lost=%" PRIu64 "\n"
		"read_bytes=%" PRIu64 " read_runs=%" PRIu64 " pack_runs=%" PRIu64 " hit_bytes=%" PRIu64
		" hit=%u\n"
		"miss_bytes=%" PRIu64 " miss_pages=%" PRIu64 " miss_runs=%" PRIu64 "\n",
		(long long)m->when, m->control, m->events, m->lost, m->read_bytes, m->read_runs,
		m->pack_runs, m->hit_bytes, m->hit_pct, m->miss_bytes, m->miss_pages, m->miss_runs);
	for (i = 0; i < BP_MK_NR; i++)
		fprintf(fp, "kind=%s bytes=%" PRIu64 " runs=%" PRIu64 "\n",
			bp_mkind_name((enum bp_mkind)i), m->kind[i].bytes, m->kind[i].runs);
	for (i = 0; i < m->nnames; i++) {
		bp_trace_escape(m->names[i].path, esc);
		fprintf(fp, "name=%s bytes=%" PRIu64 " path=%s\n", bp_mkind_name(m->names[i].kind),
			m->names[i].bytes, esc);
	}
}

errcode_t bp_misses_save(const char *root, const struct bp_misses *m, struct bp_err *err)
{
	char path[PATH_MAX];

	bp_loop_path(root, BP_STATEDIR "/misses", path, sizeof(path));
	return bp_statefile_write(path, misses_fill, m, err);
}

static int kind_parse(const char *s, size_t len)
{
	int i;

	for (i = 0; i < BP_MK_NR; i++)
		if (strlen(bp_mkind_name((enum bp_mkind)i)) == len &&
		    !strncmp(s, bp_mkind_name((enum bp_mkind)i), len))
			return i;
	return -1;
}

/* "key=N" anywhere in line, as u64; 0 if absent. */
static uint64_t num(const char *line, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "%s=", key);
	for (p = line; (p = strstr(p, pat)); p++)
		if (p == line || p[-1] == ' ')
			return strtoull(p + strlen(pat), NULL, 10);
	return 0;
}

static void unescape(const char *in, char *out, size_t len)
{
	size_t n = 0;

	while (*in && *in != '\n' && n + 1 < len) {
		unsigned int x;

		if (in[0] == '%' && sscanf(in + 1, "%2x", &x) == 1) {
			out[n++] = (char)x;
			in += 3;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
}

errcode_t bp_misses_load(const char *root, struct bp_misses *m, struct bp_err *err)
{
	char path[PATH_MAX], line[2048];
	FILE *fp;

	memset(m, 0, sizeof(*m));
	bp_loop_path(root, BP_STATEDIR "/misses", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT ? ENOENT : bp_err_set(err, errno, "%s: %s", path,
							      strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		const char *sp;
		int k;

		if (!strncmp(line, "time=", 5)) {
			m->when = (time_t)num(line, "time");
			m->control = (int)num(line, "control");
			m->events = num(line, "events");
			m->lost = num(line, "lost");
		} else if (!strncmp(line, "read_bytes=", 11)) {
			m->read_bytes = num(line, "read_bytes");
			m->read_runs = num(line, "read_runs");
			m->pack_runs = num(line, "pack_runs");
			m->hit_bytes = num(line, "hit_bytes");
			m->hit_pct = (unsigned int)num(line, "hit");
		} else if (!strncmp(line, "miss_bytes=", 11)) {
			m->miss_bytes = num(line, "miss_bytes");
			m->miss_pages = num(line, "miss_pages");
			m->miss_runs = num(line, "miss_runs");
		} else if (!strncmp(line, "kind=", 5) && (sp = strchr(line, ' ')) &&
			   (k = kind_parse(line + 5, (size_t)(sp - line - 5))) >= 0) {
			m->kind[k].bytes = num(line, "bytes");
			m->kind[k].runs = num(line, "runs");
		} else if (!strncmp(line, "name=", 5) && (sp = strchr(line, ' ')) &&
			   (k = kind_parse(line + 5, (size_t)(sp - line - 5))) >= 0 &&
			   m->nnames < BP_MISSES_NAMES && (sp = strstr(line, " path="))) {
			struct bp_miss_name *n = &m->names[m->nnames++];

			n->kind = (enum bp_mkind)k;
			n->bytes = num(line, "bytes");
			unescape(sp + 6, n->path, sizeof(n->path));
		}
	}
	fclose(fp);
	return 0;
}
