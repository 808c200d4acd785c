// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * from-kernel.c --- the record of the bootpack kernel patch, parsed and fed
 * to the collector like the tracepoints' events (format in from-kernel.h)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "array.h"
#include "bp_et.h"
#include "from-kernel.h"
#include "fsident.h"

#define KREC_LINE_MAX 256

struct krec_ctx {
	const char *name;
	unsigned long line;
	struct bp_err *err;
};

static errcode_t bad(const struct krec_ctx *x, const char *why)
{
	return bp_err_set(x->err, BP_ET_TRACE_CORRUPT, "%s:%lu: %s", x->name, x->line, why);
}

/* One unsigned decimal number, then one space and more, or the end of the line. */
static int get_dec(const char **pp, uint64_t max, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (max - (uint64_t)(*p - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (*p == ' ' && p[1])
		p++;
	else if (*p)
		return -1;
	*v = x;
	*pp = p;
	return 0;
}

static int get_majmin(const char **pp, uint32_t *kdev)
{
	const char *p = *pp;
	uint64_t ma = 0, mi;

	for (; *p >= '0' && *p <= '9'; p++) {
		ma = ma * 10 + (uint64_t)(*p - '0');
		if (ma > 0xfff)
			return -1;
	}
	if (p == *pp || *p != ':')
		return -1;
	p++;
	if (get_dec(&p, 0xfffff, &mi))
		return -1;
	*kdev = BP_KDEV(ma, mi);
	*pp = p;
	return 0;
}

static errcode_t parse_entry(struct krec_ctx *x, struct bp_krec *r, const char *p)
{
	struct bp_krec_entry e = { 0 };

	e.bdev = *p == 'B';
	p += 2;
	if (get_dec(&p, UINT64_MAX, &e.time_ns) || get_majmin(&p, &e.kdev))
		return bad(x, "expected a time and a device MAJOR:MINOR");
	if (!e.bdev) {
		uint64_t gen;

		if (get_dec(&p, UINT64_MAX, &e.ino) || get_dec(&p, UINT32_MAX, &gen))
			return bad(x, "expected an inode and its generation");
		if (!e.ino)
			return bad(x, "inode 0");
		e.gen = (uint32_t)gen;
	}
	if (get_dec(&p, UINT64_MAX, &e.index) || get_dec(&p, UINT64_MAX, &e.count) || *p)
		return bad(x, "expected a page index and a page count at the end");
	if (!e.count)
		return bad(x, "empty page range");
	if (e.index + e.count < e.index ||
	    e.index + e.count > UINT64_MAX / r->page_size)
		return bad(x, "page range out of bounds");
	if (bp_array_reserve((void **)&r->e, &r->cap, r->n, sizeof(*r->e), 256))
		return bp_err_set(x->err, ENOMEM, "%s: out of memory", x->name);
	r->e[r->n++] = e;
	return 0;
}

static errcode_t parse_header(struct krec_ctx *x, struct bp_krec *r, const char *p)
{
	static const char *const states[] = { "recording", "stopped", "freed" };
	const char *v = strchr(p, ' ');
	size_t klen = v ? (size_t)(v - p) : strlen(p);
	uint64_t *num = NULL, val;
	unsigned int i;

	if (!v)
		return bad(x, "a header line without a value");
	v++;
	if (klen == 5 && !strncmp(p, "state", 5)) {
		for (i = 0; i < ARRAY_SIZE(states); i++)
			if (!strcmp(v, states[i])) {
				r->state = (enum bp_krec_state)i;
				return 0;
			}
		return bad(x, "unknown state");
	}
	if (klen == 9 && !strncmp(p, "page-size", 9))
		num = &r->page_size;
	else if (klen == 8 && !strncmp(p, "capacity", 8))
		num = &r->capacity;
	else if (klen == 7 && !strncmp(p, "entries", 7))
		num = &r->entries;
	else if (klen == 7 && !strncmp(p, "dropped", 7))
		num = &r->dropped;
	if (!num)
		return 0;	/* a key of a later kernel: ignored */
	if (get_dec(&v, UINT64_MAX, &val) || *v)
		return bad(x, "a header value is not a number");
	if (num == &r->page_size && (val < 512 || (val & (val - 1)) || val > (1U << 20)))
		return bad(x, "page-size is not a power of two from 512 to 1M");
	*num = val;
	return 0;
}

void bp_krec_free(struct bp_krec *r)
{
	if (!r)
		return;
	free(r->e);
	free(r);
}

errcode_t bp_krec_parse(FILE *fp, const char *name, struct bp_krec **ret, struct bp_err *err)
{
	struct krec_ctx x = { .name = name, .err = err };
	char line[KREC_LINE_MAX];
	struct bp_krec *r;
	int ended = 0;
	uint64_t v;
	size_t len;
	errcode_t rc = 0;

	*ret = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return bp_err_set(err, ENOMEM, "%s: out of memory", name);
	while (fgets(line, sizeof(line), fp)) {
		const char *p = line;

		x.line++;
		len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(fp)) {
			rc = bad(&x, "line too long");
			goto fail;
		}
		if (x.line == 1) {
			if (strncmp(line, "bootpack-record ", 16)) {
				rc = bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: not a bootpack kernel "
						"record (no 'bootpack-record' first line)", name);
				goto fail;
			}
			p += 16;
			if (get_dec(&p, UINT32_MAX, &v) || *p) {
				rc = bad(&x, "bad version");
				goto fail;
			}
			if (v != BP_KREC_VERSION) {
				rc = bp_err_set(err, BP_ET_UNSUPPORTED, "%s: record version %" PRIu64
						"; this bootpack reads version %d", name, v,
						BP_KREC_VERSION);
				goto fail;
			}
			continue;
		}
		if (ended) {
			rc = bad(&x, "text after the 'end' line");
			goto fail;
		}
		if ((line[0] == 'F' || line[0] == 'B') && line[1] == ' ') {
			if (!r->page_size) {
				rc = bad(&x, "an entry before the page-size line");
				goto fail;
			}
			rc = parse_entry(&x, r, line);
		} else if (!strncmp(line, "end ", 4)) {
			p += 4;
			if (get_dec(&p, UINT64_MAX, &v) || *p) {
				rc = bad(&x, "bad 'end' line");
				goto fail;
			}
			if (v != r->n) {
				rc = bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s:%lu: 'end' says %" PRIu64
						" entries, the record holds %zu", name, x.line, v,
						r->n);
				goto fail;
			}
			ended = 1;
		} else if (line[0] >= 'a' && line[0] <= 'z' && !r->n) {
			rc = parse_header(&x, r, line);
		} else {
			rc = bad(&x, "not a header line, an entry or the 'end' line");
		}
		if (rc)
			goto fail;
	}
	if (ferror(fp)) {
		rc = bp_err_set(err, errno ? errno : EIO, "%s: read error", name);
		goto fail;
	}
	if (!x.line) {
		rc = bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: empty record", name);
		goto fail;
	}
	if (r->state == BP_KREC_FREED) {
		rc = bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: the record was freed ('free' was "
				"written to the recorder)", name);
		goto fail;
	}
	if (!ended) {
		rc = bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: truncated (no 'end' line after "
				"line %lu)", name, x.line);
		goto fail;
	}
	if (!r->page_size) {
		rc = bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: no page-size line", name);
		goto fail;
	}
	*ret = r;
	return 0;
