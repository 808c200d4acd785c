// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pages.c --- ranges on the disk counted in the system's pages (pages.h)
 */
#include <unistd.h>

#include "pages.h"

uint64_t bp_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	/* a power of two, 512 bytes at least: else the common 4 KiB */
	if (p < 512 || (p & (p - 1)))
		return 4096;
	return (uint64_t)p;
}

uint64_t bp_page_runs(const struct bp_span *s, size_t n, uint64_t page)
{
	uint64_t runs = 0, end = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!runs || bp_page_down(s[i].start, page) > end)
			runs++;
		if (bp_page_up(s[i].end, page) > end)
			end = bp_page_up(s[i].end, page);
	}
	return runs;
}
