// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader-io.c --- bootpack-read's engine: read a pack's ranges into the page cache
 *
 * Order: the metadata ranges through the block device first (inode tables,
 * directories, extent blocks: what path lookups need), then the file
 * entries in pack order (physical order). Every range whose budget_pos is
 * beyond the effective budget is cut; reading stops at --max-ms.
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/openat2.h>

#include "reader.h"

enum fstate {
	FS_UNKNOWN = 0,
	FS_OK,
	FS_STALE,
	FS_UNSAFE,
	FS_MISSING,
};

#define URING_ENTRIES	128	/* reads in flight at most */
#define URING_BATCH	64	/* reads submitted by one io_uring_enter(2): one block plug */
#define TAG_META	UINT64_MAX

/* Open files, least recently used evicted. */
struct slot {
	uint32_t path_off;
	int fd;
	uint64_t used;
	uint64_t size;
};

struct rctx {
	const struct bp_reader_opts *o;
	struct bp_reader_stats *st;
	int rootfd;
	dev_t root_dev;
	uint64_t t0, budget;
	size_t chunk;		/* bytes per read call */
	uint8_t *buf;		/* BP_READER_CHUNK bytes for BP_READ_PREAD */
	int nullfd;		/* /dev/null for sendfile(2), or -1 */
	struct slot *slots;
	unsigned int nslots, maxslots;
	uint64_t tick;
	/* path_off -> enum fstate, open addressing (key path_off + 1) */
	uint32_t *keys;
	uint8_t *states;
	uint32_t mask;
	int have_openat2;
	uint32_t compat;	/* the pack's feature_compat */
	struct bp_uring *u;	/* BP_READ_URING, NULL if io_uring is not usable */
	int zombies[URING_BATCH];	/* evicted, closed once their queued reads are submitted */
	unsigned int nzombies;
	int devfd;		/* the metadata device, or -1 */
	int pass;		/* 1: read; 2: check residency, read what is missing */
};


static int out_of_time(struct rctx *c)
{
	if (!c->o->max_ms || c->st->timed_out)
		return c->st->timed_out;
	if (bp_reader_now_ms() - c->t0 >= c->o->max_ms)
		c->st->timed_out = 1;
	return c->st->timed_out;
}

/* Read [off, off + len) of fd with method m, in chunks; bytes issued. */
static uint64_t read_with(struct rctx *c, int fd, uint64_t off, uint64_t len,
			  enum bp_read_method m)
{
	uint64_t done = 0;

	while (done < len && !out_of_time(c)) {
		size_t n = (size_t)(len - done < c->chunk ? len - done : c->chunk);
		off_t at = (off_t)(off + done);
		ssize_t r;

		switch (m) {
		case BP_READ_READAHEAD:
			if (readahead(fd, at, n) < 0) {
				c->st->errors++;
				return done;
			}
			r = (ssize_t)n;
			break;
		case BP_READ_FADVISE:
			if (posix_fadvise(fd, at, (off_t)n, POSIX_FADV_WILLNEED)) {
				c->st->errors++;
				return done;
			}
			r = (ssize_t)n;
			break;
		case BP_READ_PREAD:
		default:
			if (c->nullfd < 0 && !c->buf) {
				c->buf = malloc(BP_READER_CHUNK);
				if (!c->buf) {
					c->st->errors++;
					return done;
				}
			}
			if (c->nullfd >= 0) {
				/* zero-copy: the pages are read, nothing is copied out */
				off_t o2 = at;

				r = sendfile(c->nullfd, fd, &o2, n);
				if (r < 0 && errno == EAGAIN)	/* O_NONBLOCK honoured: copy instead */
					r = pread(fd, c->buf, n, at);
				if (r < 0 && (errno == EINVAL || errno == ENOSYS)) {
					close(c->nullfd);
					c->nullfd = -1;
					continue;
				}
			} else {
				r = pread(fd, c->buf, n, at);
			}
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				c->st->errors++;
				return done;
			}
			if (r == 0)
				return done;	/* end of file or device */
			break;
		}
		done += (uint64_t)r;
	}
	return done;
}

static struct slot *find_slot(struct rctx *c, uint32_t path_off);

/* The descriptor a completed read used, if it is still open; else -1. */
static int still_open(struct rctx *c, const struct bp_uring_req *r)
{
	struct slot *s;

	if (r->tag == TAG_META)
		return c->devfd == r->fd ? r->fd : -1;
	s = find_slot(c, (uint32_t)r->tag);
	return s && s->fd == r->fd ? r->fd : -1;
}

