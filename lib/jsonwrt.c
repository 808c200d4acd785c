// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jsonwrt.c --- a small streaming JSON writer
 */
#include <math.h>
#include <inttypes.h>

#include "jsonwrt.h"

void bp_json_init(struct bp_json *j, FILE *out, int pretty)
{
	j->out = out;
	j->depth = 0;
	j->pretty = pretty;
	j->nonempty[0] = 0;
}

static void indent(struct bp_json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0 if p starts none.
 */
static int utf8_len(const unsigned char *p)
{
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)	/* stops at the NUL: 0 is no continuation byte */
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return n;
}

static int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	for (; *p; p += n)
		if (!(n = utf8_len(p)))
			return 0;
	return 1;
}

/* A JSON string; each byte that is not part of well-formed UTF-8 becomes U+FFFD. */
static void put_string(FILE *out, const char *s)
{
	const unsigned char *p;
	int n;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x80) {
			n = utf8_len(p);
			if (!n) {
				fputs("\\ufffd", out);
				continue;
			}
			fwrite(p, 1, (size_t)n, out);
			p += n - 1;
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* Separator, indentation and "name": before a member. */
static void member(struct bp_json *j, const char *name)
{
	if (j->depth > 0) {
		if (j->nonempty[j->depth])
			fputc(',', j->out);
		j->nonempty[j->depth] = 1;
		indent(j);
	}
	if (name) {
		put_string(j->out, name);
		fputs(j->pretty ? ": " : ":", j->out);
	}
}

static void open_container(struct bp_json *j, const char *name, char c)
{
	member(j, name);
	fputc(c, j->out);
	if (j->depth < BP_JSON_MAX_DEPTH - 1)
		j->depth++;
	j->nonempty[j->depth] = 0;
	j->closer[j->depth] = c == '{' ? '}' : ']';
}

static void close_container(struct bp_json *j, char c)
{
	int had = j->nonempty[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->out);
}

void bp_json_open_object(struct bp_json *j, const char *name)
{
	open_container(j, name, '{');
}

void bp_json_close_object(struct bp_json *j)
{
	close_container(j, '}');
}

void bp_json_open_array(struct bp_json *j, const char *name)
{
	open_container(j, name, '[');
}

void bp_json_close_array(struct bp_json *j)
{
	close_container(j, ']');
}

void bp_json_finish(struct bp_json *j)
{
	while (j->depth > 0)
		close_container(j, j->closer[j->depth]);
	fputc('\n', j->out);
	fflush(j->out);
}

void bp_json_string(struct bp_json *j, const char *name, const char *value)
{
	const unsigned char *p;

	member(j, name);
	if (!value) {
		fputs("null", j->out);
		return;
	}
	put_string(j->out, value);
	if (!name || utf8_valid(value))
		return;
	/* Not UTF-8 (a file name is bytes): name_hex keeps them all. */
	member(j, NULL);
	fputc('"', j->out);
	for (p = (const unsigned char *)name; *p; p++)	/* our names: nothing to escape */
		fputc(*p, j->out);
	fputs(j->pretty ? "_hex\": \"" : "_hex\":\"", j->out);
	for (p = (const unsigned char *)value; *p; p++)
		fprintf(j->out, "%02x", *p);
	fputc('"', j->out);
}

void bp_json_u64(struct bp_json *j, const char *name, uint64_t value)
{
	member(j, name);
	fprintf(j->out, "%" PRIu64, value);
}

void bp_json_i64(struct bp_json *j, const char *name, int64_t value)
{
	member(j, name);
	fprintf(j->out, "%" PRId64, value);
}

void bp_json_double(struct bp_json *j, const char *name, double value)
{
	member(j, name);
	if (isfinite(value))
		fprintf(j->out, "%.6g", value);
	else
		fputs("null", j->out);
}

void bp_json_bool(struct bp_json *j, const char *name, int value)
{
	member(j, name);
	fputs(value ? "true" : "false", j->out);
}

void bp_json_null(struct bp_json *j, const char *name)
{
	member(j, name);
	fputs("null", j->out);
}
