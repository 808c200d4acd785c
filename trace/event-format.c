// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * event-format.c --- parsing a tracefs event's "format" file, and checking
 * that a filemap event has a layout bootpack reads
 *
 * The fields (name, offset, size) say how the binary record is laid out:
 * i_ino is "unsigned long" (4 bytes on 32-bit kernels, 8 on 64-bit) and
 * turns into u64 in newer kernels, which also reorder fields. The print
 * format says what the text form looks like; the text parser needs "dev",
 * "ino" in hex and "ofs" in bytes, whatever the field order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bp_et.h"
#include "trace-engine.h"

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/* "\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;" */
static int parse_field(char *line, struct bp_ev_field *f)
{
	char *decl = line + strlen("field:"), *semi, *name, *p;
	unsigned int off, size;
	int sign;

	semi = strchr(decl, ';');
	if (!semi)
		return -1;
	*semi = '\0';
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%d;", &off, &size, &sign) != 3)
		return -1;
	p = strchr(decl, '[');	/* "char comm[16]" */
	if (p)
		*p = '\0';
	name = strrchr(decl, ' ');
	name = name ? name + 1 : decl;
	if (!*name || strlen(name) >= sizeof(f->name))
		return -1;
	strcpy(f->name, name);
	f->offset = off;
	f->size = size;
	f->is_signed = sign;
	return 0;
}

errcode_t bp_ev_format_parse(FILE *fp, const char *path, struct bp_ev_format *f,
			     struct bp_err *err)
{
	unsigned long lineno = 0;
	char line[2048], *p;

	memset(f, 0, sizeof(*f));
	while (fgets(line, sizeof(line), fp)) {
		lineno++;
		trim(line);
		p = line + strspn(line, " \t");
		if (strncmp(p, "name: ", 6) == 0) {
			snprintf(f->name, sizeof(f->name), "%s", p + 6);
		} else if (strncmp(p, "ID: ", 4) == 0) {
			f->id = (unsigned int)strtoul(p + 4, NULL, 10);
		} else if (strncmp(p, "field:", 6) == 0) {
			if (f->nfields == BP_EV_FIELDS_MAX)
				continue;	/* more than we need to know */
			if (parse_field(p, &f->fields[f->nfields]) < 0)
				return bp_err_set(err, BP_ET_UNSUPPORTED, "%s:%lu: cannot parse '%s'",
						  path, lineno, p);
			f->nfields++;
		} else if (strncmp(p, "print fmt: ", 11) == 0) {
			snprintf(f->print_fmt, sizeof(f->print_fmt), "%s", p + 11);
		}
	}
	if (!f->name[0] || !f->nfields || !f->print_fmt[0])
		return bp_err_set(err, BP_ET_UNSUPPORTED,
				  "%s: not an event format file (no name, fields or print fmt)",
				  path);
	return 0;
}

const struct bp_ev_field *bp_ev_format_field(const struct bp_ev_format *f, const char *name)
{
	unsigned int i;

	for (i = 0; i < f->nfields; i++)
		if (strcmp(f->fields[i].name, name) == 0)
			return &f->fields[i];
	return NULL;
}

/* The quoted format string of "print fmt", without the arguments. */
static void fmt_string(const char *print_fmt, char *out, size_t len)
{
	const char *s = strchr(print_fmt, '"'), *e;

	out[0] = '\0';
	if (!s)
		return;
	e = strchr(s + 1, '"');
	if (!e)
		return;
	snprintf(out, len, "%.*s", (int)(e - s - 1), s + 1);
}

static int has_any(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strstr(s, *words))
			return 1;
	return 0;
}

errcode_t bp_ev_format_check(const struct bp_ev_format *f, struct bp_err *err)
{
	static const char *const dev[] = { "dev %d:%d", "dev=%d:%d", NULL };
	static const char *const ino[] = { "ino %lx", "ino=%lx", "ino %llx", "ino=%llx", NULL };
	static const char *const ofs[] = { "ofs=%lu", "ofs=%llu", "ofs=%lld", "ofs=%ld", NULL };
	const struct bp_ev_field *i_ino = bp_ev_format_field(f, "i_ino");
	const struct bp_ev_field *s_dev = bp_ev_format_field(f, "s_dev");
	const struct bp_ev_field *index = bp_ev_format_field(f, "index");
	char fmt[sizeof(f->print_fmt)];

	if (!i_ino || (i_ino->size != 4 && i_ino->size != 8))
		return bp_err_set(err, BP_ET_UNSUPPORTED,
				  "event %s: no 4- or 8-byte i_ino field", f->name);
	if (!s_dev || s_dev->size != 4 || !index)
		return bp_err_set(err, BP_ET_UNSUPPORTED, "event %s: no s_dev or index field",
				  f->name);
	fmt_string(f->print_fmt, fmt, sizeof(fmt));
	if (!has_any(fmt, dev) || !has_any(fmt, ino) || !has_any(fmt, ofs))
		return bp_err_set(err, BP_ET_UNSUPPORTED,
				  "event %s prints \"%s\", a layout this bootpack cannot read "
				  "(it needs dev M:m, ino in hex and ofs= in bytes)",
				  f->name, fmt);
	if (strcmp(f->name, "mm_filemap_get_pages") == 0 ||
	    strcmp(f->name, "mm_filemap_map_pages") == 0) {
		if (!strstr(fmt, "ofs=%lld-%lld") && !strstr(fmt, "ofs=%llu-%llu"))
			return bp_err_set(err, BP_ET_UNSUPPORTED,
					  "event %s prints \"%s\" without a byte range ofs=A-B",
					  f->name, fmt);
	}
	return 0;
}
