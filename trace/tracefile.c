// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefile.c --- the bootpack trace format (tracefile.h): the object, writing, views
 *
 * Loading, with every check of the format: tracefile-parse.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp_et.h"
#include "outfile.h"
#include "tracefile.h"

struct bp_trace *bp_trace_new(void)
{
	struct bp_trace *t = calloc(1, sizeof(*t));

	if (t)
		t->version = BP_TRACE_VERSION;
	return t;
}

void bp_trace_free(struct bp_trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nfiles; i++) {
		free(t->files[i].path);
		free(t->files[i].ranges);
	}
	free(t->files);
	free(t->meta);
	free(t->owned);
	free(t->hdr.device);
	free(t->hdr.kernel);
	free(t->hdr.source);
	free(t);
}

static const char *const own_names[BP_OWN_NR] = {
	"raw", "dir", "tree", "itable", "super", "gdt", "bbitmap", "ibitmap", "journal",
};

const char *bp_own_kind_name(uint32_t kind)
{
	return kind < BP_OWN_NR ? own_names[kind] : "?";
}

void bp_trace_escape(const char *in, char *buf)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;
	char *o = buf;

	for (p = (const unsigned char *)in; *p; p++) {
		if (*p == '%' || *p <= 0x20 || *p >= 0x7f) {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		} else {
			*o++ = (char)*p;
		}
	}
	*o = '\0';
}

uint64_t bp_trace_records(const struct bp_trace *t)
{
	uint64_t n = t->nowned + t->nfiles;
	size_t i;

	for (i = 0; i < t->nmeta; i++)
		n += t->meta[i].kind == BP_OWN_NONE;
	for (i = 0; i < t->nfiles; i++)
		n += t->files[i].nranges;
	return n;
}

/* An empty value is written as "-" (a path or release never is "-"). */
static void put_escaped(FILE *fp, const char *s, char *buf)
{
	if (!s || !*s) {
		fputc('-', fp);
		return;
	}
	bp_trace_escape(s, buf);
	fputs(buf, fp);
}

static int write_trace(FILE *fp, const struct bp_trace *t)
{
	static char buf[3 * BP_TRACE_PATH_MAX + 1];
	const struct bp_trace_hdr *h = &t->hdr;
	size_t i, j;

	/* a version 1 trace (loaded, never converted) has no O line: written as it was */
	fprintf(fp, "bootpack-trace %d\n", t->nowned || t->version != 1 ? BP_TRACE_VERSION : 1);
	fprintf(fp, "uuid %s\n", h->uuid);
	fprintf(fp, "block-size %" PRIu32 "\n", h->block_size);
	fputs("device ", fp);
	put_escaped(fp, h->device ? h->device : "", buf);
	fprintf(fp, "\ndev %" PRIu32 ":%" PRIu32 "\n", h->dev_major, h->dev_minor);
	fputs("kernel ", fp);
	put_escaped(fp, h->kernel ? h->kernel : "", buf);
	fprintf(fp, "\nsource %s\n", h->source ? h->source : "command");
	fprintf(fp, "created %" PRId64 "\n", h->created < 0 ? (int64_t)0 : h->created);
	fprintf(fp, "events %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", h->events_added,
		h->events_accessed, h->events_lost);
	for (i = 0; i < t->nowned; i++) {
		const struct bp_trace_owned *o = &t->owned[i];

		fprintf(fp, "O %s %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64,
			bp_own_kind_name(o->kind), o->id, o->gen, o->index, o->count, o->first_ns);
		if (o->has_at)
			fprintf(fp, " at=%" PRIu64, o->at);
		fputc('\n', fp);
	}
	for (i = 0; i < t->nmeta; i++)
		if (t->meta[i].kind == BP_OWN_NONE)
			fprintf(fp, "M %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", t->meta[i].offset,
			t->meta[i].length, t->meta[i].first_ns);
	for (i = 0; i < t->nfiles; i++) {
		const struct bp_trace_file *f = &t->files[i];

		fprintf(fp, "F %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRId64 " ", f->ino,
			f->generation, f->size, f->mtime);
		put_escaped(fp, f->path, buf);
		fputc('\n', fp);
		for (j = 0; j < f->nranges; j++) {
			const struct bp_trace_range *r = &f->ranges[j];

			fprintf(fp, "R %" PRIu64 " %" PRIu64 " %" PRIu64 " ", r->offset, r->length,
				r->first_ns);
			if (r->phys == BP_PHYS_NONE)
				fputs("-\n", fp);
			else
				fprintf(fp, "%" PRIu64 "\n", r->phys);
		}
	}
	fprintf(fp, "end %" PRIu64 "\n", bp_trace_records(t));
	return ferror(fp) ? -1 : 0;
}

errcode_t bp_trace_save(const struct bp_trace *t, const char *path, struct bp_err *err)
{
	struct bp_outfile of;
	errcode_t rc;
	FILE *fp;
	int fd;

	if (!t->hdr.uuid[0] || !t->hdr.block_size)
		return bp_err_set(err, EINVAL, "%s: trace has no UUID or block size", path);
	rc = bp_outfile_open(&of, "the trace", path, err);	/* include/outfile.h */
	if (rc)
		return rc;
	fd = dup(of.fd);
	fp = fd < 0 ? NULL : fdopen(fd, "w");
	if (!fp) {
		rc = bp_err_set(err, errno, "%s: %s", of.tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		bp_outfile_abort(&of);
		return rc;
	}
	errno = 0;
	if (write_trace(fp, t) < 0 || fflush(fp) != 0) {
		rc = bp_err_set(err, errno ? errno : EIO, "%s: write failed: %s", path,
				strerror(errno ? errno : EIO));
		fclose(fp);
		bp_outfile_abort(&of);
		return rc;
	}
	if (fclose(fp) != 0) {
		rc = bp_err_set(err, errno, "%s: write failed: %s", path, strerror(errno));
		bp_outfile_abort(&of);
		return rc;
	}
	return bp_outfile_commit(&of, err);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct bp_trace_ref *x = a, *y = b;

	if (x->range->first_ns != y->range->first_ns)
		return x->range->first_ns < y->range->first_ns ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->range->offset < y->range->offset ? -1 : x->range->offset > y->range->offset;
}

errcode_t bp_trace_ranges_by_time(const struct bp_trace *t, struct bp_trace_ref **ret,
				  size_t *count)
{
	struct bp_trace_ref *v;
	size_t i, j, n = 0;

	for (i = 0; i < t->nfiles; i++)
		n += t->files[i].nranges;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return ENOMEM;
	n = 0;
	for (i = 0; i < t->nfiles; i++)
		for (j = 0; j < t->files[i].nranges; j++) {
			v[n].file = &t->files[i];
			v[n].range = &t->files[i].ranges[j];
			n++;
		}
	qsort(v, n, sizeof(*v), cmp_ref);
	*ret = v;
	*count = n;
	return 0;
}
