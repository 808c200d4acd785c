/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fspath.h --- the one rule resolving a traced path to an inode of the filesystem
 *
 * A trace names files by path. relayout, verify, bench and pack resolve
 * those paths on the unmounted filesystem with this one function, so that
 * they agree on which file a path is. The path is resolved as the kernel
 * would once the filesystem is mounted at /: from the root, "." and empty
 * components ("//", a trailing '/') are dropped, ".." goes up (the root's
 * is the root), and a symbolic link, in a directory component or the last
 * one, is followed (an absolute target from the filesystem's root, a
 * relative one from the link's directory; at most BP_FS_PATH_MAX_LINKS
 * links in all). The result is the inode and its canonical path, the one
 * every verb stores and walks: absolute, without "." or ".." or an empty
 * component, through no symbolic link (bp_pack_path_ok() holds for it).
 */
#ifndef BP_FSPATH_H
#define BP_FSPATH_H

#include <stddef.h>

#include <ext2fs/ext2fs.h>

#define BP_FS_PATH_MAX_LINKS 40	/* the kernel's MAXSYMLINKS */

/*
 * Resolve path on fs: 0 with *ino and the canonical path in canon (size
 * bytes, at least 2), else EXT2_ET_FILE_NOT_FOUND (a component is
 * missing), EXT2_ET_NO_DIRECTORY (a component other than the last is no
 * directory), ELOOP (too many links), ENAMETOOLONG (longer than size), or
 * the library's code for a read that failed.
 */
errcode_t bp_fs_path_resolve(ext2_filsys fs, const char *path, char *canon, size_t size,
			     ext2_ino_t *ino);

#endif /* BP_FSPATH_H */
