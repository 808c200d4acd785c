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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

#define CPULOOP_EXEC_ROUNDS	300
#define CPULOOP_EXEC_MAP	(2u << 20)	/* touched by each child: 512 page faults */

static inline uint64_t cpuloop_rusage_ns(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/*
 * The kernel's share of a boot, which the loops above do not have: rounds
 * of fork, page faults on a fresh 2 MiB mapping in the child, execve of a
 * static binary (path, run as "true") and wait. TCG pays far more for these
 * (page tables, TLB flushes, system calls) than for plain loads. Fills the
 * wall time and the CPU time of the process and its children; returns -1 if
 * a child failed (path not runnable).
 */
static inline int cpuloop_exec(unsigned rounds, const char *path, uint64_t *wall, uint64_t *cpu)
{
	char *const argv[] = { (char *)"true", NULL };
	char *const envp[] = { NULL };
	uint64_t w0 = cpuloop_ns(CLOCK_MONOTONIC);
	uint64_t c0 = cpuloop_rusage_ns(RUSAGE_SELF) + cpuloop_rusage_ns(RUSAGE_CHILDREN);
	unsigned i;
	int st;

	for (i = 0; i < rounds; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -1;
		if (pid == 0) {
			volatile char *m = mmap(NULL, CPULOOP_EXEC_MAP, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			size_t o;

			if (m == MAP_FAILED)
				_exit(126);
			for (o = 0; o < CPULOOP_EXEC_MAP; o += 4096)
				m[o] = (char)o;
			execve(path, argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return -1;
	}
	*wall = cpuloop_ns(CLOCK_MONOTONIC) - w0;
	*cpu = cpuloop_rusage_ns(RUSAGE_SELF) + cpuloop_rusage_ns(RUSAGE_CHILDREN) - c0;
	return 0;
}

#endif /* BENCH_CPULOOP_H */
