// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-reader-cpu.c --- unit tests of bootpack-read's CPU time, across the fork of --background
 *
 * A summary once said "18446744073709551591 ms CPU": --background forks in
 * the middle of bp_reader_run(), the child's getrusage(2) starts again from
 * 0, and its end time minus the caller's start time went below zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "pack-format.h"
#include "pack-parse.h"
#include "reader.h"
#include "unit.h"

#define PARENT_BURN_MS	200	/* CPU the caller has used before the run */
#define CHILD_BURN_MS	30	/* CPU the child uses in the run */

static void burn_until(uint64_t cpu_ms)
{
	volatile uint64_t x = 0;

	while (bp_reader_cpu_ms() < cpu_ms)
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
}

static void test_between(void)
{
	CHECK(bp_reader_ms_between(75, 100) == 25);
	CHECK(bp_reader_ms_between(100, 100) == 0);
	/* an end before the start: 0, never 2^64 - 25 */
	CHECK(bp_reader_ms_between(100, 75) == 0);
	CHECK(bp_reader_ms_between(UINT64_MAX, 0) == 0);
	CHECK(bp_reader_ms_between(0, UINT64_MAX) == UINT64_MAX);
}

/* The fork's clock: a child's CPU time starts again from 0. */
static void test_fork_clock(void)
{
	uint64_t start;
	pid_t pid;
	int ws;

	burn_until(PARENT_BURN_MS);
	start = bp_reader_cpu_ms();
	CHECK(start >= PARENT_BURN_MS);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(bp_reader_ms_between(start, bp_reader_cpu_ms()) == 0 ? 0 : 1);
	CHECK(waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

static int result_fd = -1;

/* --background's ready(), as go_background() does it: the child reads on */
static void fork_ready(void)
{
	uint64_t child_cpu[2] = { 0, 0 };
	pid_t pid = fork();
	int ws;

	if (pid < 0) {
		CHECK(pid >= 0);
		return;
	}
	if (pid == 0) {
		burn_until(CHILD_BURN_MS);
		return;
	}
	CHECK(waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	CHECK(read(result_fd, child_cpu, sizeof(child_cpu)) == (ssize_t)sizeof(child_cpu));
	fprintf(stderr, "child: %llu ms CPU, figure %llu ms CPU\n",
		(unsigned long long)child_cpu[1], (unsigned long long)child_cpu[0]);
	/* the child's figure: its own CPU (and the caller's bit before the fork) */
	CHECK(child_cpu[0] >= CHILD_BURN_MS && child_cpu[0] <= child_cpu[1] + 1000);
	_exit(unit_exit());
}

/* valid-empty.pack of the fuzz corpus, its UUID zeroed (no check against the root) */
static struct bp_pack *empty_pack(void)
{
	static uint8_t b[4096];
	struct bp_pack *p = NULL;
	uint32_t hs;
	ssize_t len;
	int fd = open(PACK_CORPUS_DIR "/valid-empty.pack", O_RDONLY);

	CHECK(fd >= 0);
	len = read(fd, b, sizeof(b));
	close(fd);
	CHECK(len > BP_PACK_OFF_HDR_SIZE + 4);
	if (len <= BP_PACK_OFF_HDR_SIZE + 4)
		return NULL;
	hs = bp_get_le32(b + BP_PACK_OFF_HDR_SIZE);
	CHECK(hs <= (size_t)len && hs > BP_PACK_OFF_UUID + 16);
	memset(b + BP_PACK_OFF_UUID, 0, 16);
	bp_put_le32(b + BP_PACK_OFF_HEADER_CRC, 0);
	bp_put_le32(b + BP_PACK_OFF_HEADER_CRC, (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, hs));
	CHECK(bp_pack_open_mem(b, (size_t)len, &p) == 0);
	return p;
}

/*
 * bp_reader_run() with a ready() that forks after the caller used more CPU
 * than the child will: the child's cpu_ms is its own CPU, not end - start
 * across two clocks.
 */
static void test_run_forks(void)
{
	struct bp_reader_opts o;
	struct bp_reader_stats st;
	struct bp_pack *p = empty_pack();
	const char *why = NULL;
	int fds[2];

	if (!p)
		return;
	CHECK(pipe(fds) == 0);
	result_fd = fds[0];
	memset(&o, 0, sizeof(o));
	o.root = "/";
	o.method = BP_READ_PREAD;
	o.no_meta = 1;
	o.ready = fork_ready;
	burn_until(PARENT_BURN_MS);
	CHECK(bp_reader_run(p, &o, &st, &why) == 0);
	/* only the child comes here: the caller ends in fork_ready() */
	{
		uint64_t res[2] = { st.cpu_ms, bp_reader_cpu_ms() };

		CHECK(write(fds[1], res, sizeof(res)) == (ssize_t)sizeof(res));
	}
	bp_pack_free(p);
	_exit(unit_exit());
}

int main(void)
{
	test_between();
	test_fork_clock();
	test_run_forks();
	return unit_exit();
}
