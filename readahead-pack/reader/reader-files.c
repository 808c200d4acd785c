// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-files.c --- bootpack-read: the file entries, looked up safely and read in pack order
 *
 * A path is looked up with openat2(O_PATH, RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV) below the root directory and
 * fstat()ed before anything is opened for reading: a FIFO or a device node
 * is never opened at all, a path never leaves the root's filesystem. The
 * file is then opened O_RDONLY | O_NOATIME | O_NONBLOCK | O_NOFOLLOW and
 * checked again (same inode, generation via FS_IOC_GETVERSION). Files whose
 * inode, generation, size or mtime differ from the pack are stale: skipped.
 * At most max_fds files are open at once (least recently used is closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/openat2.h>

#include "fileid-fd.h"
#include "reader-int.h"

int rd_hash_init(struct rctx *c, uint32_t nfiles)
{
	uint64_t n = 16;

	while (n < 2ULL * nfiles)
		n <<= 1;
	c->keys = calloc(n, sizeof(*c->keys));
	c->states = calloc(n, sizeof(*c->states));
	if (!c->keys || !c->states)
		return -ENOMEM;
	c->mask = (uint32_t)(n - 1);
	return 0;
}

static uint8_t *hash_state(struct rctx *c, uint32_t path_off)
{
	uint32_t h = (path_off * 2654435761U) & c->mask;

	for (;;) {
		if (c->keys[h] == path_off + 1)
			return &c->states[h];
		if (c->keys[h] == 0) {
			c->keys[h] = path_off + 1;
			return &c->states[h];
		}
		h = (h + 1) & c->mask;
	}
}

static int open_beneath(struct rctx *c, const char *rel, uint64_t flags)
{
	struct open_how how;
	long fd;

	if (c->have_openat2) {
		memset(&how, 0, sizeof(how));
		how.flags = flags | O_NOFOLLOW | O_CLOEXEC;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			      RESOLVE_NO_XDEV;
		fd = syscall(SYS_openat2, c->rootfd, rel, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd >= 0 ? (int)fd : -errno;
		c->have_openat2 = 0;
	}
	/* Kernels before 5.6: the pack's paths are normalized (no ".."). */
	fd = openat(c->rootfd, rel, (int)flags | O_NOFOLLOW | O_CLOEXEC);
	return fd >= 0 ? (int)fd : -errno;
}

/* The rule of fileid.h; fd < 0 (an O_PATH lookup): the generation is not known yet. */
static int stale(const struct rctx *c, int fd, const struct stat *st, const struct bp_pack_entry *e)
{
	struct bp_file_id now, then = bp_pack_entry_id(e);
	unsigned int how = bp_pack_id_cmp(c->compat) | bp_file_id_fd(fd, st, &now);

	return bp_file_compare(&now, &then, how) != BP_FILE_SAME;
}

static void evict_lru(struct rctx *c)
{
	unsigned int i, lru = 0;

	for (i = 1; i < c->nslots; i++)
		if (c->slots[i].used < c->slots[lru].used)
			lru = i;
	/*
	 * Queued io_uring reads name the descriptor by number: it is closed
	 * once they are submitted (the kernel then holds the file), so that a
	 * batch is not cut at every eviction.
	 */
	if (c->u && bp_uring_queued(c->u)) {
		if (c->nzombies == URING_BATCH)
			rd_uring_submit(c);
		/* (if submitting keeps failing, those reads never run: close it) */
		if (bp_uring_queued(c->u) && c->nzombies < URING_BATCH) {
			c->zombies[c->nzombies++] = c->slots[lru].fd;
			c->slots[lru] = c->slots[--c->nslots];
			return;
		}
	}
	close(c->slots[lru].fd);
	c->slots[lru] = c->slots[--c->nslots];
}

/* Look the file up, check it, open it: an enum fstate; *ret the slot when FS_OK. */
static int open_file(struct rctx *c, const struct bp_pack_entry *e, struct slot **ret)
{
	struct stat st, st2;
	struct slot *s;
	int pfd, fd;

	if (!bp_pack_path_ok(e->path, e->path_len))
		return FS_UNSAFE;
	pfd = open_beneath(c, e->path + 1, O_PATH);
	if (pfd < 0)
		return (pfd == -ENOENT || pfd == -ENOTDIR || pfd == -EACCES) ? FS_MISSING : FS_UNSAFE;
	if (fstat(pfd, &st) < 0) {
		close(pfd);
		return FS_MISSING;
	}
	close(pfd);
	if (!S_ISREG(st.st_mode) || st.st_dev != c->root_dev)
		return FS_UNSAFE;	/* a FIFO or a device is never opened */
	if (stale(c, -1, &st, e))
		return FS_STALE;

	fd = open_beneath(c, e->path + 1, O_RDONLY | O_NOATIME | O_NONBLOCK | O_NOCTTY);
	if (fd == -EPERM)	/* O_NOATIME: not the owner and no CAP_FOWNER */
		fd = open_beneath(c, e->path + 1, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return FS_MISSING;
	if (fstat(fd, &st2) < 0 || !S_ISREG(st2.st_mode) || st2.st_dev != st.st_dev ||
	    st2.st_ino != st.st_ino) {
		close(fd);
		return FS_UNSAFE;	/* replaced between the two lookups */
	}
	if (stale(c, fd, &st2, e)) {	/* now with the generation */
		close(fd);
		return FS_STALE;
	}
	if (c->o->method == BP_READ_PREAD || c->o->method == BP_READ_URING)
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);	/* read what we ask, no more */

	if (c->nslots == c->maxslots)
		evict_lru(c);
	s = &c->slots[c->nslots++];
	s->path_off = e->path_off;
	s->fd = fd;
	s->size = (uint64_t)st2.st_size;
	*ret = s;
	return FS_OK;
}

struct slot *rd_find_slot(struct rctx *c, uint32_t path_off)
{
	unsigned int i;

	for (i = 0; i < c->nslots; i++)
		if (c->slots[i].path_off == path_off)
			return &c->slots[i];
	return NULL;
}

static void count_skip(struct bp_reader_stats *st, int state)
{
	st->skipped++;
	if (state == FS_STALE)
		st->stale++;
	else if (state == FS_UNSAFE)
		st->unsafe++;
	else
		st->missing++;
}

/*
 * Entries of one file that follow each other in the file and on the disk
 * are issued as one range (fewer calls); where the disk is not contiguous
 * a range ends, so that the reader knows where the disk's runs begin.
 */
struct pending {
	int fd;
	uint32_t path_off;
	uint64_t off, len;
	uint64_t phys;		/* of off on the device, or BP_PACK_PHYS_NONE */
	uint64_t size;		/* the file's */
};

static void flush(struct rctx *c, struct pending *pd)
{
	if (pd->len && c->round_out) {
		/*
		 * A pack built for smaller pages than this system's: the
		 * range rounded out to whole pages of this one (what the
		 * kernel reads anyway), but not past the end of the file: a
		 * read cut short there by io_uring would be retried, and
		 * counted an error if the file's descriptor was closed since.
		 */
		uint64_t a = pd->off & ~(c->pg - 1);
		uint64_t b = (pd->off + pd->len + c->pg - 1) & ~(c->pg - 1);

		if (b > pd->size)
			b = pd->size;

		if (pd->phys != BP_PACK_PHYS_NONE)
			pd->phys = pd->phys >= pd->off - a ? pd->phys - (pd->off - a) :
							     BP_PACK_PHYS_NONE;
		pd->off = a;
		pd->len = b - a;
	}
	if (pd->len) {
		c->range_phys = pd->phys;
		c->st->bytes += rd_read_range(c, pd->fd, pd->off, pd->len, pd->path_off);
	}
	c->file_queued += pd->len;
	if (c->file_queued >= c->window)
		rd_streaming(c);
	pd->len = 0;
	pd->fd = -1;
}

void rd_read_entries(struct rctx *c, const struct bp_pack *p)
{
	struct pending pd = { .fd = -1, .phys = BP_PACK_PHYS_NONE };
	uint32_t i, n = bp_pack_nentries(p);

	for (i = 0; i < n; i++) {
		struct bp_pack_entry e;
		struct slot *s;
		uint8_t *state;
		uint64_t len;

		if (bp_pack_entry(p, i, &e) < 0)
			break;
		if (c->pass == 1)
			rd_meta_due(c, e.budget_pos);
		if (e.budget_pos > c->budget || rd_out_of_time(c)) {
			if (c->pass == 1)
				c->st->cut++;
			continue;
		}
		if (pd.fd >= 0 && pd.path_off != e.path_off)
			flush(c, &pd);	/* before open_file() may close its descriptor */
		state = hash_state(c, e.path_off);
		if (*state != FS_UNKNOWN && *state != FS_OK) {
			if (c->pass == 1)
				count_skip(c->st, *state);
			continue;
		}
		s = rd_find_slot(c, e.path_off);
		if (!s) {
			int r = open_file(c, &e, &s);

			if (r != FS_OK) {
				if (*state == FS_UNKNOWN)
					count_skip(c->st, r);
				*state = (uint8_t)r;
				continue;
			}
			if (*state == FS_UNKNOWN)
				c->st->files++;
			*state = FS_OK;
		}
		s->used = ++c->tick;
		if (c->pass == 1)
			c->st->entries++;
		if (e.offset >= s->size)
			continue;
		len = e.length < s->size - e.offset ? e.length : s->size - e.offset;
		if (pd.fd == s->fd && e.offset == pd.off + pd.len &&
		    (pd.phys == BP_PACK_PHYS_NONE || e.phys == pd.phys + pd.len)) {
			pd.len += len;
			continue;
		}
		flush(c, &pd);
		pd.fd = s->fd;
		pd.path_off = e.path_off;
		pd.off = e.offset;
		pd.len = len;
		pd.phys = e.phys;
		pd.size = s->size;
	}
	flush(c, &pd);
	if (c->pass == 1)
		rd_meta_due(c, UINT64_MAX);
}
