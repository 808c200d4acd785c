// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fspath.c --- the one rule resolving a traced path to an inode (fspath.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "fspath.h"

#define WORK_MAX (2 * 4096)	/* what is left to walk: a link's target plus the rest */

/* The target of the symbolic link ino into buf (NUL-terminated). */
static errcode_t read_link(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *in, char *buf,
			   size_t size, size_t *len)
{
	uint64_t n = EXT2_I_SIZE(in);
	ext2_file_t file;
	unsigned int got = 0;
	errcode_t rc;

	if (n == 0 || n >= size)
		return n ? ENAMETOOLONG : EXT2_ET_FILE_NOT_FOUND;
	if (ext2fs_is_fast_symlink(in)) {
		memcpy(buf, (const char *)in->i_block, n);
	} else {
		rc = ext2fs_file_open2(fs, ino, in, 0, &file);
		if (rc)
			return rc;
		rc = ext2fs_file_read(file, buf, (unsigned int)n, &got);
		ext2fs_file_close(file);
		if (rc)
			return rc;
		if (got != n)
			return EXT2_ET_SHORT_READ;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n))
		return EXT2_ET_FILE_NOT_FOUND;
	*len = n;
	return 0;
}

errcode_t bp_fs_path_resolve(ext2_filsys fs, const char *path, char *canon, size_t size,
			     ext2_ino_t *ino)
{
	char *work, *rest, link[4096];
	ext2_ino_t *dirs;	/* dirs[d]: the directory at depth d (dirs[0] the root) */
	size_t clen = 0, d = 0, maxd = size / 2 + 1, n;
	unsigned int links = 0;
	errcode_t rc = 0;

	if (size < 2)
		return ENAMETOOLONG;
	if (strlen(path) >= WORK_MAX)
		return ENAMETOOLONG;
	work = malloc(2 * WORK_MAX);
	dirs = malloc(maxd * sizeof(*dirs));
	if (!work || !dirs) {
		rc = ENOMEM;
		goto out;
	}
	strcpy(work, path);
	rest = work;
	dirs[0] = EXT2_ROOT_INO;
	canon[0] = '\0';
	while (*rest) {
		struct ext2_inode in;
		ext2_ino_t child;
		char *comp;
		int last;

		while (*rest == '/')
			rest++;
		comp = rest;
		rest += strcspn(rest, "/");
		n = (size_t)(rest - comp);
		last = !rest[strspn(rest, "/")];
		if (n == 0 || (n == 1 && comp[0] == '.'))
			continue;
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			if (d) {
				d--;
				clen = (size_t)(strrchr(canon, '/') - canon);
				canon[clen] = '\0';
			}
			continue;
		}
		rc = ext2fs_lookup(fs, dirs[d], comp, (int)n, NULL, &child);
		if (rc)
			goto out;
		rc = ext2fs_read_inode(fs, child, &in);
		if (rc)
			goto out;
		if (LINUX_S_ISLNK(in.i_mode)) {
			size_t len, left = strlen(rest);

			if (++links > BP_FS_PATH_MAX_LINKS) {
				rc = ELOOP;
				goto out;
			}
			rc = read_link(fs, child, &in, link, sizeof(link), &len);
			if (rc)
				goto out;
			if (len + 1 + left >= WORK_MAX) {
				rc = ENAMETOOLONG;
				goto out;
			}
			/* Walk the target, then what followed the link. */
			memmove(work + WORK_MAX, rest, left + 1);
			memcpy(work, link, len);
			work[len] = '/';
			memmove(work + len + 1, work + WORK_MAX, left + 1);
			rest = work;
			if (link[0] == '/') {
				d = 0;
				clen = 0;
				canon[0] = '\0';
			}
			continue;
		}
		if (!last && !LINUX_S_ISDIR(in.i_mode)) {
			rc = EXT2_ET_NO_DIRECTORY;
			goto out;
		}
		if (clen + 1 + n >= size || d + 1 >= maxd) {
			rc = ENAMETOOLONG;
			goto out;
		}
		canon[clen++] = '/';
		memcpy(canon + clen, comp, n);
		clen += n;
		canon[clen] = '\0';
		dirs[++d] = child;
	}
	if (!clen) {
		canon[0] = '/';
		canon[1] = '\0';
	}
	*ino = dirs[d];
out:
	free(dirs);
	free(work);
	return rc;
}