static void count_bytes(struct rctx *c, uint64_t tag, uint64_t n)
{
	c->st->bytes += n;
	if (tag == TAG_META)
		c->st->meta_bytes += n;
}

/* Reap completions (waiting for wait_nr); short or failed reads are read synchronously. */
static void uring_reap(struct rctx *c, unsigned int wait_nr)
{
	struct bp_uring_req done[64];
	unsigned int i, n;

	do {
		n = bp_uring_reap(c->u, wait_nr, done, sizeof(done) / sizeof(done[0]));
		wait_nr = 0;
		for (i = 0; i < n; i++) {
			const struct bp_uring_req *r = &done[i];
			uint64_t got = r->res > 0 ? (uint64_t)r->res : 0;
			int fd;

			count_bytes(c, r->tag, got);
			if (r->res == 0 || got >= r->len)
				continue;
			/* short, or failed (-EAGAIN, -EINVAL of an old kernel ...): pread the rest */
			fd = still_open(c, r);
			if (fd < 0) {
				c->st->errors++;
				continue;
			}
			count_bytes(c, r->tag, read_with(c, fd, r->off + got, r->len - got,
							 BP_READ_PREAD));
		}
	} while (n == sizeof(done) / sizeof(done[0]));
}

/* Submit the queued reads, then close the descriptors evicted meanwhile. */
static int uring_submit(struct rctx *c)
{
	int r = bp_uring_submit(c->u);

	if (!bp_uring_queued(c->u)) {
		while (c->nzombies)
			close(c->zombies[--c->nzombies]);
	}
	return r;
}

static void uring_drain(struct rctx *c)
{
	if (!c->u)
		return;
	while (bp_uring_inflight(c->u)) {
		unsigned int before = bp_uring_inflight(c->u);
		int r = uring_submit(c);

		uring_reap(c, 1);
		if (r < 0 && bp_uring_inflight(c->u) == before) {
			/* cannot submit, nothing completes: give up on what is left */
			c->st->errors += before;
			break;
		}
	}
}

/* Queue [off, off + len) of fd in chunks; bytes are counted as they complete. */
static void uring_range(struct rctx *c, int fd, uint64_t off, uint64_t len, uint64_t tag)
{
	uint64_t done = 0;

	while (done < len && !out_of_time(c)) {
		uint32_t n = (uint32_t)(len - done < c->chunk ? len - done : c->chunk);

		while (bp_uring_queue_read(c->u, fd, off + done, n, tag) == -EBUSY)
			uring_reap(c, 1);
		done += n;
		if (bp_uring_queued(c->u) >= URING_BATCH && uring_submit(c) < 0) {
			uring_drain(c);	/* cannot submit: let what is in flight end */
		}
	}
}

/*
 * Pass 2 of the asynchronous methods: pages of [off, off + len) that are
 * not resident (dropped, or still in flight) are read synchronously, which
 * waits for those in flight and reads the dropped ones again.
 */
static void refetch(struct rctx *c, int fd, uint64_t off, uint64_t len)
{
	uint64_t first = off & ~4095ULL, i, npages, run = 0, start = 0;
	unsigned char *vec;
	void *map;

	npages = (off + len - first + 4095) / 4096;
	if (!npages)
		return;
	map = mmap(NULL, npages * 4096, PROT_READ, MAP_SHARED, fd, (off_t)first);
	if (map == MAP_FAILED)
		return;
	vec = malloc(npages);
	if (!vec || mincore(map, npages * 4096, vec) < 0) {
		free(vec);
		munmap(map, npages * 4096);
		return;
	}
	munmap(map, npages * 4096);
	for (i = 0; i <= npages; i++) {
		if (i < npages && !(vec[i] & 1)) {
			if (!run++)
				start = i;
			continue;
		}
		if (run) {
			uint64_t a = first + start * 4096, b = first + (start + run) * 4096;
			uint64_t got;

			if (a < off)
				a = off;
			if (b > off + len)
				b = off + len;
			got = read_with(c, fd, a, b - a, BP_READ_PREAD);
			c->st->refetched += got;
		}
		run = 0;
	}
	free(vec);
}

/* Read [off, off + len) of fd as configured; bytes issued synchronously. */
static uint64_t read_range(struct rctx *c, int fd, uint64_t off, uint64_t len, uint64_t tag)
{
	if (c->pass == 2) {
		refetch(c, fd, off, len);
		return 0;
	}
	if (c->o->method == BP_READ_URING && c->u) {
		uring_range(c, fd, off, len, tag);
		return 0;
	}
	return read_with(c, fd, off, len,
			 c->o->method == BP_READ_URING ? BP_READ_PREAD : c->o->method);
}

