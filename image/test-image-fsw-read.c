// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-image-fsw-read.c --- bp_fsw_read() on an ext4 image mke2fs -d built
 * from a directory here: a file, one through a symbolic link, an empty one,
 * one longer than the buffer (cut at len - 1), a missing path, a directory
 * and a FIFO; every text checked against the source file read with stdio
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "image.h"
#include "unit.h"

#define BIG_SIZE 20000	/* several 4 KiB blocks, past the 4096-byte buffer below */

static char dir[240];	/* $TMPDIR/bp-fsw-read.XXXXXX */

static void at(char *path, size_t len, const char *name)
{
	if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len) {
		fprintf(stderr, "%s/%s: path too long\n", dir, name);
		exit(EXIT_FAILURE);
	}
}

static void put(const char *name, const char *text, size_t len)
{
	char path[256];
	FILE *f;

	at(path, sizeof(path), name);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

/* The oracle: the source file's bytes, NUL-terminated; *len its size. */
static char *source(const char *name, size_t *len)
{
	char path[256], *buf;
	struct stat st;
	FILE *f;

	at(path, sizeof(path), name);
	f = fopen(path, "r");
	if (!f || fstat(fileno(f), &st) || !(buf = malloc((size_t)st.st_size + 1)) ||
	    fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	fclose(f);
	buf[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return buf;
}

/* Run argv; its exit status (127: not found). */
static int run(const char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* bp_fsw_read of path with a len-byte buffer (filled with 'x' first). */
static errcode_t read_it(ext2_filsys fs, const char *path, char *buf, size_t len, size_t *got)
{
	memset(buf, 'x', len);
	*got = 12345;
	return bp_fsw_read(fs, path, buf, len, got);
}

/* The whole of the source file name read back through path. */
static void check_whole(ext2_filsys fs, const char *path, const char *name)
{
	char buf[4096];
	size_t len, got;
	char *want = source(name, &len);

	CHECK(len < sizeof(buf));
	CHECK(read_it(fs, path, buf, sizeof(buf), &got) == 0);
	CHECK(got == len && memcmp(buf, want, len) == 0 && buf[len] == '\0');
	free(want);
}

/* path is refused with rc, leaving "" and *got 0. */
static void check_refused(ext2_filsys fs, const char *path, errcode_t rc)
{
	char buf[64];
	size_t got;

	CHECK(read_it(fs, path, buf, sizeof(buf), &got) == rc);
	CHECK(buf[0] == '\0' && got == 0);
}

static void test_big(ext2_filsys fs)
{
	size_t len, got, n;
	char *want = source("root/big", &len), *buf = malloc(BIG_SIZE + 2);

	CHECK(len == BIG_SIZE && buf);
	if (!buf)
		return;
	/* cut at len - 1 bytes: not an error */
	CHECK(read_it(fs, "/big", buf, 4096, &got) == 0);
	CHECK(got == 4095 && memcmp(buf, want, 4095) == 0 && buf[4095] == '\0');
	/* room for all but the last byte, then for all of it */
	CHECK(read_it(fs, "/big", buf, BIG_SIZE, &got) == 0);
	CHECK(got == BIG_SIZE - 1 && memcmp(buf, want, got) == 0 && buf[got] == '\0');
	CHECK(read_it(fs, "/big", buf, BIG_SIZE + 1, &got) == 0);
	CHECK(got == BIG_SIZE && memcmp(buf, want, got) == 0 && buf[got] == '\0');
	CHECK(read_it(fs, "/big", buf, BIG_SIZE + 2, &got) == 0);
	CHECK(got == BIG_SIZE && memcmp(buf, want, got) == 0 && buf[got] == '\0');
	CHECK(buf[BIG_SIZE + 1] == 'x');	/* nothing written past the NUL */
	/* a one-byte buffer holds the NUL only */
	CHECK(read_it(fs, "/big", buf, 1, &got) == 0 && got == 0 && buf[0] == '\0');
	/* no room at all: refused, buf untouched */
	buf[0] = 'x';
	CHECK(bp_fsw_read(fs, "/big", buf, 0, &got) == EINVAL && got == 0 && buf[0] == 'x');
	/* got may be NULL */
	n = 100;
	memset(buf, 'x', n);
	CHECK(bp_fsw_read(fs, "/big", buf, n, NULL) == 0 && memcmp(buf, want, n - 1) == 0 &&
	      buf[n - 1] == '\0');
	free(buf);
	free(want);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[256], img[256], *big;
	ext2_filsys fs = NULL;
	size_t i;
	int rc;

	snprintf(dir, sizeof(dir), "%s/bp-fsw-read.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	at(path, sizeof(path), "root");
	CHECK(mkdir(path, 0755) == 0);
	at(path, sizeof(path), "root/etc");
	CHECK(mkdir(path, 0755) == 0);
	at(path, sizeof(path), "root/dir");
	CHECK(mkdir(path, 0755) == 0);
	put("root/dir/inside", "a name in the directory\n", 24);
	put("root/etc/fstab", "# /etc/fstab\nLABEL=root / ext4 defaults 0 1\n", 44);
	put("root/empty", "", 0);
	big = malloc(BIG_SIZE);
	if (!big)
		return EXIT_FAILURE;
	for (i = 0; i < BIG_SIZE; i++)	/* no NUL byte, no period shorter than the file */
		big[i] = (char)('!' + (i * 7 + i / 89) % 90);
	put("root/big", big, BIG_SIZE);
	free(big);
	at(path, sizeof(path), "root/link");
	CHECK(symlink("etc/fstab", path) == 0);
	at(path, sizeof(path), "root/fifo");
	CHECK(mkfifo(path, 0644) == 0);

	at(path, sizeof(path), "root");
	at(img, sizeof(img), "fs.img");
	{
		const char *const argv[] = { "mke2fs", "-q", "-F", "-t", "ext4", "-d", path, img,
					     "8M", NULL };

		rc = run(argv);
	}
	if (rc == 127) {
		printf("SKIP: no mke2fs\n");
		rc = 77;
		goto out;
	}
	CHECK(rc == 0);
	if (rc || ext2fs_open(img, 0, 0, 0, unix_io_manager, &fs)) {
		fprintf(stderr, "%s: cannot make or open the image\n", img);
		rc = EXIT_FAILURE;
		goto out;
	}

	check_whole(fs, "/etc/fstab", "root/etc/fstab");
	check_whole(fs, "/dir/inside", "root/dir/inside");
	check_whole(fs, "/link", "root/etc/fstab");	/* the link followed */
	check_whole(fs, "/empty", "root/empty");
	test_big(fs);

	check_refused(fs, "/nope", ENOENT);
	check_refused(fs, "/nope/fstab", ENOENT);
	check_refused(fs, "/etc/nope", ENOENT);
	check_refused(fs, "/dir", EISDIR);
	check_refused(fs, "/etc/", EISDIR);
	check_refused(fs, "/", EISDIR);
	check_refused(fs, "/fifo", EISDIR);
	{
		/* through a file as if a directory: libext2fs' code, still "" */
		char buf[16];
		size_t got;

		CHECK(read_it(fs, "/etc/fstab/x", buf, sizeof(buf), &got) != 0);
		CHECK(buf[0] == '\0' && got == 0);
	}
	ext2fs_close_free(&fs);
	rc = unit_exit();
out:
	{
		const char *const argv[] = { "rm", "-rf", dir, NULL };

		run(argv);
	}
	return rc;
}
