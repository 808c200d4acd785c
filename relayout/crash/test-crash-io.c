// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-crash-io.c --- unit test of crash_io: cache, overlay, barrier, power cut, torn sectors
 *
 * The power cut ends the process, so each crash case re-runs this program
 * ("test-crash-io child FILE") with the BP_CRASH_* environment and checks
 * the file it leaves (the child's script is in child()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "crash_io.h"

#define BS 4096
#define NBLK 10

static int failures;

#define CHECK(cond, ...)                                                                     \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                 \
			fprintf(stderr, __VA_ARGS__);                                        \
			fputc('\n', stderr);                                                 \
			failures++;                                                          \
		}                                                                            \
	} while (0)

/* The content of block b: every byte is 'a' + b (the file starts as zeros). */
static void fill(char *buf, int b)
{
	memset(buf, 'a' + b, BS);
}

static void make_file(const char *path)
{
	char zero[BS] = { 0 };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), i;

	if (fd < 0) {
		perror(path);
		exit(99);
	}
	for (i = 0; i < NBLK; i++)
		if (write(fd, zero, BS) != BS)
			exit(99);
	close(fd);
}

static void read_file(const char *path, char *all)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, all, (size_t)NBLK * BS) != NBLK * BS)
		exit(99);
	close(fd);
}

/*
 * The child's script: writes 1-4 = blocks 0-3, flush, write 5 = block 4,
 * write 6 = blocks 5-6 (one 2-block write), write 7 = block 7, close.
 */
static int child(const char *path)
{
	io_channel ch;
	char buf[2 * BS];
	int b;

	if (crash_io_manager->open(path, IO_FLAG_RW, &ch))
		return 98;
	io_channel_set_blksize(ch, BS);
	for (b = 0; b < 4; b++) {
		fill(buf, b);
		io_channel_write_blk64(ch, (unsigned long long)b, 1, buf);
	}
	io_channel_flush(ch);
	fill(buf, 4);
	io_channel_write_blk64(ch, 4, 1, buf);
	fill(buf, 5);
	fill(buf + BS, 6);
	io_channel_write_blk64(ch, 5, 2, buf);
	fill(buf, 7);
	io_channel_write_blk64(ch, 7, 1, buf);
	io_channel_close(ch);
	return 0;
}

static int run_child(const char *self, const char *path, const char *const *env)
{
	pid_t pid = fork();
	int st, i;

	if (pid < 0)
		exit(99);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDERR_FILENO);	/* the "power cut at" line */
		unsetenv("BP_CRASH_AT");
		unsetenv("BP_CRASH_PREFIX");
		unsetenv("BP_CRASH_TORN");
		unsetenv("BP_CRASH_SECTOR");
		unsetenv("BP_CRASH_SEED");
		unsetenv("BP_CRASH_COUNT");
		for (i = 0; env[i]; i++)
			putenv((char *)env[i]);
		execl(self, self, "child", path, (char *)NULL);
		_exit(97);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Which state is block b in: 0 = zeros, 1 = new, 2 = mixed (torn), 3 = other. */
static int state(const char *all, int b, size_t unit)
{
	const char *p = all + (size_t)b * BS;
	size_t i, nz = 0, nn = 0;

	for (i = 0; i < BS; i++) {
		if (p[i] == 0)
			nz++;
		else if (p[i] == 'a' + b)
			nn++;
		else
			return 3;
	}
	/* Torn only at unit boundaries. */
	for (i = 0; i < BS; i += unit)
		if (memchr(p + i, 0, unit) && memchr(p + i, 'a' + b, unit))
			return 3;
	return nz == BS ? 0 : nn == BS ? 1 : 2;
}

