// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stream.c --- the boot's read stream, from a trace, as physical reads
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "c.h"
#include "contig.h"
#include "ext2file.h"
#include "stream.h"

struct builder {
	struct bp_stream *s;
	size_t cap;
};

static errcode_t push(struct builder *b, uint64_t off, uint64_t len)
{
	struct bp_stream *s = b->s;

	if (!len)
		return 0;
	if (s->n && s->ios[s->n - 1].offset + s->ios[s->n - 1].length == off) {
		s->ios[s->n - 1].length += len;
		return 0;
	}
	if (bp_array_reserve((void **)&s->ios, &b->cap, s->n, sizeof(*s->ios), 256))
		return ENOMEM;
	s->ios[s->n].offset = off;
	s->ios[s->n].length = len;
	s->ios[s->n].type = BP_IO_READ;
	s->n++;
	return 0;
}

/* Map [off, off+len) of the file now: its runs on disk, holes and unwritten extents left out. */
static errcode_t push_mapped(struct builder *b, uint64_t bs, const struct bp_ext2_map *m,
			     uint64_t off, uint64_t len)
{
	uint64_t lblk, last;
	errcode_t rc;

	if (!len)
		return 0;
	last = (off + len - 1) / bs;
	for (lblk = off / bs; lblk <= last;) {
		uint64_t pblk, n = MIN(bp_ext2_map_find(m, lblk, &pblk), last - lblk + 1);

		if (pblk) {
			rc = push(b, pblk * bs, n * bs);
			if (rc)
				return rc;
		}
		lblk += n;
	}
	return 0;
}

static errcode_t push_range(struct builder *b, const struct bp_ext2_map *m, uint32_t bs,
			    const struct bp_trace_file *f, const struct bp_trace_range *r)
{
	/*
	 * The disk reads whole blocks: a range ending inside a block costs the
	 * block; pages past the last block of the file are not on disk.
	 */
	uint64_t eof = (f->size + bs - 1) / bs * bs;
	uint64_t end = MIN((r->offset + r->length + bs - 1) / bs * bs, eof);
	uint64_t len = r->offset >= end ? 0 : end - r->offset;

	if (!m) {
		if (r->phys == BP_PHYS_NONE)
			return 0;
		return push(b, r->phys, len);
	}
	return push_mapped(b, bs, m, r->offset, len);
}

errcode_t bp_stream_build(const struct bp_trace *t, ext2_filsys fs, struct bp_stream *s,
			  struct bp_err *err)
{
	struct bp_trace_ref *refs = NULL;
	struct builder b = { .s = s };
	const struct bp_trace_file *cur = NULL;
	struct bp_contig c;
	struct ext2_inode_large inode;
	struct bp_ext2_map map = { 0 };
	struct bp_trace_meta *meta = NULL;
	int cur_ok = 0;
	size_t nrefs = 0, i, m = 0, nmeta = 0;
	errcode_t rc;

	memset(s, 0, sizeof(*s));
	/* the metadata as traced (M ranges, O records' at=) or where its owners are now */
	if (fs) {
		rc = bp_trace_meta_now(fs, t, &meta, &nmeta, NULL, err);
		if (rc)
			return rc;
	} else if ((rc = bp_trace_meta_traced(t, &meta, &nmeta, NULL))) {
		return bp_err_lib(err, rc, "while listing the traced metadata");
	}
	rc = bp_trace_ranges_by_time(t, &refs, &nrefs);
	if (rc) {
		free(meta);
		return bp_err_lib(err, rc, "while ordering the trace");
	}

	for (i = 0; i <= nrefs; i++) {
		const struct bp_trace_ref *ref = i < nrefs ? &refs[i] : NULL;

		/* Metadata first touched before this range goes first. */
		while (m < nmeta && (!ref || meta[m].first_ns <= ref->range->first_ns)) {
			rc = push(&b, meta[m].offset, meta[m].length);
			if (rc)
				goto fail;
			s->meta_bytes += meta[m].length;
			m++;
		}
		if (!ref)
			break;
		if (fs && ref->file != cur) {
			struct bp_file_id then = bp_trace_file_id(ref->file);

			cur = ref->file;
			/* the rule of fileid.h; a file that changed since the trace is left out */
			cur_ok = bp_ext2_file_unchanged(fs, &then, 0, &inode);
			if (cur_ok) {
				rc = bp_ext2_map_load(fs, cur->ino, &inode, &map);
				if (rc)
					goto fail;
			} else {
				s->stale_files++;
			}
		}
		if (fs && !cur_ok)
			continue;
		rc = push_range(&b, fs ? &map : NULL, t->hdr.block_size, ref->file, ref->range);
		if (rc)
			goto fail;
	}
	bp_contig_init(&c, t->hdr.block_size);
	for (i = 0; i < s->n; i++) {
		s->file_bytes += s->ios[i].length;
		bp_contig_add(&c, s->ios[i].offset, s->ios[i].length);
	}
	s->discontig = c.discontig;
	s->file_bytes -= s->meta_bytes;
	bp_ext2_map_free(&map);
	free(refs);
	free(meta);
	return 0;
fail:
	bp_ext2_map_free(&map);
	free(refs);
	free(meta);
	bp_stream_free(s);
	return bp_err_lib(err, rc, "while mapping the trace's ranges");
}

void bp_stream_free(struct bp_stream *s)
{
	free(s->ios);
	memset(s, 0, sizeof(*s));
}