fail:
	bp_krec_free(r);
	return rc;
}

errcode_t bp_krec_check_generations(struct bp_krec *r, uint32_t kdev, const char *devpath,
				    uint64_t *nskipped, struct bp_err *err)
{
	struct ext2_inode inode;
	ext2_filsys fs = NULL;
	errcode_t rc;
	size_t i;

	*nskipped = 0;
	rc = bp_fs_open_ro(devpath, &fs, err);
	if (rc)
		return rc;
	for (i = 0; i < r->n; i++) {
		struct bp_krec_entry *e = &r->e[i];

		if (e->bdev || e->kdev != kdev || e->skip)
			continue;
		if (e->ino > fs->super->s_inodes_count) {
			e->skip = 1;
		} else {
			rc = ext2fs_read_inode(fs, (ext2_ino_t)e->ino, &inode);
			if (rc) {
				bp_err_lib(err, rc, "%s: while reading inode %" PRIu64, devpath,
					   e->ino);
				break;
			}
			e->skip = !inode.i_links_count || inode.i_dtime ||
				  inode.i_generation != e->gen;
		}
		if (e->skip)
			*nskipped += e->count;
	}
	ext2fs_close_free(&fs);
	return rc;
}

errcode_t bp_krec_collect(const struct bp_krec *r, struct bp_collect *c, struct bp_err *err)
{
	errcode_t rc;
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct bp_krec_entry *e = &r->e[i];

		if (e->skip)
			continue;
		rc = bp_collect_event(c, BP_EV_ADD, e->bdev ? BP_KDEV(0, 0) : e->kdev,
				      e->bdev ? e->kdev : e->ino, e->index * r->page_size,
				      (e->index + e->count) * r->page_size, e->time_ns);
		if (rc)
			return bp_err_set(err, rc, "while collecting the kernel record: %s",
					  rc == E2BIG ? "too many entries" : strerror((int)rc));
	}
	bp_collect_lost(c, r->dropped);
	return 0;
}