static void test_in_process(const char *path)
{
	io_channel ch;
	char buf[BS], all[NBLK * BS], sb[1024];
	io_stats st = NULL;

	make_file(path);
	CHECK(!crash_io_manager->open(path, IO_FLAG_RW, &ch), "open");
	io_channel_set_blksize(ch, BS);
	fill(buf, 2);
	CHECK(!io_channel_write_blk64(ch, 2, 1, buf), "write");
	memset(buf, 0, BS);
	CHECK(!io_channel_read_blk64(ch, 2, 1, buf) && buf[0] == 'c' && buf[BS - 1] == 'c',
	      "a read sees the pending write");
	read_file(path, all);
	CHECK(all[2 * BS] == 0, "a pending write is not on disk before the flush");
	/* Negative count = bytes: 1024 bytes at block 1 of 1024 (the superblock write). */
	io_channel_set_blksize(ch, 1024);
	memset(sb, 'S', sizeof(sb));
	CHECK(!io_channel_write_blk64(ch, 1, -1024, sb), "byte write");
	CHECK(io_channel_write_byte(ch, 1024, 2, sb) == EXT2_ET_UNIMPLEMENTED,
	      "write_byte must be unimplemented");
	memset(buf, 0, 2048);
	CHECK(!io_channel_read_blk64(ch, 0, -2048, buf) && buf[0] == 0 && buf[1024] == 'S' &&
		      buf[2047] == 'S',
	      "a byte read overlays the byte write");
	CHECK(!io_channel_flush(ch), "flush");
	read_file(path, all);
	CHECK(all[1024] == 'S' && all[2047] == 'S' && all[2048] == 0 && all[2 * BS] == 'c',
	      "the flush applies the queue");
	CHECK(!ch->manager->get_stats(ch, &st) && st && st->bytes_written == BS + 1024, "stats");
	CHECK(crash_io_writes() == 2 && crash_io_flushes() == 1, "counters %llu %llu",
	      (unsigned long long)crash_io_writes(), (unsigned long long)crash_io_flushes());
	CHECK(!io_channel_close(ch), "close");
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/test-crash-io.XXXXXX", cnt[64], all[NBLK * BS], line[64];
	const char *const env_count[] = { cnt, NULL };
	const char *const env_prefix[] = { "BP_CRASH_AT=6", "BP_CRASH_PREFIX=1", NULL };
	const char *const env_first[] = { "BP_CRASH_AT=1", "BP_CRASH_PREFIX=1", NULL };
	int fd, b, seed, seen_dropped = 0, seen_kept = 0, seen_torn = 0;
	FILE *f;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	fd = mkstemp(path);
	if (fd < 0)
		return 99;
	close(fd);
	snprintf(cnt, sizeof(cnt), "BP_CRASH_COUNT=%s.count", path);

	test_in_process(path);

	/* Count: 7 write calls, 1 flush; everything lands at close. */
	make_file(path);
	CHECK(run_child(argv[0], path, env_count) == 0, "count run");
	snprintf(line, sizeof(line), "%s.count", path);
	f = fopen(line, "r");
	CHECK(f && fgets(line, sizeof(line), f) && !strcmp(line, "writes 7\n"), "count file");
	if (f)
		fclose(f);
	snprintf(line, sizeof(line), "%s.count", path);
	unlink(line);
	read_file(path, all);
	for (b = 0; b < 8; b++)
		CHECK(state(all, b, BS) == 1, "complete run: block %d", b);

	/* BP_CRASH_DEVICE: writes to other files are not crash points. */
	{
		const char *const env_other[] = { cnt, "BP_CRASH_DEVICE=.other", NULL };

		make_file(path);
		CHECK(run_child(argv[0], path, env_other) == 0, "count run, other device");
		snprintf(line, sizeof(line), "%s.count", path);
		f = fopen(line, "r");
		CHECK(f && fgets(line, sizeof(line), f) && !strcmp(line, "writes 0\n"),
		      "BP_CRASH_DEVICE excludes the file");
		if (f)
			fclose(f);
		snprintf(line, sizeof(line), "%s.count", path);
		unlink(line);
		read_file(path, all);
		CHECK(state(all, 7, BS) == 1, "uncounted writes still land");
	}

	/* Prefix at write 6 (blocks 5-6): blocks 0-6 land, block 7 was never issued. */
	make_file(path);
	CHECK(run_child(argv[0], path, env_prefix) == BP_CRASH_EXIT, "prefix run exits 99");
	read_file(path, all);
	for (b = 0; b < 7; b++)
		CHECK(state(all, b, BS) == 1, "prefix: block %d", b);
	CHECK(state(all, 7, BS) == 0, "prefix: block 7 not written");

	/* Power cut at the very first write: with prefix it lands, nothing else. */
	make_file(path);
	CHECK(run_child(argv[0], path, env_first) == BP_CRASH_EXIT, "first-write run");
	read_file(path, all);
	CHECK(state(all, 0, BS) == 1 && state(all, 1, BS) == 0, "first write only");

	/* Random subsets at write 6: blocks 0-3 durable (flushed), 4-6 any, 7 never. */
	for (seed = 1; seed <= 40; seed++) {
		char s_seed[32];
		const char *env_rand[] = { "BP_CRASH_AT=6", s_seed, NULL };

		snprintf(s_seed, sizeof(s_seed), "BP_CRASH_SEED=%d", seed);
		make_file(path);
		CHECK(run_child(argv[0], path, env_rand) == BP_CRASH_EXIT, "random run");
		read_file(path, all);
		for (b = 0; b < 4; b++)
			CHECK(state(all, b, BS) == 1, "seed %d: flushed block %d lost", seed, b);
		for (b = 4; b < 7; b++) {
			int s = state(all, b, BS);

			CHECK(s == 0 || s == 1, "seed %d: block %d torn without BP_CRASH_TORN", seed,
			      b);
			seen_kept += s == 1;
			seen_dropped += s == 0;
		}
		CHECK(state(all, 5, BS) == state(all, 6, BS), "seed %d: 2-block write split", seed);
		CHECK(state(all, 7, BS) == 0, "seed %d: block 7 written", seed);
	}
	CHECK(seen_kept && seen_dropped, "random subsets keep some writes and drop others");

	/* Torn at 512 bytes: the 2-block write may split and tear; at 4096 it may only split. */
	for (seed = 1; seed <= 40; seed++) {
		char s_seed[32];
		const char *env_512[] = { "BP_CRASH_AT=6", "BP_CRASH_TORN=1", s_seed, NULL };
		const char *env_4k[] = { "BP_CRASH_AT=6", "BP_CRASH_TORN=1", "BP_CRASH_SECTOR=4096",
					 s_seed, NULL };

		snprintf(s_seed, sizeof(s_seed), "BP_CRASH_SEED=%d", seed);
		make_file(path);
		CHECK(run_child(argv[0], path, env_512) == BP_CRASH_EXIT, "torn run");
		read_file(path, all);
		for (b = 5; b < 7; b++) {
			int s = state(all, b, 512);

			CHECK(s != 3, "seed %d: block %d torn inside a sector", seed, b);
			seen_torn += s == 2;
		}
		make_file(path);
		CHECK(run_child(argv[0], path, env_4k) == BP_CRASH_EXIT, "torn 4k run");
		read_file(path, all);
		for (b = 4; b < 7; b++)
			CHECK(state(all, b, BS) == 0 || state(all, b, BS) == 1,
			      "seed %d: block %d torn below 4 KiB", seed, b);
	}
	CHECK(seen_torn, "torn writes happen at 512 bytes");

	unlink(path);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("test-crash-io: ok\n");
	return failures ? 1 : 0;
}
