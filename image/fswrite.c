// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fswrite.c --- directories, files and symbolic links written into an
 * unmounted filesystem with libext2fs (an image is never mounted)
 *
 * Times are fs->now (set by the caller for a reproducible image), owners
 * root, no inline data: what mkdir, cp and ln -s as root would leave.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <ext2fs/ext2fs.h>

#include "bp_et.h"
#include "image.h"

#define PATH_MAXLEN 4096


int bp_fsw_exists(ext2_filsys fs, const char *path)
{
	ext2_ino_t ino;

	return ext2fs_namei_follow(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino) == 0;
}

errcode_t bp_fsw_read(ext2_filsys fs, const char *path, char *buf, size_t len, size_t *got)
{
	struct ext2_inode inode;
	ext2_file_t f = NULL;
	unsigned int n = 0;
	ext2_ino_t ino;
	errcode_t rc;

	if (got)
		*got = 0;
	if (!len)
		return EINVAL;
	buf[0] = '\0';
	rc = ext2fs_namei_follow(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino);
	if (rc)
		return rc == EXT2_ET_FILE_NOT_FOUND ? ENOENT : rc;
	rc = ext2fs_read_inode(fs, ino, &inode);
	if (rc)
		return rc;
	if (!LINUX_S_ISREG(inode.i_mode))
		return EISDIR;
	rc = ext2fs_file_open(fs, ino, 0, &f);
	if (rc)
		return rc;
	rc = ext2fs_file_read(f, buf, len - 1 > UINT_MAX ? UINT_MAX : (unsigned int)(len - 1), &n);
	ext2fs_file_close(f);
	if (rc)
		n = 0;
	buf[n] = '\0';
	if (got)
		*got = n;
	return rc;
}

/* Split path into its parent directory's inode and its last name. */
static errcode_t parent_of(ext2_filsys fs, const char *path, ext2_ino_t *dir, const char **name,
			   struct bp_err *err)
{
	char buf[PATH_MAXLEN];
	char *slash;
	errcode_t rc;

	if (path[0] != '/' || strlen(path) >= sizeof(buf))
		return bp_err_set(err, EINVAL, "%s: not an absolute path", path);
	strcpy(buf, path);
	slash = strrchr(buf, '/');
	*name = path + (slash - buf) + 1;
	if (!**name)
		return bp_err_set(err, EINVAL, "%s: names a directory", path);
	if (slash == buf) {
		*dir = EXT2_ROOT_INO;
		return 0;
	}
	*slash = 0;
	rc = ext2fs_namei_follow(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, buf, dir);
	if (rc)
		return bp_err_lib(err, rc, "while looking up %s in the image", buf);
	return 0;
}

/* ext2fs_link, growing the directory when it is full. */
static errcode_t link_in(ext2_filsys fs, ext2_ino_t dir, const char *name, ext2_ino_t ino,
			 int ftype)
{
	errcode_t rc = ext2fs_link(fs, dir, name, ino, ftype);

	if (rc == EXT2_ET_DIR_NO_SPACE) {
		rc = ext2fs_expand_dir(fs, dir);
		if (!rc)
			rc = ext2fs_link(fs, dir, name, ino, ftype);
	}
	return rc;
}

/*
 * Remove the name in dir (not a directory) if it is there, freeing its inode
 * when it was the last link; a name that is not there is not an error.
 */
static errcode_t remove_name(ext2_filsys fs, ext2_ino_t dir, const char *name)
{
	struct ext2_inode inode;
	ext2_ino_t ino;
	errcode_t rc;

	rc = ext2fs_lookup(fs, dir, name, (int)strlen(name), NULL, &ino);
	if (rc == EXT2_ET_FILE_NOT_FOUND)
		return 0;
	if (rc)
		return rc;
	rc = ext2fs_read_inode(fs, ino, &inode);
	if (rc)
		return rc;
	if (LINUX_S_ISDIR(inode.i_mode))
		return EXT2_ET_FILE_EXISTS;
	rc = ext2fs_unlink(fs, dir, name, ino, 0);
	if (rc)
		return rc;
	if (inode.i_links_count > 1) {
		inode.i_links_count--;
		return ext2fs_write_inode(fs, ino, &inode);
	}
	if (ext2fs_inode_has_valid_blocks2(fs, &inode)) {
		rc = ext2fs_punch(fs, ino, &inode, NULL, 0, ~0ULL);
		if (rc)
			return rc;
	}
	inode.i_links_count = 0;
	inode.i_dtime = (__u32)fs->now;
	rc = ext2fs_write_inode(fs, ino, &inode);
	if (!rc)
		ext2fs_inode_alloc_stats2(fs, ino, -1, 0);
	return rc;
}

