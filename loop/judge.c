// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * judge.c --- does reading the pack pay on this machine? Decided from the
 * recorded boots (read boots against control boots), never from the disk's
 * rotational flag.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop.h"

/* "key=value" of one stats line, or NULL. */
static const char *field(const char *line, const char *key)
{
	size_t k = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ') && p[k] == '=')
			return p + k + 1;
		p += k;
	}
	return NULL;
}

static int num(const char *line, const char *key, uint64_t *v)
{
	const char *p = field(line, key);
	char *end;

	if (!p || *p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(p, &end, 10);
	if (errno || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	return 0;
}

int bp_loop_parse_sample(const char *line, struct bp_loop_sample *s)
{
	uint64_t when, files, hit, read = 1, boot_ms = 0;

	memset(s, 0, sizeof(*s));
	if (strncmp(line, "time=", 5) != 0 ||
	    num(line, "time", &when) || num(line, "packed", &s->packed) ||
	    num(line, "resident", &s->resident) || num(line, "changed", &s->changed) ||
	    num(line, "changed_files", &files) || num(line, "hit", &hit) || hit > 100)
		return -EINVAL;
	/* added later: lines without them are read boots of unknown duration */
	if (field(line, "read") && (num(line, "read", &read) || read > 1))
		return -EINVAL;
	if (field(line, "boot_ms") && num(line, "boot_ms", &boot_ms))
		return -EINVAL;
	s->when = (time_t)when;
	s->changed_files = (unsigned int)files;
	s->hit_pct = (unsigned int)hit;
	s->read = (int)read;
	s->boot_ms = boot_ms;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bp_loop_judge(const struct bp_loop_sample *v, size_t n, struct bp_loop_verdict *out)
{
	uint64_t r[BP_LOOP_JUDGE_WINDOW], c[BP_LOOP_JUDGE_WINDOW];
	size_t i = n > BP_LOOP_JUDGE_WINDOW ? n - BP_LOOP_JUDGE_WINDOW : 0;

	memset(out, 0, sizeof(*out));
	for (; i < n; i++) {
		if (!v[i].boot_ms)
			continue;	/* the boot's end was not known */
		if (v[i].read)
			r[out->nread++] = v[i].boot_ms;
		else
			c[out->ncontrol++] = v[i].boot_ms;
	}
	if (out->nread)
		out->read_ms = median(r, out->nread);
	if (out->ncontrol)
		out->control_ms = median(c, out->ncontrol);
	out->decided = out->nread >= BP_LOOP_JUDGE_MIN && out->ncontrol >= BP_LOOP_JUDGE_MIN;
	/* pays: read * 100 < control * (100 - margin), in integers */
	out->pays = out->decided &&
		out->read_ms * 100 < out->control_ms * (100 - BP_LOOP_PAY_MARGIN);
}
