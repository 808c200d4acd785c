// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-reader.c --- make bench-reader helper: a real 10,000-entry pack over real files, rusage
 *
 *   bench-reader mkpack DIR ENTRIES PER_FILE OUT
 *       create ENTRIES/PER_FILE files of PER_FILE * 4 KiB under DIR (if
 *       missing) and write, with the pack writer (pack-write.h), a pack of
 *       ENTRIES 4 KiB entries over them, with their real inode, generation,
 *       size, mtime and the filesystem's UUID, so bootpack-read reads them all
 *   bench-reader run CMD ARGS...
 *       run CMD, print "user_ms sys_ms maxrss_kb wall_ms" of it
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fs.h>

#include "pack-write.h"
#include "reader.h"

static int mkpack(const char *dir, unsigned int nent, unsigned int per, const char *out)
{
	unsigned int nfiles = (nent + per - 1) / per, i, j, k = 0;
	struct bp_pack_wentry *e = calloc(nent, sizeof(*e));
	char **paths = calloc(nfiles, sizeof(*paths));
	static char block[4096];
	struct bp_pack_wdata d;
	struct bp_err err = { 0 };
	struct stat st;
	uint64_t pos = 0;
	size_t len;
	void *buf;
	int dfd;

	if (!e || !paths)
		return 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		perror(dir);
		return 1;
	}
	memset(&d, 0, sizeof(d));
	bp_reader_fs_uuid(dfd, d.uuid);	/* zero if unknown: the reader skips the check */
	close(dfd);
	d.block_size = 4096;
	d.dev_major = major(st.st_dev);
	d.dev_minor = minor(st.st_dev);
	d.created = 1767225600;
	d.feature_compat = BP_PACK_COMPAT_MTIME_NSEC;
	d.compress = BP_PACK_COMPRESS_AUTO;
	memset(block, 0x5a, sizeof(block));
	for (i = 0; i < nfiles; i++) {
		char full[4096];
		long gen = 0;
		int fd;

		if (asprintf(&paths[i], "/bench/f%05u", i) < 0)
			return 1;
		snprintf(full, sizeof(full), "%s%s", dir, paths[i]);
		if (i == 0) {
			snprintf(full, sizeof(full), "%s/bench", dir);
			mkdir(full, 0755);
			snprintf(full, sizeof(full), "%s%s", dir, paths[i]);
		}
		fd = open(full, O_RDWR | O_CREAT, 0644);
		if (fd < 0) {
			perror(full);
			return 1;
		}
		if (fstat(fd, &st) == 0 && st.st_size != (off_t)per * 4096)
			for (j = 0; j < per; j++)
				if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
					return 1;
		fsync(fd);
		fstat(fd, &st);
		ioctl(fd, FS_IOC_GETVERSION, &gen);
		close(fd);
		for (j = 0; j < per && k < nent; j++, k++) {
			e[k].offset = (uint64_t)j * 4096;
			e[k].length = 4096;
			e[k].phys = (uint64_t)k * 4096 + (1 << 20);
			pos += 4096;
			e[k].budget_pos = pos;
			e[k].size = (uint64_t)st.st_size;
			e[k].mtime_sec = st.st_mtim.tv_sec;
			e[k].mtime_nsec = (uint32_t)st.st_mtim.tv_nsec;
			e[k].ino = (uint32_t)st.st_ino;
			e[k].generation = (uint32_t)gen;
			e[k].file = i;
		}
	}
	d.entries = e;
	d.nentries = k;
	d.paths = (const char *const *)paths;
	d.npaths = nfiles;
	if (bp_pack_serialize(&d, &buf, &len, &err) || bp_pack_save(out, buf, len, &err)) {
		fprintf(stderr, "bench-reader: cannot write %s: %s\n", out, err.msg);
		return 1;
	}
	printf("%s: %u entries, %u files, %zu bytes (%.1f bytes per entry)\n", out, k, nfiles, len,
	       (double)len / k);
	free(buf);
	for (i = 0; i < nfiles; i++)
		free(paths[i]);
	free(paths);
	free(e);
	return 0;
}

static int run(char **argv)
{
	struct rusage ru;
	uint64_t t0 = bp_reader_now_ms();
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return 1;
	printf("%ld.%03ld %ld.%03ld %ld %llu\n",
	       (long)ru.ru_utime.tv_sec * 1000 + (long)ru.ru_utime.tv_usec / 1000,
	       (long)ru.ru_utime.tv_usec % 1000,
	       (long)ru.ru_stime.tv_sec * 1000 + (long)ru.ru_stime.tv_usec / 1000,
	       (long)ru.ru_stime.tv_usec % 1000, ru.ru_maxrss,
	       (unsigned long long)(bp_reader_now_ms() - t0));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "mkpack") == 0)
		return mkpack(argv[2], (unsigned int)atoi(argv[3]), (unsigned int)atoi(argv[4]),
			      argv[5]);
	if (argc > 2 && strcmp(argv[1], "run") == 0)
		return run(argv + 2);
	fprintf(stderr, "usage: bench-reader mkpack DIR ENTRIES PER_FILE OUT | run CMD...\n");
	return 2;
}
