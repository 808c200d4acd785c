/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpuloop.h --- the fixed CPU loop that measures how much slower the guest
 * CPU is under QEMU TCG than the host's (bench-calib on the host, the
 * monitor in the guest). Integer hashing plus dependent loads over an 8 MiB
 * table: ALU, loads and TLB misses, the mix a booting system also has.
 */
#ifndef BENCH_CPULOOP_H
#define BENCH_CPULOOP_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define CPULOOP_TABLE	(256u << 10)	/* the primary loop: fits in caches and TLBs */
#define CPULOOP_TABLE_BIG	(8u << 20)	/* secondary: TLB misses everywhere */

static inline uint64_t cpuloop_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Run iters rounds over a table of size bytes (a power of two); returns a
 * checksum so the loop cannot be optimised out. */
static inline uint64_t cpuloop_run_table(uint64_t iters, uint32_t size)
{
	uint32_t *t = calloc(size / 4, 4);
	uint64_t x = 0x9e3779b97f4a7c15ull, acc = 0, i;
	const uint32_t mask = size / 4 - 1;

	if (!t)
		return 0;
	for (i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		t[x & mask] += (uint32_t)i;
		acc += t[(x >> 32) & mask] * 0x2545f4914f6cdd1dull;
	}
	free(t);
	return acc;
}

static inline uint64_t cpuloop_run(uint64_t iters)
{
	return cpuloop_run_table(iters, CPULOOP_TABLE);
}

/* Time both loops; fills wall/cpu ns of the small (0) and big (1) table. */
static inline uint64_t cpuloop_time(uint64_t iters, uint64_t wall[2], uint64_t cpu[2])
{
	uint64_t w0, c0, sum = 0;
	int k;

	for (k = 0; k < 2; k++) {
		w0 = cpuloop_ns(CLOCK_MONOTONIC);
		c0 = cpuloop_ns(CLOCK_PROCESS_CPUTIME_ID);
		sum += cpuloop_run_table(iters, k ? CPULOOP_TABLE_BIG : CPULOOP_TABLE);
		wall[k] = cpuloop_ns(CLOCK_MONOTONIC) - w0;
		cpu[k] = cpuloop_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	return sum;
}

#endif /* BENCH_CPULOOP_H */
