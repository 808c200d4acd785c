// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pack-build.c --- trace + filesystem -> pack: re-resolve, budget, sort
 *
 * The steps in order; each file's resolution and mapping and the budget's
 * admission of each range: pack-map.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "fsident.h"
#include "pack-build.h"
#include "pack-meta.h"
#include "pack-build-int.h"

/* A metadata or file range in first-access order. */
struct item {
	uint64_t first_ns;
	int is_meta;
	size_t idx;			/* into t->meta or the refs */
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

uint32_t bp_pack_system_page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 && (uint64_t)pg <= BP_PACK_PAGE_SIZE_MAX ? (uint32_t)pg :
								 BP_PACK_PAGE_SIZE_DEFAULT;
}

/*
 * The trace's metadata where it is now: the blocks named by owner looked up
 * on fs (bp_trace_meta_now(): after a relayout, where the relayout put
 * them), the raw ones moved along what a relayout just moved
 * (bp_meta_live()). *ret malloc'd, not sorted.
 */
static errcode_t trace_meta(ext2_filsys fs, const struct bp_trace *t, const struct bp_pack_opts *o,
			    struct bp_trace_meta **ret, size_t *nret, struct bp_pack_report *rep,
			    struct bp_err *err)
{
	struct bp_trace_meta *now = NULL, *raw = NULL, *live = NULL;
	size_t nnow = 0, nraw = 0, nlive = 0, nown = 0, i;
	struct bp_meta_now_stats st;
	errcode_t rc;