errcode_t bp_fsw_mkdirs(ext2_filsys fs, const char *path, struct bp_err *err)
{
	char buf[PATH_MAXLEN], *p;
	ext2_ino_t dir = EXT2_ROOT_INO, ino;
	errcode_t rc;

	if (path[0] != '/' || strlen(path) >= sizeof(buf))
		return bp_err_set(err, EINVAL, "%s: not an absolute path", path);
	strcpy(buf, path);
	for (p = buf + 1; *p;) {
		char *end = strchr(p, '/');

		if (end)
			*end = 0;
		if (*p) {
			rc = ext2fs_lookup(fs, dir, p, (int)strlen(p), NULL, &ino);
			if (rc == EXT2_ET_FILE_NOT_FOUND) {
				rc = ext2fs_mkdir(fs, dir, 0, p);
				if (rc == EXT2_ET_DIR_NO_SPACE) {
					rc = ext2fs_expand_dir(fs, dir);
					if (!rc)
						rc = ext2fs_mkdir(fs, dir, 0, p);
				}
				if (!rc)
					rc = ext2fs_lookup(fs, dir, p, (int)strlen(p), NULL, &ino);
			}
			if (!rc)
				rc = ext2fs_check_directory(fs, ino);
			if (rc)
				return bp_err_lib(err, rc, "while making the directory %s in the image",
						  path);
			dir = ino;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

errcode_t bp_fsw_write_file(ext2_filsys fs, const char *path, const void *buf, size_t len,
			    unsigned int mode, struct bp_err *err)
{
	struct ext2_inode inode;
	ext2_file_t f = NULL;
	ext2_ino_t dir, ino;
	const char *name;
	unsigned int done;
	errcode_t rc;

	rc = parent_of(fs, path, &dir, &name, err);
	if (rc)
		return rc;
	rc = remove_name(fs, dir, name);
	if (!rc)
		rc = ext2fs_new_inode(fs, dir, LINUX_S_IFREG | 0644, NULL, &ino);
	if (!rc)
		rc = link_in(fs, dir, name, ino, EXT2_FT_REG_FILE);
	if (rc)
		return bp_err_lib(err, rc, "while creating %s in the image", path);
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = LINUX_S_IFREG | (mode & 07777);
	inode.i_atime = inode.i_ctime = inode.i_mtime = (__u32)fs->now;
	inode.i_links_count = 1;
	if (ext2fs_has_feature_extents(fs->super)) {
		ext2_extent_handle_t h;

		rc = ext2fs_extent_open2(fs, ino, &inode, &h);
		if (!rc)
			ext2fs_extent_free(h);
	}
	if (!rc)
		rc = ext2fs_write_new_inode(fs, ino, &inode);
	if (!rc)
		rc = ext2fs_file_open(fs, ino, EXT2_FILE_WRITE, &f);
	for (done = 0; !rc && done < len;) {
		unsigned int got = 0, chunk = len - done > (1U << 20) ? 1U << 20 :
					      (unsigned int)(len - done);

		rc = ext2fs_file_write(f, (const char *)buf + done, chunk, &got);
		if (!rc && !got)
			rc = EXT2_ET_SHORT_WRITE;
		done += got;
	}
	if (f) {
		errcode_t rc2 = ext2fs_file_close(f);

		if (!rc)
			rc = rc2;
	}
	if (rc)
		return bp_err_lib(err, rc, "while writing %s in the image", path);
	return 0;
}

errcode_t bp_fsw_symlink(ext2_filsys fs, const char *path, const char *target,
			 struct bp_err *err)
{
	ext2_ino_t dir;
	const char *name;
	errcode_t rc;

	rc = parent_of(fs, path, &dir, &name, err);
	if (rc)
		return rc;
	rc = remove_name(fs, dir, name);
	if (!rc) {
		rc = ext2fs_symlink(fs, dir, 0, name, target);
		if (rc == EXT2_ET_DIR_NO_SPACE) {
			rc = ext2fs_expand_dir(fs, dir);
			if (!rc)
				rc = ext2fs_symlink(fs, dir, 0, name, target);
		}
	}
	if (rc)
		return bp_err_lib(err, rc, "while linking %s -> %s in the image", path, target);
	return 0;
}

errcode_t bp_fsw_remove(ext2_filsys fs, const char *path, int *removed, struct bp_err *err)
{
	ext2_ino_t dir, ino;
	const char *name;
	errcode_t rc;

	*removed = 0;
	/* path itself, a dangling symbolic link too */
	if (ext2fs_namei(fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino))
		return 0;
	rc = parent_of(fs, path, &dir, &name, err);
	if (!rc)
		rc = remove_name(fs, dir, name);
	if (rc == EXT2_ET_FILE_EXISTS)
		return bp_err_set(err, EISDIR, "%s: a directory in the image", path);
	if (rc)
		return bp_err_lib(err, rc, "while removing %s in the image", path);
	*removed = 1;
	return 0;
}