/* Ask a running recorder to stop, so that the record does not change. */
static void krec_stop(void)
{
	FILE *fp = fopen(BP_KREC_CONTROL, "we");

	if (!fp)
		return;
	fputs("stop\n", fp);
	fclose(fp);
}

/* The one device the record read files from, else an error naming them. */
static errcode_t krec_device(const struct bp_krec *r, const char *name, uint32_t *kdev,
			     struct bp_err *err)
{
	char list[160] = "";
	uint32_t found = 0;
	size_t i, len;
	int n = 0;

	for (i = 0; i < r->n; i++) {
		const struct bp_krec_entry *e = &r->e[i];
		size_t j;

		if (e->bdev || e->kdev == found)
			continue;
		for (j = 0; j < i; j++)
			if (!r->e[j].bdev && r->e[j].kdev == e->kdev)
				break;
		if (j < i)
			continue;
		found = e->kdev;
		len = strlen(list);
		if (len < sizeof(list) - 24)
			snprintf(list + len, sizeof(list) - len, "%s%u:%u", n ? ", " : "",
				 BP_KDEV_MAJOR(e->kdev), BP_KDEV_MINOR(e->kdev));
		n++;
	}
	if (n == 1) {
		*kdev = found;
		return 0;
	}
	if (!n)
		return bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: the record holds no file read "
				  "from a block device", name);
	return bp_err_set(err, BP_ET_AMBIVALENT, "%s: the record read files from %d block "
			  "devices (%s): pick one with --dev MAJ:MIN", name, n, list);
}

errcode_t bp_krec_read(const char *path, const char *devpath, uint32_t *kdev,
		       struct bp_collect *c, struct bp_err *err)
{
	const char *name = path ? path : BP_KREC_PATH;
	struct bp_krec *r = NULL;
	uint64_t reused;
	errcode_t rc;
	FILE *fp;

	if (!path)
		krec_stop();
	fp = fopen(name, "re");
	if (!fp) {
		if (!path && errno == ENOENT)
			return bp_err_set(err, BP_ET_NOT_BUILT, "%s: no bootpack recorder: boot a "
					  "kernel with the patches of kernel/ and bootpack.record=1 "
					  "on its command line, and mount debugfs on "
					  "/sys/kernel/debug", name);
		return bp_err_set(err, BP_ET_TRACE_CORRUPT, "%s: cannot open: %s", name,
				  strerror(errno));
	}
	rc = bp_krec_parse(fp, name, &r, err);
	fclose(fp);
	if (rc)
		return rc;
	if (!*kdev)
		rc = krec_device(r, name, kdev, err);
	if (!rc)
		rc = bp_krec_check_generations(r, *kdev, devpath, &reused, err);
	if (!rc)
		rc = bp_krec_collect(r, c, err);
	bp_krec_free(r);
	return rc;
}
