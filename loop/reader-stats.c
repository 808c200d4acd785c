// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-stats.c --- residency of a pack's ranges (mincore), for the loop's hit rate
 * (what the reader left in the page cache)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileid-fd.h"
#include "pack-parse.h"
#include "reader-stats.h"

static int open_file(const char *root, const char *path)
{
	char full[PATH_MAX];
	size_t n = strlen(root);
	int fd;

	while (n > 0 && root[n - 1] == '/')
		n--;
	snprintf(full, sizeof(full), "%.*s%s", (int)n, root, path);
	fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

/* The rule of fileid.h, the generation included where the filesystem gives it. */
static int same_file(int fd, const struct bp_pack_entry *e, unsigned int how)
{
	struct bp_file_id now, then = bp_pack_entry_id(e);
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	how |= bp_file_id_fd(fd, &st, &now);
	return bp_file_compare(&now, &then, how) == BP_FILE_SAME;
}

/* Resident bytes of [off, off+len) of fd (len > 0, inside the file). */
static int64_t resident_bytes(int fd, uint64_t off, uint64_t len, uint64_t size)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t start = off & ~((uint64_t)psz - 1), end = off + len, maplen, i, n;
	unsigned char *vec;
	int64_t res = 0;
	void *map;

	if (end > size)
		end = size;
	if (end <= off)
		return 0;
	maplen = end - start;
	map = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (map == MAP_FAILED)
		return 0;
	n = (maplen + (uint64_t)psz - 1) / (uint64_t)psz;
	vec = malloc(n);
	if (!vec) {
		munmap(map, maplen);
		return -ENOMEM;
	}
	if (mincore(map, maplen, vec) == 0) {
		for (i = 0; i < n; i++) {
			uint64_t a = start + i * (uint64_t)psz, b = a + (uint64_t)psz;

			if (!(vec[i] & 1))
				continue;
			if (a < off)
				a = off;
			if (b > end)
				b = end;
			res += (int64_t)(b - a);
		}
	}
	free(vec);
	munmap(map, maplen);
	return res;
}

int bp_pack_residency(const char *root, const struct bp_pack *p, struct bp_pack_residency *r)
{
	uint32_t i, n = bp_pack_nentries(p), cur_path = UINT32_MAX;
	unsigned int how = bp_pack_id_cmp(bp_pack_info(p)->feature_compat);
	int fd = -1, ok = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < n; i++) {
		struct bp_pack_entry e;
		int64_t res;

		if (bp_pack_entry(p, i, &e))
			break;
		r->packed += e.length;
		if (e.path_off != cur_path) {
			if (fd >= 0)
				close(fd);
			cur_path = e.path_off;
			r->files++;
			fd = open_file(root, e.path);
			ok = fd >= 0 && same_file(fd, &e, how);
			if (!ok) {
				r->changed_files++;
				if (!r->first_changed[0])
					snprintf(r->first_changed, sizeof(r->first_changed), "%s",
						 e.path);
			}
		}
		if (!ok) {
			r->changed += e.length;
			continue;
		}
		res = resident_bytes(fd, e.offset, e.length, e.size);
		if (res < 0) {
			close(fd);
			return (int)res;
		}
		r->resident += (uint64_t)res;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}
