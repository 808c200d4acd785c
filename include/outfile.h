/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h --- every file a verb writes under a name the user gave, and
 * the state files bootpack keeps for itself (bp_statefile_write(), below)
 *
 * One policy for pack -o, trace -o, trace --merge -o, trace --save-text,
 * relayout --pack and relayout -z:
 *  - the name is new, or an existing regular file; a device node, FIFO,
 *    socket or directory is refused (nothing is replaced by a regular file);
 *  - a symbolic link is followed: the file it points to is replaced, the link
 *    stays; a dangling link is refused;
 *  - the directory must exist and be writable, checked before anything is
 *    opened for writing;
 *  - a name that is the same file (inode) as one of the verb's inputs (the
 *    device, the trace, the pack) is refused, also through links;
 *  - another user's file is replaced keeping its owner, group and mode,
 *    except in a sticky world-writable directory such as /tmp, where it is
 *    refused (as the kernel's fs.protected_regular does);
 *  - the content goes to "<name>.tmp-XXXXXX" first, then one rename(2): a
 *    reader sees the old file or the new one, never a part. The temporary
 *    file is removed on every error path and on a fatal signal; one left by
 *    a killed process (SIGKILL, power failure) is removed by the next
 *    bootpack that writes the same name (a live writer keeps its temporary
 *    file flock()ed, so only dead ones are removed).
 */
#ifndef BP_OUTFILE_H
#define BP_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "bperr.h"

/* An input of the verb that no output may name: { "device", "/dev/sda1" }. */
struct bp_path_ref {
	const char *what;
	const char *path;	/* NULL = not used */
};

struct bp_outfile {
	char *path;	/* the file replaced (a symlink resolved) */
	char *tmp;	/* the temporary file, NULL once renamed or removed */
	int fd;
	int slot;	/* in the signal-cleanup table, or -1 */
	int keep_owner;
	uid_t uid;
	gid_t gid;
	mode_t mode;
};

/*
 * May path be written as an output named by option `what` ("-o", "--undo")?
 * 0, or BP_ET_PATH_CONFLICT (it is one of the inputs) or BP_ET_BAD_OUTPUT
 * (not a regular file, no such directory, not writable, another user's file
 * in a sticky directory), with a sentence naming the thing and the fix.
 */
errcode_t bp_outfile_check(const char *what, const char *path, const struct bp_path_ref *inputs,
			   size_t ninputs, struct bp_err *err);

/* 1 if a and b exist and are the same file (device and inode, links followed). */
int bp_path_same(const char *a, const char *b);

/*
 * Check (as bp_outfile_check without inputs), remove temporary files of
 * dead writers, create the temporary file: write to of->fd, then commit or
 * abort. Until then a fatal signal removes the temporary file.
 */
errcode_t bp_outfile_open(struct bp_outfile *of, const char *what, const char *path,
			  struct bp_err *err);

/* fsync, owner and mode, close, rename over the name, fsync the directory. */
errcode_t bp_outfile_commit(struct bp_outfile *of, struct bp_err *err);

/* Remove the temporary file and forget it; safe after commit. */
void bp_outfile_abort(struct bp_outfile *of);

/*
 * The files bootpack keeps for itself (its state under BP_STATEDIR), not a
 * name the user gave: what fill writes goes to "<path>.tmp" (created mode
 * 0644, never through a symbolic link), is synced and renamed over path,
 * and the directory is synced. 0 or an errno value, with a sentence; the
 * temporary file is removed on error.
 */
typedef void (*bp_statefile_fill_fn)(FILE *fp, const void *priv);
errcode_t bp_statefile_write(const char *path, bp_statefile_fill_fn fill, const void *priv,
			     struct bp_err *err);

#endif /* BP_OUTFILE_H */
