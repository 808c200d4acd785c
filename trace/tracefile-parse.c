// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefile-parse.c --- loading a bootpack trace file (tracefile.h): the checked parser
 *
 * Every line is split, every field checked, every count bounded before it
 * allocates; a file that breaks a rule of the format is refused with
 * BP_ET_TRACE_CORRUPT naming the line. Writing: tracefile.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "bp_et.h"
#include "tracefile.h"

/* Limits on what a trace file may make us allocate. */
#define BP_TRACE_MAX_RECORDS (64ULL << 20)
#define BP_TRACE_LINE_MAX (3 * BP_TRACE_PATH_MAX + 256)

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescape in place; -1 on a bad escape or a NUL byte. */
static int unescape(char *s)
{
	char *o = s;
	int hi, lo;

	for (; *s; s++) {
		if (*s != '%') {
			*o++ = *s;
			continue;
		}
		hi = hexval((unsigned char)s[1]);
		lo = hi < 0 ? -1 : hexval((unsigned char)s[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return -1;
		*o++ = (char)(hi << 4 | lo);
		s += 2;
	}
	*o = '\0';
	return 0;
}

struct loader {
	const char *path;
	unsigned long line;
	struct bp_err *err;
	char *fields[8];
	int nfields;
	int version;
};

static errcode_t corrupt(struct loader *l, const char *what)
{
	return bp_err_set(l->err, BP_ET_TRACE_CORRUPT, "%s:%lu: %s", l->path, l->line, what);
}

/* Split on single spaces; returns the number of fields or -1 if more than max. */
static int split(char *s, char **fields, int max)
{
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		fields[n++] = s;
		s = strchr(s, ' ');
		if (!s)
			return n;
		*s++ = '\0';
	}
}

static int num(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	if (s[0] == '0' && s[1])
		return -1;	/* no leading zeros, no hex: one spelling per value */
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int valid_uuid(const char *s)
{
	int i;

	if (strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) {
			return 0;
		}
	}
	return 1;
}

static errcode_t dup_field(struct loader *l, char **dst, char *value, const char *key)
{
	char msg[64];

	if (*dst) {
		snprintf(msg, sizeof(msg), "'%s' given twice", key);
		return corrupt(l, msg);
	}
	if (unescape(value) < 0)
		return corrupt(l, "bad %XX escape");
	if (strcmp(value, "-") == 0)
		value[0] = '\0';	/* unknown */
	*dst = strdup(value);
	return *dst ? 0 : bp_err_set(l->err, ENOMEM, "out of memory");
}

enum {
	SEEN_UUID = 1 << 0,
	SEEN_BS = 1 << 1,
	SEEN_DEV = 1 << 2,
	SEEN_CREATED = 1 << 3,
	SEEN_EVENTS = 1 << 4,
};

static errcode_t parse_header(struct loader *l, struct bp_trace *t, unsigned int *seen)
{
	char **f = l->fields;
	const char *key = f[0];
	uint64_t a, b, c;

	if (strcmp(key, "uuid") == 0 && l->nfields == 2) {
		if (*seen & SEEN_UUID)
			return corrupt(l, "'uuid' given twice");
		if (!valid_uuid(f[1]))
			return corrupt(l, "bad UUID (expected lower-case xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
		memcpy(t->hdr.uuid, f[1], 37);
		*seen |= SEEN_UUID;
	} else if (strcmp(key, "block-size") == 0 && l->nfields == 2) {
		if (*seen & SEEN_BS)
			return corrupt(l, "'block-size' given twice");
		if (num(f[1], &a) < 0 || a < 512 || a > 65536 || (a & (a - 1)))
			return corrupt(l, "bad block size (a power of two from 512 to 65536)");
		t->hdr.block_size = (uint32_t)a;
		*seen |= SEEN_BS;
	} else if (strcmp(key, "device") == 0 && l->nfields == 2) {
		return dup_field(l, &t->hdr.device, f[1], key);
	} else if (strcmp(key, "kernel") == 0 && l->nfields == 2) {
		return dup_field(l, &t->hdr.kernel, f[1], key);
	} else if (strcmp(key, "source") == 0 && l->nfields == 2) {
		if (strcmp(f[1], "command") && strcmp(f[1], "boot") && strcmp(f[1], "import") &&
		    strcmp(f[1], "merge"))
			return corrupt(l, "bad source (command, boot, import or merge)");
		return dup_field(l, &t->hdr.source, f[1], key);
	} else if (strcmp(key, "dev") == 0 && l->nfields == 2) {
		char *colon = strchr(f[1], ':');

		if (*seen & SEEN_DEV)
			return corrupt(l, "'dev' given twice");
		if (!colon)
			return corrupt(l, "bad dev (expected MAJOR:MINOR)");
		*colon = '\0';
		if (num(f[1], &a) < 0 || num(colon + 1, &b) < 0 || a > 0xfff || b > 0xfffff)
			return corrupt(l, "bad dev (expected MAJOR:MINOR)");
		t->hdr.dev_major = (uint32_t)a;
		t->hdr.dev_minor = (uint32_t)b;
		*seen |= SEEN_DEV;
	} else if (strcmp(key, "created") == 0 && l->nfields == 2) {
		if (*seen & SEEN_CREATED)
			return corrupt(l, "'created' given twice");
		if (num(f[1], &a) < 0 || a > INT64_MAX)
			return corrupt(l, "bad creation time");
		t->hdr.created = (int64_t)a;
		*seen |= SEEN_CREATED;
	} else if (strcmp(key, "events") == 0 && l->nfields == 4) {
		if (*seen & SEEN_EVENTS)
			return corrupt(l, "'events' given twice");
		if (num(f[1], &a) < 0 || num(f[2], &b) < 0 || num(f[3], &c) < 0)
			return corrupt(l, "bad event counts");
		t->hdr.events_added = a;
		t->hdr.events_accessed = b;
		t->hdr.events_lost = c;
		*seen |= SEEN_EVENTS;
	} else {
		char msg[128];

		snprintf(msg, sizeof(msg), "unknown or malformed header line '%.40s'", key);
		return corrupt(l, msg);
	}
	return 0;
}

static int cmp_file_ino(const void *a, const void *b)
{
	const struct bp_trace_file *x = *(const struct bp_trace_file *const *)a;
	const struct bp_trace_file *y = *(const struct bp_trace_file *const *)b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_file_time(const void *a, const void *b)
{
	const struct bp_trace_file *x = a, *y = b;

	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Checks that need the whole file: one F per inode, files in time order. */
static errcode_t check_files(struct bp_trace *t, const char *path, struct bp_err *err)
{
	const struct bp_trace_file **v;
	size_t i;

	if (t->nfiles < 2)
		return 0;
	v = malloc(t->nfiles * sizeof(*v));
	if (!v)
		return bp_err_set(err, ENOMEM, "out of memory");
	for (i = 0; i < t->nfiles; i++)
		v[i] = &t->files[i];
	qsort(v, t->nfiles, sizeof(*v), cmp_file_ino);
	for (i = 1; i < t->nfiles; i++) {
		if (v[i]->ino == v[i - 1]->ino) {
			uint32_t ino = v[i]->ino;

			free(v);
			return bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: inode %" PRIu32
					  " has more than one F line", path, ino);
		}
	}
	free(v);
	qsort(t->files, t->nfiles, sizeof(*t->files), cmp_file_time);
	return 0;
}

/*
 * The arrays grow in the trace's own capacities (afiles, aranges, ameta):
 * a loaded trace is merged into and added to like a built one.
 */
static errcode_t parse_record(struct loader *l, struct bp_trace *t)
{
	char **f = l->fields;
	uint64_t a, b, c, d;

	if (strcmp(f[0], "O") == 0) {
		struct bp_trace_owned *o, *p;
		uint64_t id, gen, e;
		uint32_t kind;

		if (l->version < 2)
			return corrupt(l, "O line in a version 1 trace");
		if (l->nfields != 7 && l->nfields != 8)
			return corrupt(l, "O line needs 6 fields: kind id gen index count first "
				       "(and at=offset)");
		for (kind = 1; kind < BP_OWN_NR; kind++)
			if (strcmp(f[1], bp_own_kind_name(kind)) == 0)
				break;
		if (kind == BP_OWN_NR)
			return corrupt(l, "bad owner kind in O line (dir, tree, itable, super, gdt, "
				       "bbitmap, ibitmap or journal)");
		if (num(f[2], &id) < 0 || id > UINT32_MAX || num(f[3], &gen) < 0 ||
		    gen > UINT32_MAX || num(f[4], &a) < 0 || num(f[5], &b) < 0 ||
		    num(f[6], &c) < 0)
			return corrupt(l, "bad number in O line");
		if (b == 0 || b > UINT32_MAX || a + b < a)
			return corrupt(l, "empty, too long or overflowing owner range");
		if ((kind == BP_OWN_DIR || kind == BP_OWN_TREE) && id == 0)
			return corrupt(l, "O line of a directory or tree names inode 0");
		if (l->nfields == 8) {
			uint64_t bs = t->hdr.block_size;

			if (strncmp(f[7], "at=", 3) || num(f[7] + 3, &d) < 0)
				return corrupt(l, "bad at= offset in O line");
			/* whole blocks, all of them within 64-bit bytes */
			if (!bs || d % bs || b > (UINT64_MAX - d) / bs)
				return corrupt(l, "at= offset of an O line not block aligned or "
					       "its blocks past 64-bit bytes");
		}
		if (t->nowned) {
			p = &t->owned[t->nowned - 1];
			e = p->index + p->count;
			if (p->kind > kind || (p->kind == kind && (p->id > id || (p->id == id &&
			    (p->gen > gen || (p->gen == gen && e > a))))))
				return corrupt(l, "owner ranges not sorted or overlapping");
		}
		if (bp_array_reserve((void **)&t->owned, &t->aowned, t->nowned, sizeof(*t->owned),
				      16))
			return bp_err_set(l->err, ENOMEM, "out of memory");
		o = &t->owned[t->nowned++];
		*o = (struct bp_trace_owned){ kind, (uint32_t)id, (uint32_t)gen, a, b, c,
					      l->nfields == 8 ? d : 0, l->nfields == 8 };
	} else if (strcmp(f[0], "M") == 0) {
		struct bp_trace_meta *m;

		if (l->nfields != 4)
			return corrupt(l, "M line needs 3 fields: offset length first");
		if (num(f[1], &a) < 0 || num(f[2], &b) < 0 || num(f[3], &c) < 0)
			return corrupt(l, "bad number in M line");
		if (b == 0 || a + b < a)
			return corrupt(l, "empty or overflowing metadata range");
		if (t->nmeta && t->meta[t->nmeta - 1].offset + t->meta[t->nmeta - 1].length > a)
			return corrupt(l, "metadata ranges not sorted or overlapping");
		if (bp_array_reserve((void **)&t->meta, &t->ameta, t->nmeta, sizeof(*t->meta), 16))
			return bp_err_set(l->err, ENOMEM, "out of memory");
		m = &t->meta[t->nmeta++];
		*m = (struct bp_trace_meta){ a, b, c, BP_OWN_NONE };
	} else if (strcmp(f[0], "F") == 0) {
		struct bp_trace_file *file;
		int64_t mtime;
		char *p;

		if (l->nfields != 6)
			return corrupt(l, "F line needs 5 fields: ino generation size mtime path");
		if (num(f[1], &a) < 0 || a == 0 || a > UINT32_MAX)
			return corrupt(l, "bad inode number");
		if (num(f[2], &b) < 0 || b > UINT32_MAX)
			return corrupt(l, "bad generation");
		if (num(f[3], &c) < 0)
			return corrupt(l, "bad size");
		p = f[4];
		if (*p == '-')
			p++;
		if (num(p, &d) < 0 || d > INT64_MAX)
			return corrupt(l, "bad mtime");
		mtime = f[4][0] == '-' ? -(int64_t)d : (int64_t)d;
		if (unescape(f[5]) < 0)
			return corrupt(l, "bad %XX escape in path");
		if (f[5][0] != '/' || strlen(f[5]) >= BP_TRACE_PATH_MAX)
			return corrupt(l, "path must start with '/' and be shorter than 4096 bytes");
		if (t->nfiles && !t->files[t->nfiles - 1].nranges)
			return corrupt(l, "previous file has no R line");
		if (bp_array_reserve((void **)&t->files, &t->afiles, t->nfiles, sizeof(*t->files),
				      16))
			return bp_err_set(l->err, ENOMEM, "out of memory");
		file = &t->files[t->nfiles];
		memset(file, 0, sizeof(*file));
		file->path = strdup(f[5]);
		if (!file->path)
			return bp_err_set(l->err, ENOMEM, "out of memory");
		t->nfiles++;
		file->ino = (uint32_t)a;
		file->generation = (uint32_t)b;
		file->size = c;
		file->mtime = mtime;
		file->first_ns = UINT64_MAX;
	} else if (strcmp(f[0], "R") == 0) {
		struct bp_trace_file *file;
		struct bp_trace_range *r;

		if (l->nfields != 5)
			return corrupt(l, "R line needs 4 fields: offset length first phys");
		if (!t->nfiles)
			return corrupt(l, "R line before any F line");
		file = &t->files[t->nfiles - 1];
		if (num(f[1], &a) < 0 || num(f[2], &b) < 0 || num(f[3], &c) < 0)
			return corrupt(l, "bad number in R line");
		if (strcmp(f[4], "-") == 0)
			d = BP_PHYS_NONE;
		else if (num(f[4], &d) < 0 || d == BP_PHYS_NONE)
			return corrupt(l, "bad physical offset in R line (a number or '-')");
		if (b == 0 || a + b < a || (d != BP_PHYS_NONE && d + b < d))
			return corrupt(l, "empty or overflowing range");
		if (file->nranges && file->ranges[file->nranges - 1].offset +
				     file->ranges[file->nranges - 1].length > a)
			return corrupt(l, "ranges of a file not sorted or overlapping");
		if (bp_array_reserve((void **)&file->ranges, &file->aranges, file->nranges,
				      sizeof(*r), 16))
			return bp_err_set(l->err, ENOMEM, "out of memory");
		r = &file->ranges[file->nranges++];
		r->offset = a;
		r->length = b;
		r->first_ns = c;
		r->phys = d;
		if (c < file->first_ns)
			file->first_ns = c;
	} else {
		return corrupt(l, "unknown record type (expected O, M, F, R or end)");
	}
	return 0;
}

errcode_t bp_trace_load(const char *path, struct bp_trace **ret, struct bp_err *err)
{
	struct loader l = { .path = path, .err = err };
	size_t cap = 0;
	uint64_t records = 0, want;
	unsigned int seen = 0;
	int header = 1, ended = 0;
	struct bp_trace *t;
	errcode_t rc = 0;
	char *line = NULL;
	ssize_t n;
	FILE *fp;

	*ret = NULL;
	fp = fopen(path, "re");
	if (!fp)
		return bp_err_set(err, errno, "%s: cannot open trace: %s", path, strerror(errno));
	t = bp_trace_new();
	if (!t) {
		fclose(fp);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	while ((n = getline(&line, &cap, fp)) >= 0) {
		l.line++;
		if (n > 0 && line[n - 1] == '\n') {
			line[--n] = '\0';
		} else {
			rc = corrupt(&l, "last line not terminated by a newline (truncated file?)");
			goto out;
		}
		if (l.line == 1) {
			if (strcmp(line, "bootpack-trace 1") == 0) {
				l.version = 1;
			} else if (strcmp(line, "bootpack-trace 2") == 0) {
				l.version = 2;
			} else {
				rc = strncmp(line, "bootpack-trace ", 15) == 0 ?
					corrupt(&l, "unsupported trace format version (this bootpack reads versions 1 and 2)") :
					corrupt(&l, "not a bootpack trace (first line must be 'bootpack-trace 2')");
				goto out;
			}
			t->version = l.version;
			continue;
		}
		if ((size_t)n != strlen(line)) {
			rc = corrupt(&l, "NUL byte in line");
			goto out;
		}
		if (n == 0 || line[0] == '#')
			continue;
		if (ended) {
			rc = corrupt(&l, "text after the 'end' line");
			goto out;
		}
		if ((size_t)n > BP_TRACE_LINE_MAX) {
			rc = corrupt(&l, "line too long");
			goto out;
		}
		if (strchr(line, '\t') || line[n - 1] == ' ' || strstr(line, "  ")) {
			rc = corrupt(&l, "fields must be separated by exactly one space");
			goto out;
		}
		l.nfields = split(line, l.fields, (int)ARRAY_SIZE(l.fields));
		if (l.nfields < 0) {
			rc = corrupt(&l, "too many fields");
			goto out;
		}
		if (strcmp(l.fields[0], "end") == 0) {
			if (l.nfields != 2 || num(l.fields[1], &want) < 0) {
				rc = corrupt(&l, "bad 'end' line");
				goto out;
			}
			if (want != records) {
				char msg[96];

				snprintf(msg, sizeof(msg), "'end' says %" PRIu64 " records, found %" PRIu64,
					 want, records);
				rc = corrupt(&l, msg);
				goto out;
			}
			ended = 1;
			continue;
		}
		if (l.fields[0][1] == '\0') {
			if (header) {
				if ((seen & (SEEN_UUID | SEEN_BS)) != (SEEN_UUID | SEEN_BS)) {
					rc = corrupt(&l, "header lacks 'uuid' or 'block-size'");
					goto out;
				}
				header = 0;
			}
			if (++records > BP_TRACE_MAX_RECORDS) {
				rc = corrupt(&l, "too many records");
				goto out;
			}
			rc = parse_record(&l, t);
		} else if (header) {
			rc = parse_header(&l, t, &seen);
		} else {
			rc = corrupt(&l, "header line after the first record");
		}
		if (rc)
			goto out;
	}
	if (ferror(fp)) {
		rc = bp_err_set(err, errno ? errno : EIO, "%s: read error", path);
		goto out;
	}
	if (l.line == 0) {
		rc = corrupt(&l, "empty file");
		goto out;
	}
	if (!ended) {
		rc = corrupt(&l, "no 'end' line: the trace is truncated");
		goto out;
	}
	if (header && (seen & (SEEN_UUID | SEEN_BS)) != (SEEN_UUID | SEEN_BS)) {
		rc = corrupt(&l, "header lacks 'uuid' or 'block-size'");
		goto out;
	}
	if (t->nfiles && !t->files[t->nfiles - 1].nranges) {
		rc = corrupt(&l, "last file has no R line");
		goto out;
	}
	rc = check_files(t, path, err);
out:
	free(line);
	fclose(fp);
	if (rc) {
		bp_trace_free(t);
		return rc;
	}
	if (!t->hdr.source)
		rc = bp_trace_set_str(&t->hdr.source, "import");
	if (!rc && !t->hdr.device)
		rc = bp_trace_set_str(&t->hdr.device, "");
	if (!rc && !t->hdr.kernel)
		rc = bp_trace_set_str(&t->hdr.kernel, "");
	if (rc) {
		bp_trace_free(t);
		return bp_err_set(err, ENOMEM, "out of memory");
	}
	*ret = t;
	return 0;
}
