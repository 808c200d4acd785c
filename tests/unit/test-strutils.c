// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-strutils.c --- size and number parsing
 */
#include <errno.h>
#include <string.h>

#include "strutils.h"
#include "unit.h"

static uint64_t size(const char *s, int *rc)
{
	uint64_t v = 0xdead;

	*rc = bp_parse_size(s, &v);
	return v;
}

int main(void)
{
	char buf[32];
	uint64_t v;
	int rc;

	CHECK(size("75M", &rc) == 75ULL << 20 && rc == 0);
	CHECK(size("75MiB", &rc) == 75ULL << 20 && rc == 0);
	CHECK(size("75MB", &rc) == 75000000ULL && rc == 0);
	CHECK(size("4096", &rc) == 4096 && rc == 0);
	CHECK(size("4096B", &rc) == 4096 && rc == 0);
	CHECK(size("1k", &rc) == 1024 && rc == 0);
	CHECK(size("2G", &rc) == 2ULL << 30 && rc == 0);
	CHECK(size("3T", &rc) == 3ULL << 40 && rc == 0);
	size("", &rc);
	CHECK(rc == -EINVAL);
	size("M", &rc);
	CHECK(rc == -EINVAL);
	size("-1M", &rc);
	CHECK(rc == -EINVAL);
	size("12X", &rc);
	CHECK(rc == -EINVAL);
	size("1.5M", &rc);
	CHECK(rc == -EINVAL);
	size("99999999999999999999", &rc);
	CHECK(rc == -ERANGE);
	size("20000000T", &rc);
	CHECK(rc == -ERANGE);

	CHECK(bp_parse_u64("0x10", &v) == 0 && v == 16);
	CHECK(bp_parse_u64("42", &v) == 0 && v == 42);
	CHECK(bp_parse_u64("42a", &v) == -EINVAL);
	CHECK(bp_parse_u64("-3", &v) == -EINVAL);
	CHECK(bp_parse_u64(" 3", &v) == -EINVAL);
	CHECK(bp_parse_u64("", &v) == -EINVAL);

	CHECK(strcmp(bp_size_human(512, buf, sizeof(buf)), "512 B") == 0);
	CHECK(strcmp(bp_size_human(75ULL << 20, buf, sizeof(buf)), "75.0 MiB") == 0);
	CHECK(strcmp(bp_size_human(1536, buf, sizeof(buf)), "1.5 KiB") == 0);
	return unit_exit();
}
