// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-from-kernel.c --- the kernel recorder's text record: a hand-written
 * record is parsed and collected into the ranges the tracepoints would
 * give; malformed and truncated records are refused with the line
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bp_et.h"
#include "from-kernel.h"
#include "../tests/unit/unit.h"

static const char good[] =
	"bootpack-record 1\n"
	"page-size 4096\n"
	"state stopped\n"
	"capacity 26214\n"
	"entries 6\n"
	"dropped 3\n"
	"some-later-key 17\n"
	"B 1000 254:0 0 1\n"
	"F 2000 254:0 12 3456789 0 4\n"
	"F 2500 254:0 12 3456789 4 12\n"
	"B 2600 254:0 262 2\n"
	"F 3000 254:0 13 7 100 1\n"
	"F 4000 8:1 99 1 0 1\n"
	"end 6\n";

static errcode_t parse(const char *text, struct bp_krec **r, struct bp_err *err)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	errcode_t rc;

	if (!fp) {
		perror("fmemopen");
		exit(99);
	}
	memset(err, 0, sizeof(*err));
	rc = bp_krec_parse(fp, "rec", r, err);
	fclose(fp);
	return rc;
}

/* text must be refused with code and a message holding what. */
static void refused(const char *text, errcode_t code, const char *what)
{
	struct bp_krec *r = NULL;
	struct bp_err err;
	errcode_t rc = parse(text, &r, &err);

	CHECK(rc == code);
	CHECK(r == NULL);
	if (!strstr(err.msg, what)) {
		fprintf(stderr, "expected '%s' in '%s'\n", what, err.msg);
		unit_failures++;
	}
}

/* The good record with line n (1-based) replaced by repl ("" drops it). */
static char *edit(int n, const char *repl)
{
	static char buf[2048];
	const char *p = good;
	int line = 1;

	buf[0] = '\0';
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p) + 1;

		if (line == n)
			strcat(buf, repl);
		else
			strncat(buf, p, len);
		p += len;
		line++;
	}
	return buf;
}

