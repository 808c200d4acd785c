// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * parse-text.c --- parsing the text form of a tracefs trace (filemap events)
 *
 * A line is "TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: PAYLOAD"; TASK may hold
 * spaces, dashes and colons, FLAGS is absent without the irq-info option.
 * The payloads of the filemap events are the kernel's print formats:
 *   mm_filemap_add_to_page_cache: dev M:m ino HEX [page=P] pfn=0xHEX ofs=BYTES [order=N]
 *   mm_filemap_get_pages / _map_pages: dev=M:m ino=HEX ofs=FIRST-LAST (bytes, inclusive)
 *   mm_filemap_fault: dev=M:m ino=HEX ofs=BYTES
 * The inode is printed in hex with %lx or (64-bit i_ino) %llx: the text is
 * the same for both layouts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bp_et.h"
#include "trace-engine.h"

#define BP_TEXT_LINE_MAX 4096

struct text_ctx {
	const char *name;
	unsigned long line;
	struct bp_err *err;
	uint64_t last_ts;
	uint64_t lost_header, lost_lines;
};

/* Linux file offsets are loff_t: nothing past 2^63 bytes can be cached. */
#define BP_MAX_FILE_OFFSET (1ULL << 63)

static errcode_t bad(struct text_ctx *x, const char *why)
{
	return bp_err_set(x->err, BP_ET_TRACE_CORRUPT, "%s:%lu: %s", x->name, x->line, why);
}

static int parse_dec(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	*pp = p;
	return 0;
}

static int parse_hex(const char **pp, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int d, n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;; p++, n++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (x >> 60)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	if (!n)
		return -1;
	*v = x;
	*pp = p;
	return 0;
}

/* "SECONDS.FRACTION: " at p; returns the end or NULL. */
static const char *parse_ts(const char *p, uint64_t *ns)
{
	uint64_t sec, frac = 0, scale = 1000000000ULL;

	if (parse_dec(&p, &sec) < 0 || *p != '.')
		return NULL;
	for (p++; *p >= '0' && *p <= '9'; p++) {
		scale /= 10;
		frac += (uint64_t)(*p - '0') * scale;
	}
	if (p[0] != ':' || p[1] != ' ' || sec > UINT64_MAX / 1000000000ULL - 1)
		return NULL;
	*ns = sec * 1000000000ULL + frac;
	return p + 2;
}

/* Find "] [FLAGS] TIMESTAMP: " and return what follows (the event name). */
static const char *find_event(const char *line, uint64_t *ns)
{
	const char *p, *q, *r;

	for (p = strchr(line, ']'); p; p = strchr(p + 1, ']')) {
		q = p + 1;
		if (*q != ' ')
			continue;
		while (*q == ' ')
			q++;
		r = parse_ts(q, ns);
		if (r)
			return r;
		while (*q && *q != ' ')	/* skip the flags */
			q++;
		while (*q == ' ')
			q++;
		r = parse_ts(q, ns);
		if (r)
			return r;
	}
	return NULL;
}

/* Value of "key VALUE" or "key=VALUE" in the payload; NULL if absent. */
static const char *field(const char *s, const char *key)
{
	size_t k = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ' ') && (p[k] == ' ' || p[k] == '='))
			return p + k + 1;
		p += k;
	}
	return NULL;
}

static int parse_dev(const char *p, uint32_t *kdev)
{
	uint64_t ma, mi;

	if (!p || parse_dec(&p, &ma) < 0 || *p++ != ':' || parse_dec(&p, &mi) < 0 ||
	    ma > 0xfff || mi > 0xfffff)
		return -1;
	*kdev = BP_KDEV(ma, mi);
	return 0;
}

uint64_t bp_trace_page_size(void)
{
	static uint64_t pg;

	if (!pg) {
		long v = sysconf(_SC_PAGESIZE);

		pg = v >= 4096 && !(v & (v - 1)) ? (uint64_t)v : 4096;
	}
	return pg;
}

static errcode_t parse_filemap(struct text_ctx *x, const char *ev, const char *pl, uint64_t ts,
			       struct bp_collect *c)
{
	enum bp_ev_kind kind;
	uint64_t ino, a, b, order = 0;
	const char *p;
	uint32_t kdev;
	int range = 0;
	errcode_t rc;

	if (strcmp(ev, "mm_filemap_add_to_page_cache") == 0)
		kind = BP_EV_ADD;
	else if (strcmp(ev, "mm_filemap_get_pages") == 0 || strcmp(ev, "mm_filemap_map_pages") == 0)
		kind = BP_EV_ACCESS, range = 1;
	else if (strcmp(ev, "mm_filemap_fault") == 0)
		kind = BP_EV_ACCESS;
	else
		return 0;	/* delete_from_page_cache and others */

