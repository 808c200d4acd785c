// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * strutils.c --- parsing and printing numbers and sizes (libc only: also
 * linked into bootpack-read)
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "c.h"
#include "strutils.h"

int bp_parse_u64(const char *str, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!str || !*str || *str == '-' || isspace((unsigned char)*str))
		return -EINVAL;
	errno = 0;
	v = strtoull(str, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == str || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

struct size_suffix {
	const char *name;
	uint64_t mult;
};

static const struct size_suffix suffixes[] = {
	{ "", 1 },		{ "B", 1 },
	{ "K", 1ULL << 10 },	{ "KiB", 1ULL << 10 },	{ "KB", 1000ULL },
	{ "M", 1ULL << 20 },	{ "MiB", 1ULL << 20 },	{ "MB", 1000000ULL },
	{ "G", 1ULL << 30 },	{ "GiB", 1ULL << 30 },	{ "GB", 1000000000ULL },
	{ "T", 1ULL << 40 },	{ "TiB", 1ULL << 40 },	{ "TB", 1000000000000ULL },
};

int bp_parse_size(const char *str, uint64_t *ret)
{
	unsigned long long v;
	char *end;
	size_t i;

	if (!str || !isdigit((unsigned char)*str))
		return -EINVAL;
	errno = 0;
	v = strtoull(str, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == str)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(suffixes); i++) {
		if (strcasecmp(end, suffixes[i].name) != 0)
			continue;
		/* "k" is accepted as "K", but "kb"/"Kb" mean 1000 as "KB" does. */
		if (v > UINT64_MAX / suffixes[i].mult)
			return -ERANGE;
		*ret = v * suffixes[i].mult;
		return 0;
	}
	return -EINVAL;
}

char *bp_size_human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024.0 && u < ARRAY_SIZE(units) - 1) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

const char *bp_size_str(uint64_t bytes, int raw, char *buf, size_t len)
{
	if (!raw)
		return bp_size_human(bytes, buf, len);
	snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}