static int hash_init(struct rctx *c, uint32_t nfiles)
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

static int stale(const struct rctx *c, const struct stat *st, const struct bp_pack_entry *e)
{
	if (st->st_ino != e->ino || (uint64_t)st->st_size != e->size ||
	    st->st_mtim.tv_sec != e->mtime_sec)
		return 1;
	if ((c->compat & BP_PACK_COMPAT_MTIME_NSEC) &&
	    (uint32_t)st->st_mtim.tv_nsec != e->mtime_nsec)
		return 1;
	return 0;
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
			uring_submit(c);
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
	long gen = 0;
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
	if (stale(c, &st, e))
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
	if (ioctl(fd, FS_IOC_GETVERSION, &gen) == 0 && (uint32_t)gen != e->generation) {
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

static struct slot *find_slot(struct rctx *c, uint32_t path_off)
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
 * Entries of one file that follow each other in the file (split in the pack
 * where the disk is not contiguous) are issued as one range: fewer calls,
 * and the block layer splits what it must.
 */
struct pending {
	int fd;
	uint32_t path_off;
	uint64_t off, len;
};

static void flush(struct rctx *c, struct pending *pd)
{
	if (pd->len)
		c->st->bytes += read_range(c, pd->fd, pd->off, pd->len, pd->path_off);
	pd->len = 0;
	pd->fd = -1;
}

static void read_entries(struct rctx *c, const struct bp_pack *p)
{
	struct pending pd = { .fd = -1 };
	uint32_t i, n = bp_pack_nentries(p);

	for (i = 0; i < n; i++) {
		struct bp_pack_entry e;
		struct slot *s;
		uint8_t *state;
		uint64_t len;

		if (bp_pack_entry(p, i, &e) < 0)
			break;
		if (e.budget_pos > c->budget || out_of_time(c)) {
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
		s = find_slot(c, e.path_off);
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
		if (pd.fd == s->fd && e.offset == pd.off + pd.len) {
			pd.len += len;
			continue;
		}
		flush(c, &pd);
		pd.fd = s->fd;
		pd.path_off = e.path_off;
		pd.off = e.offset;
		pd.len = len;
	}
	flush(c, &pd);
}

/* Metadata ranges in disk order; ranges that touch are read as one. */
static void read_meta(struct rctx *c, const struct bp_pack *p, int devfd)
{
	uint32_t i, n = bp_pack_nmeta(p);
	uint64_t at = 0, len = 0;

	if (c->o->method == BP_READ_PREAD || c->o->method == BP_READ_URING)
		posix_fadvise(devfd, 0, 0, POSIX_FADV_RANDOM);
	for (i = 0; i <= n; i++) {
		struct bp_pack_meta m = { 0 };

		if (i < n) {
			if (bp_pack_meta(p, i, &m) < 0)
				n = i;
			else if (m.budget_pos > c->budget || out_of_time(c)) {
				if (c->pass == 1)
					c->st->cut++;
				continue;
			}
		}
		if (i < n && len && m.offset == at + len && len + m.length <= BP_PACK_MAX_RANGE) {
			len += m.length;
		} else {
			if (len)
				count_bytes(c, TAG_META, read_range(c, devfd, at, len, TAG_META));
			at = m.offset;
			len = i < n ? m.length : 0;
		}
		if (i < n && c->pass == 1)
			c->st->meta_ranges++;
	}
}

/* The metadata device, or -1 with st->why_meta set. */
static int meta_device(struct rctx *c, const struct bp_pack_info *in, int uuid_checked)
{
	int fd;

	if (!uuid_checked && (in->dev_major || in->dev_minor) &&
	    makedev(in->dev_major, in->dev_minor) != c->root_dev) {
		c->st->why_meta = "device number differs from the pack and the filesystem UUID cannot be checked";
		return -1;
	}
	if (major(c->root_dev) == 0) {
		c->st->why_meta = "the root's filesystem is not on a block device";
		return -1;
	}
	fd = bp_reader_open_blockdev(major(c->root_dev), minor(c->root_dev), c->st->meta_dev,
				     sizeof(c->st->meta_dev));
	if (fd < 0) {
		c->st->why_meta = "no block device node for the root's filesystem, and none could be made";
		return -1;
	}
	return fd;
}

static void free_ctx(struct rctx *c)
{
	uring_drain(c);
	bp_uring_close(c->u);
	while (c->nzombies)
		close(c->zombies[--c->nzombies]);
	if (c->devfd >= 0)
		close(c->devfd);
	while (c->nslots)
		close(c->slots[--c->nslots].fd);
	free(c->slots);
	free(c->keys);
	free(c->states);
	free(c->buf);
	if (c->nullfd >= 0)
		close(c->nullfd);
	if (c->rootfd >= 0)
		close(c->rootfd);
}

int bp_reader_run(const struct bp_pack *p, const struct bp_reader_opts *o,
		  struct bp_reader_stats *st, const char **why)
{
	const struct bp_pack_info *in = bp_pack_info(p);
	static const uint8_t nil[16];
	struct rctx c;
	struct rlimit rl;
	struct stat rst;
	uint8_t uuid[16];
	uint64_t mem;
	int uuid_checked = 0, rc = 0;

	memset(st, 0, sizeof(*st));
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.st = st;
	c.t0 = bp_reader_now_ms();
	c.compat = in->feature_compat;
	c.have_openat2 = 1;
	c.nullfd = -1;
	c.devfd = -1;
	c.pass = 1;
	c.rootfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c.rootfd < 0 || fstat(c.rootfd, &rst) < 0) {
		rc = -errno;
		*why = "cannot open the root directory";
		goto out;
	}
	c.root_dev = rst.st_dev;
	if (bp_reader_fs_uuid(c.rootfd, uuid) == 0 && memcmp(in->uuid, nil, 16) != 0) {
		if (memcmp(uuid, in->uuid, 16) != 0) {
			rc = -ESTALE;
			*why = "the pack is for another filesystem (UUID differs from the root's)";
			goto out;
		}
		uuid_checked = 1;
	}

	/* Budget: the pack's bytes, or less (--budget), scaled to free memory. */
	c.budget = in->total_bytes;
	if (o->budget && o->budget < c.budget)
		c.budget = o->budget;
	if (bp_reader_mem_available(&mem) == 0)
		c.budget = bp_reader_scale_budget(c.budget, mem);
	st->budget = c.budget;

	/*
	 * pread: 1 MiB. readahead(2) and WILLNEED silently stop at
	 * max(max_sectors_kb, read_ahead_kb) of the device per call: chunk at that.
	 */
	c.chunk = BP_READER_CHUNK;
	if (o->method == BP_READ_READAHEAD || o->method == BP_READ_FADVISE) {
		uint64_t cap = bp_reader_ra_cap(major(c.root_dev), minor(c.root_dev));

		if (cap >= 4096 && cap < c.chunk)
			c.chunk = (size_t)cap;
	}

	c.maxslots = o->max_fds ? o->max_fds : BP_READER_MAX_FDS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)c.maxslots + 16)
		c.maxslots = rl.rlim_cur > 17 ? (unsigned int)rl.rlim_cur - 16 : 1;
	c.slots = calloc(c.maxslots, sizeof(*c.slots));
	/* at most min(nfiles, nentries) distinct files are ever looked up */
	if (!c.slots || hash_init(&c, in->nfiles < in->nentries ? in->nfiles : in->nentries) < 0) {
		rc = -ENOMEM;
		*why = "out of memory";
		goto out;
	}
	/* pread, and the second pass of the asynchronous methods */
	c.nullfd = bp_reader_open_null();
	if (o->method == BP_READ_PREAD) {
		c.buf = malloc(BP_READER_CHUNK);
		if (!c.buf) {
			rc = -ENOMEM;
			*why = "out of memory";
			goto out;
		}
	}

	if (bp_pack_nmeta(p)) {
		if (o->no_meta)
			st->why_meta = "--no-meta";
		else
			c.devfd = meta_device(&c, in, uuid_checked);
		if (c.devfd < 0)
			st->meta_skipped = 1;
	}
	if (o->ready)
		o->ready();
	if (o->method == BP_READ_URING) {
		int r = bp_uring_open(&c.u, URING_ENTRIES, BP_READER_CHUNK);

		if (r < 0)
			st->uring_errno = -r;	/* read with pread instead */
	}
	if (bp_pack_nmeta(p) && c.devfd >= 0)
		read_meta(&c, p, c.devfd);
	if (c.u)
		uring_submit(&c);	/* the metadata first: file lookups need it */
	read_entries(&c, p);
	uring_drain(&c);
	if (o->method == BP_READ_READAHEAD || o->method == BP_READ_FADVISE) {
		/* nothing silently dropped: what is not resident now is read again */
		c.pass = 2;
		if (c.devfd >= 0)
			read_meta(&c, p, c.devfd);
		read_entries(&c, p);
	}
out:
	free_ctx(&c);
	st->elapsed_ms = bp_reader_now_ms() - c.t0;
	return rc;
}
