/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pages.h --- ranges on the disk counted in the system's pages, as the page
 * cache (and so the reader) reads them
 */
#ifndef BP_LOOP_PAGES_H
#define BP_LOOP_PAGES_H

#include <stddef.h>
#include <stdint.h>

struct bp_span {
	uint64_t start, end;	/* bytes on the device, end excluded */
};

/* The page size of this system (sysconf(_SC_PAGESIZE)); 4096 if it gives none that is one. */
uint64_t bp_page_size(void);

static inline uint64_t bp_page_down(uint64_t b, uint64_t page)
{
	return b / page * page;
}

static inline uint64_t bp_page_up(uint64_t b, uint64_t page)
{
	return (b + page - 1) / page * page;
}

/*
 * Runs of whole pages that the sorted ranges s[0..n) touch: two ranges in
 * one page or in pages that follow each other are one run (one stream to
 * the reader, where byte ranges would count a request per file).
 */
uint64_t bp_page_runs(const struct bp_span *s, size_t n, uint64_t page);

#endif /* BP_LOOP_PAGES_H */
