// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-pages.c --- the misses' and the pack's ranges counted in the system's
 * pages (pages.c), not in 4 KiB ones: on a 16 KiB-page kernel two files
 * 8 KiB apart are one stream to the reader
 */
#include <unistd.h>

#include "pages.h"
#include "unit.h"

int main(void)
{
	/* files with sub-page gaps, one a 4 KiB page on, one far */
	const struct bp_span s[] = {
		{ 0, 100 }, { 1000, 3000 }, { 4096, 5000 }, { 12388, 12400 }, { 40000, 40960 },
	};
	const struct bp_span edge[] = { { 0, 4096 }, { 4096, 8192 }, { 8192, 8193 } };

	/* the system's own page size, as getpagesize() gives it */
	CHECK(bp_page_size() == (uint64_t)getpagesize());
	CHECK(bp_page_size() >= 4096 && !(bp_page_size() & (bp_page_size() - 1)));

	CHECK(bp_page_runs(s, 0, 4096) == 0);
	/* 4 KiB: [0, 8192) one run, 12388 a page on, 40000 in the tenth page */
	CHECK(bp_page_runs(s, 5, 4096) == 3);
	/* 16 KiB: [0, 16384) holds the first four, 40000 is in the third page */
	CHECK(bp_page_runs(s, 5, 16384) == 2);
	/* 64 KiB: one page, one run */
	CHECK(bp_page_runs(s, 5, 65536) == 1);
	/* ranges that end and start at a page's edge are one run */
	CHECK(bp_page_runs(edge, 3, 4096) == 1);

	CHECK(bp_page_down(9000, 16384) == 0 && bp_page_up(9000, 16384) == 16384);
	CHECK(bp_page_down(16384, 16384) == 16384 && bp_page_up(16384, 16384) == 16384);
	return unit_exit();
}