static void test_good(void)
{
	struct bp_collected col;
	struct bp_collect *c;
	struct bp_err err;
	struct bp_krec *r;

	CHECK(parse(good, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->page_size == 4096 && r->state == BP_KREC_STOPPED);
	CHECK(r->capacity == 26214 && r->entries == 6 && r->dropped == 3);
	CHECK(r->n == 6);
	CHECK(r->e[0].bdev && r->e[0].kdev == BP_KDEV(254, 0) && r->e[0].index == 0);
	CHECK(!r->e[1].bdev && r->e[1].ino == 12 && r->e[1].gen == 3456789);
	CHECK(r->e[1].time_ns == 2000 && r->e[1].index == 0 && r->e[1].count == 4);
	CHECK(r->e[5].kdev == BP_KDEV(8, 1));

	/* Collected like the tracepoints: per inode, pages in bytes, first access. */
	c = bp_collect_new();
	CHECK(c && bp_krec_collect(r, c, &err) == 0);
	CHECK(bp_collect_nevents(c) == 6 && bp_collect_get_lost(c) == 3);
	CHECK(bp_collect_finish(c, BP_KDEV(254, 0), &col, &err) == 0);
	CHECK(col.nfiles == 2 && col.nmeta == 2 && col.lost == 3 && !col.used_access);
	if (col.nfiles == 2) {
		/* Two reads, two segments: bp_trace_normalize joins them or not. */
		CHECK(col.files[0].ino == 12 && col.files[0].n == 2);
		CHECK(col.files[0].r[0].start == 0 && col.files[0].r[0].end == 4 * 4096);
		CHECK(col.files[0].r[0].first_ns == 1000);	/* relative to the first entry */
		CHECK(col.files[0].r[1].start == 4 * 4096 && col.files[0].r[1].end == 16 * 4096);
		CHECK(col.files[0].r[1].first_ns == 1500);
		CHECK(col.files[1].ino == 13 && col.files[1].r[0].start == 100 * 4096);
		CHECK(col.files[1].r[0].end == 101 * 4096);
	}
	if (col.nmeta == 2) {
		CHECK(col.meta[0].start == 0 && col.meta[0].end == 4096);
		CHECK(col.meta[0].first_ns == 0);
		CHECK(col.meta[1].start == 262 * 4096 && col.meta[1].end == 264 * 4096);
	}
	bp_collected_free(&col);
	bp_collect_free(c);

	/* A skipped (reused) inode is left out. */
	r->e[4].skip = 1;
	c = bp_collect_new();
	CHECK(c && bp_krec_collect(r, c, &err) == 0);
	CHECK(bp_collect_finish(c, BP_KDEV(254, 0), &col, &err) == 0);
	CHECK(col.nfiles == 1 && col.files[0].ino == 12);
	bp_collected_free(&col);
	bp_collect_free(c);
	bp_krec_free(r);
}

static void test_other_page_size(void)
{
	struct bp_krec *r;
	struct bp_err err;

	CHECK(parse(edit(2, "page-size 16384\n"), &r, &err) == 0);
	if (r) {
		CHECK(r->page_size == 16384);
		bp_krec_free(r);
	}
	/* Header keys in any order; a record that is still recording is read. */
	CHECK(parse(edit(3, "state recording\n"), &r, &err) == 0);
	if (r) {
		CHECK(r->state == BP_KREC_RECORDING);
		bp_krec_free(r);
	}
	/* An empty record. */
	CHECK(parse("bootpack-record 1\npage-size 4096\nstate stopped\nend 0\n", &r, &err) == 0);
	if (r) {
		CHECK(r->n == 0);
		bp_krec_free(r);
	}
}

static void test_malformed(void)
{
	const errcode_t C = BP_ET_TRACE_CORRUPT;
	char longline[400];

	refused("", C, "rec: empty record");
	refused("bootpack-trace 1\n", C, "not a bootpack kernel record");
	refused(edit(1, "bootpack-record 2\n"), BP_ET_UNSUPPORTED, "record version 2");
	refused(edit(1, "bootpack-record x\n"), C, "rec:1: bad version");
	refused(edit(14, ""), C, "truncated (no 'end' line after line 13)");
	refused(edit(14, "end 5\n"), C, "rec:14: 'end' says 5 entries, the record holds 6");
	refused(edit(14, "end 6 \n"), C, "rec:14: bad 'end' line");
	refused(edit(2, ""), C, "rec:7: an entry before the page-size line");
	refused(edit(2, "page-size 4000\n"), C, "rec:2: page-size is not a power of two");
	refused(edit(2, "page-size 4k\n"), C, "rec:2: a header value is not a number");
	refused(edit(3, "state running\n"), C, "rec:3: unknown state");
	refused(edit(3, "state freed\n"), C, "the record was freed");
	refused(edit(4, "capacity\n"), C, "rec:4: a header line without a value");
	refused(edit(9, "F 2000 254:0 12 3456789 0 0\n"), C, "rec:9: empty page range");
	refused(edit(9, "F 2000 254:0 12 3456789 0\n"), C,
		"rec:9: expected a page index and a page count");
	refused(edit(9, "F 2000 254:0 12 3456789 0 4 7\n"), C,
		"rec:9: expected a page index and a page count at the end");
	refused(edit(9, "F 2000 254:0 12 3456789 0 4x\n"), C, "rec:9: expected a page index");
	refused(edit(9, "F 2000 254:0 12 3456789 -1 4\n"), C, "rec:9: expected a page index");
	refused(edit(9, "F 2000 4096:0 12 3456789 0 4\n"), C, "rec:9: expected a time and a device");
	refused(edit(9, "F 2000 254-0 12 3456789 0 4\n"), C, "rec:9: expected a time and a device");
	refused(edit(9, "F 2000 254:1048576 12 1 0 4\n"), C, "rec:9: expected a time and a device");
	refused(edit(9, "F 2000 254:0 0 3456789 0 4\n"), C, "rec:9: inode 0");
	refused(edit(9, "F 2000 254:0 12 4294967296 0 4\n"), C,
		"rec:9: expected an inode and its generation");
	refused(edit(9, "F 18446744073709551616 254:0 12 1 0 4\n"), C,
		"rec:9: expected a time and a device");
	refused(edit(9, "F 2000 254:0 12 1 18446744073709551615 1\n"), C,
		"rec:9: page range out of bounds");
	refused(edit(9, "F 2000 254:0 12 1 4503599627370495 1\n"), C,
		"rec:9: page range out of bounds");
	refused(edit(9, "F  2000 254:0 12 1 0 4\n"), C, "rec:9: expected a time");
	refused(edit(8, "B 1000 254:0 12 0 1\n"), C, "rec:8: expected a page index and a page count at the end");
	refused(edit(8, "X 1000 254:0 0 1\n"), C, "rec:8: not a header line, an entry");
	refused(edit(10, "dropped 4\n"), C, "rec:10: not a header line, an entry");
	refused(edit(13, "F 4000 8:1 99 1 0 1\nend 6\nF 1 8:1 99 1 0 1\n"), C,
		"rec:15: text after the 'end' line");
	memset(longline, '9', sizeof(longline));
	memcpy(longline, "F ", 2);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	refused(edit(9, longline), C, "rec:9: line too long");
}

int main(void)
{
	add_error_table(&et_bp_error_table);
	test_good();
	test_other_page_size();
	test_malformed();
	return unit_exit();
}