	if (parse_dev(field(pl, "dev"), &kdev) < 0)
		return bad(x, "bad or missing 'dev' in a filemap event");
	p = field(pl, "ino");
	if (!p || parse_hex(&p, &ino) < 0)
		return bad(x, "bad or missing 'ino' in a filemap event");
	p = field(pl, "ofs");
	if (!p || parse_dec(&p, &a) < 0)
		return bad(x, "bad or missing 'ofs' in a filemap event");
	if (range) {
		if (*p++ != '-' || parse_dec(&p, &b) < 0 || b < a || b == UINT64_MAX)
			return bad(x, "bad 'ofs=FIRST-LAST' range in a filemap event");
		b++;
	} else if (kind == BP_EV_ADD) {
		p = field(pl, "order");
		if (p && (parse_dec(&p, &order) < 0 || order > 20))
			return bad(x, "bad 'order' in mm_filemap_add_to_page_cache");
		if (a > BP_MAX_FILE_OFFSET - (BP_PAGE_SIZE << order))
			return bad(x, "offset beyond the largest file size in a filemap event");
		b = a + (BP_PAGE_SIZE << order);
	} else {
		if (a > BP_MAX_FILE_OFFSET - BP_PAGE_SIZE)
			return bad(x, "offset beyond the largest file size in a filemap event");
		b = a + BP_PAGE_SIZE;
	}
	if (b > BP_MAX_FILE_OFFSET)
		return bad(x, "offset beyond the largest file size in a filemap event");
	/* Page-align: the events work in pages; the byte range prints are page based. */
	a &= ~(BP_PAGE_SIZE - 1);
	if (b > UINT64_MAX - BP_PAGE_SIZE)
		return bad(x, "offset out of range in a filemap event");
	b = (b + BP_PAGE_SIZE - 1) & ~(BP_PAGE_SIZE - 1);
	rc = bp_collect_event(c, kind, kdev, ino, a, b, ts);
	if (rc == E2BIG)
		return bad(x, "too many events");
	if (rc == EINVAL)
		return bad(x, "empty range in a filemap event");
	if (rc)
		return bp_err_set(x->err, rc, "%s:%lu: out of memory", x->name, x->line);
	return 0;
}

static errcode_t parse_line(struct text_ctx *x, char *line, struct bp_collect *c)
{
	char *ev, *colon;
	uint64_t ts, v, w;
	const char *p;

	if (line[0] == '#') {
		/* "# entries-in-buffer/entries-written: 1958/1960   #P:2" */
		p = strstr(line, "entries-written: ");
		if (p) {
			p += strlen("entries-written: ");
			if (parse_dec(&p, &v) == 0 && *p++ == '/' && parse_dec(&p, &w) == 0 && w > v)
				x->lost_header += w - v;
		}
		return 0;
	}
	if (line[strspn(line, " \t")] == '\0')
		return 0;
	p = strstr(line, "[LOST ");
	if (p && strncmp(line, "CPU:", 4) == 0) {
		p += 6;
		if (parse_dec(&p, &v) < 0)
			return bad(x, "bad [LOST n EVENTS] line");
		x->lost_lines += v;
		return 0;
	}
	ev = (char *)find_event(line, &ts);
	if (!ev)
		return bad(x, "not a trace event line (expected 'TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: ...')");
	colon = strchr(ev, ':');
	if (!colon || colon[1] != ' ')
		return bad(x, "event name not followed by ': '");
	*colon = '\0';
	if (strncmp(ev, "mm_filemap_", 11) != 0)
		return 0;
	/* The text is in time order; keep ties in line order. */
	if (ts <= x->last_ts && x->last_ts)
		ts = x->last_ts + 1;
	x->last_ts = ts;
	return parse_filemap(x, ev, colon + 2, ts, c);
}

errcode_t bp_parse_text(FILE *fp, const char *name, struct bp_collect *c, struct bp_err *err)
{
	struct text_ctx x = { .name = name, .err = err };
	char *line = NULL;
	size_t cap = 0;
	errcode_t rc = 0;
	ssize_t n;

	while ((n = getline(&line, &cap, fp)) >= 0) {
		x.line++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > BP_TEXT_LINE_MAX) {
			rc = bad(&x, "line too long");
			break;
		}
		if ((size_t)n != strlen(line)) {
			rc = bad(&x, "NUL byte in line");
			break;
		}
		rc = parse_line(&x, line, c);
		if (rc)
			break;
	}
	if (!rc && ferror(fp))
		rc = bp_err_set(err, EIO, "%s: read error", name);
	/* Both count the events the ring buffer lost; they may overlap. */
	bp_collect_lost(c, MAX(x.lost_header, x.lost_lines));
	free(line);
	return rc;
}