	*ret = NULL;
	*nret = 0;
	rc = bp_trace_meta_now(fs, t, &now, &nnow, &st, err);
	if (rc)
		return rc;
	for (i = 0; i < BP_OWN_NR; i++) {
		if (i != BP_OWN_NONE && i != BP_OWN_JOURNAL)
			rep->meta_owned_blocks += st.found[i];
		rep->meta_gone_blocks += st.gone[i];
	}
	/* raw blocks first (to move along), then the located ones, in place */
	raw = malloc((nnow ? nnow : 1) * sizeof(*raw));
	if (!raw) {
		free(now);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	for (i = 0; i < nnow; i++)
		if (now[i].kind == BP_OWN_NONE)
			raw[nraw++] = now[i];
	rc = bp_meta_live(fs, raw, nraw, o->moved_from, o->nmoved_from, &live, &nlive,
			  &rep->meta_moved_blocks, &rep->meta_stale_blocks);
	free(raw);
	if (rc) {
		free(now);
		return bp_err_set(err, rc, "out of memory");
	}
	/*
	 * The journal is left out: what a boot reads of it is the log jbd2
	 * writes (or a replay, once); it changes with every commit.
	 */
	for (i = 0; i < nnow; i++)
		nown += now[i].kind != BP_OWN_NONE && now[i].kind != BP_OWN_JOURNAL;
	if (nown) {
		struct bp_trace_meta *v = realloc(live, (nlive + nown) * sizeof(*v));

		if (!v) {
			free(live);
			free(now);
			return bp_err_set(err, ENOMEM, "out of memory");
		}
		live = v;
		for (i = 0; i < nnow; i++)
			if (now[i].kind != BP_OWN_NONE && now[i].kind != BP_OWN_JOURNAL)
				live[nlive++] = now[i];
	}
	free(now);
	*ret = live;
	*nret = nlive;
	return 0;
}

/* One build under budget (0: none); bound goes into the pack's compat bits. */
static errcode_t build_once(ext2_filsys fs, const struct bp_trace *t, const struct bp_pack_opts *o,
			    uint64_t budget, enum bp_budget_bound bound, void **ret_buf,
			    size_t *ret_len, struct bp_pack_report *rep, struct bp_err *err)
{
	struct builder b = { .fs = fs, .t = t, .budget = budget };
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
	memset(rep, 0, sizeof(*rep));
	rep->budget = budget;
	b.rep = rep;
	rep->files_traced = t->nfiles;
	b.page = o->page_size ? o->page_size : bp_pack_system_page_size();
	if (b.page < BP_PACK_PAGE_SIZE_MIN || b.page > BP_PACK_PAGE_SIZE_MAX ||
	    (b.page & (b.page - 1)))
		return bp_err_set(err, EINVAL, "bad page size %llu", (unsigned long long)b.page);
	rep->page_size = b.page;

	rc = bp_fs_check_ident(fs, fs->device_name, "trace", t->hdr.uuid, t->hdr.block_size, err);
	if (rc)
		return rc;

	b.fst = calloc(t->nfiles ? t->nfiles : 1, sizeof(*b.fst));
	if (!b.fst) {
		rc = bp_err_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < t->nfiles; i++) {
		rc = pb_resolve_file(&b, &t->files[i], &b.fst[i]);
		if (rc) {
			bp_err_lib(err, rc, "while looking up %s", t->files[i].path);
			goto out;
		}
		if (b.fst[i].skip < 0 && b.fst[i].changed)
			rep->files_changed++;
	}
	rc = pb_find_links(&b, t->nfiles);
	if (rc) {
		bp_err_set(err, rc, "out of memory");
		goto out;
	}

	/*
	 * Metadata: the trace's ranges and/or what the files need now (files
	 * are in first-access order, so each block gets its earliest time).
	 */
	if (meta_src & BP_PACK_META_TRACE) {
		rc = trace_meta(fs, t, o, &live, &nlive, rep, err);
		if (rc)
			goto out;
	}
	for (i = 0; i < nlive; i++) {
		rc = bp_meta_mark(&ml, fs, live[i].offset, live[i].length);
		if (rc) {
			bp_err_set(err, rc, "out of memory");
			goto out;
		}
	}
	/*
	 * A directory the trace names by owner, whole: relayout lays it out
	 * whole in its region (relayout/head.c), and the region is read as
	 * the one stream relayout made, not with holes where the boot did not
	 * read a block of it (an htree lookup reads one of several). Found on
	 * the filesystem: with FILES.
	 */
	if (meta_src & BP_PACK_META_FILES) {
		for (i = 0; i < t->nowned; i++) {
			const struct bp_trace_owned *ow = &t->owned[i];
			uint64_t ns = ow->first_ns;
			size_t k;

			if (ow->kind != BP_OWN_DIR ||
			    (i && ow[-1].kind == BP_OWN_DIR && ow[-1].id == ow->id &&
			     ow[-1].gen == ow->gen))
				continue;
			for (k = i + 1; k < t->nowned && t->owned[k].kind == BP_OWN_DIR &&
			     t->owned[k].id == ow->id && t->owned[k].gen == ow->gen; k++)
				if (t->owned[k].first_ns < ns)
					ns = t->owned[k].first_ns;
			rc = bp_meta_add_dir(&ml, fs, ow->id, ow->gen, ns);
			if (rc) {
				bp_err_lib(err, rc, "while finding the blocks of directory inode %u",
					   ow->id);
				goto out;
			}
		}
	}
	if (meta_src & BP_PACK_META_FILES) {
		for (i = 0; i < t->nfiles; i++) {
			if (b.fst[i].skip >= 0 || b.fst[i].root != i)
				continue;
			rc = bp_meta_add_file(&ml, fs, b.fst[i].path, b.fst[i].ino,
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
			rc = pb_add_meta(&b, &tmeta[items[i].idx]);
			if (rc)
				goto out_rc;
			continue;
		}
		r = &refs[items[i].idx];
		file = (size_t)(r->file - t->files);
		if (b.fst[file].skip >= 0)
			continue;
		file = b.fst[file].root;
		rc = pb_map_range(&b, file, r->range->offset, r->range->length);
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
			paths[npaths++] = s->path;
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
	d.budget = budget;
	d.cut_bytes = rep->cut_bytes;
	d.feature_compat = BP_PACK_COMPAT_MTIME_NSEC |
			   (o->compat & ~(uint32_t)BP_PACK_COMPAT_BUDGET_MASK) |
			   ((uint32_t)bound << BP_PACK_COMPAT_BUDGET_SHIFT);
	d.page_size = (uint32_t)b.page;
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
	for (i = 0; b.fst && i < t->nfiles; i++) {
		free(b.fst[i].done);
		free(b.fst[i].path);
		bp_ext2_map_free(&b.fst[i].map);
	}
	free(b.fst);
	free(allmeta);
	bp_meta_list_free(&ml);
	return rc;
}

errcode_t bp_pack_build(ext2_filsys fs, const struct bp_trace *t, const struct bp_pack_opts *o,
			void **ret_buf, size_t *ret_len, struct bp_pack_report *rep,
			struct bp_err *err)
{
	struct bp_pack_report local;
	struct bp_budget_in in;
	struct bp_budget_out res;
	errcode_t rc;

	if (!rep)
		rep = &local;
	if (!o->budget_auto) {
		rc = build_once(fs, t, o, o->budget, BP_BUDGET_GIVEN, ret_buf, ret_len, rep, err);
		memset(&rep->budget_in, 0, sizeof(rep->budget_in));
		memset(&rep->budget_auto, 0, sizeof(rep->budget_auto));
		return rc;
	}
	/* What the boot uses: everything, uncut; then the rule; then the cut, if any. */
	rc = build_once(fs, t, o, 0, BP_BUDGET_TRACED, ret_buf, ret_len, rep, err);
	if (rc)
		return rc;
	in = *o->budget_auto;
	in.traced_bytes = rep->meta_bytes + rep->file_bytes;
	if (!in.boot_ns)
		in.boot_ns = bp_pack_budget_boot_ns(t);
	rc = bp_pack_budget(&in, &res);
	if (rc) {
		free(*ret_buf);
		*ret_buf = NULL;
		return bp_err_set(err, rc, "no automatic budget: the memory of the machine "
				  "is unknown");
	}
	/* again, so that the pack records the budget and its term (nothing cut if traced) */
	free(*ret_buf);
	rc = build_once(fs, t, o, res.budget, res.bound, ret_buf, ret_len, rep, err);
	rep->budget_in = in;
	rep->budget_auto = res;
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
