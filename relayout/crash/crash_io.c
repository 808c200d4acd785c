// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * crash_io.c --- fault-injecting io_manager: a volatile write cache and a power cut at write N
 *
 * The crash model of doc/relayout-safety.md §2: every write issued since the
 * last completed io_channel_flush() may or may not be on the disk, in any
 * combination (and, with BP_CRASH_TORN, any sector of it). Writes
 * are kept in a per-channel queue (offset, length, bytes); reads overlay the
 * queue on the file; flush applies the queue in program order and fsync()s.
 * At the chosen write the process applies a pseudo-random subset of every
 * open channel's queue and leaves with _exit(), as a power cut would.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "c.h"
#include "crash_io.h"


struct cio_write {
	uint64_t off;
	size_t len;
	unsigned char *data;
};

struct cio_chan {
	int fd;
	int counted;		/* its writes are crash points (BP_CRASH_DEVICE) */
	struct cio_write *q;
	size_t nq, aq;
	struct struct_io_stats stats;
	struct cio_chan *next;	/* list of open channels (a power cut hits them all) */
};

static struct {
	int loaded;
	uint64_t crash_at;	/* 0 = never */
	uint64_t signal_at;	/* raise(SIGTERM) at this write; 0 = never */
	uint64_t seed;
	int prefix, torn;
	size_t sector;		/* atomic unit of a torn write */
	const char *count_file, *log_file;
	const char *device;	/* count only writes to names ending in this */
	uint64_t writes, flushes;
	struct cio_chan *open;
	int atexit_done;
} cio;

uint64_t crash_io_writes(void)
{
	return cio.writes;
}

uint64_t crash_io_flushes(void)
{
	return cio.flushes;
}

static void cio_write_count(void)
{
	FILE *f;

	if (!cio.count_file)
		return;
	f = fopen(cio.count_file, "w");
	if (!f)
		return;
	fprintf(f, "writes %llu\nflushes %llu\n", (unsigned long long)cio.writes,
		(unsigned long long)cio.flushes);
	fclose(f);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end) {
		fprintf(stderr, "crash_io: %s=%s is not a number\n", name, s);
		_exit(2);
	}
	return v;
}

static void cio_load_env(void)
{
	if (cio.loaded)
		return;
	cio.loaded = 1;
	cio.crash_at = env_u64("BP_CRASH_AT", 0);
	cio.signal_at = env_u64("BP_CRASH_SIGNAL_AT", 0);
	cio.seed = env_u64("BP_CRASH_SEED", 1);
	cio.prefix = env_u64("BP_CRASH_PREFIX", 0) != 0;
	cio.torn = env_u64("BP_CRASH_TORN", 0) != 0;
	cio.sector = (size_t)env_u64("BP_CRASH_SECTOR", 512);
	if (cio.sector < 512 || (cio.sector & (cio.sector - 1))) {
		fprintf(stderr, "crash_io: BP_CRASH_SECTOR must be a power of two >= 512\n");
		_exit(2);
	}
	cio.count_file = getenv("BP_CRASH_COUNT");
	if (cio.count_file && !*cio.count_file)
		cio.count_file = NULL;
	cio.device = getenv("BP_CRASH_DEVICE");
	if (cio.device && !*cio.device)
		cio.device = NULL;
	cio.log_file = getenv("BP_CRASH_LOG");
	if (cio.log_file && !*cio.log_file)
		cio.log_file = NULL;
	if (cio.count_file && !cio.atexit_done) {
		atexit(cio_write_count);
		cio.atexit_done = 1;
	}
}

/* "write LEN OFFSET" or "flush N QUEUED". */
static void cio_log(const char *what, unsigned long long a, unsigned long long b)
{
	FILE *f;

	if (!cio.log_file)
		return;
	f = fopen(cio.log_file, "a");
	if (!f)
		return;
	fprintf(f, "%s %llu %llu\n", what, a, b);
	fclose(f);
}

/* xorshift64*: small, deterministic, good enough to pick subsets. */
static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ULL;
}

static errcode_t pwrite_all(int fd, const unsigned char *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static void cio_drop_queue(struct cio_chan *c)
{
	size_t i;

	for (i = 0; i < c->nq; i++)
		free(c->q[i].data);
	c->nq = 0;
}

/* Apply the queue in program order, then fsync: a completed barrier. */
static errcode_t cio_apply_all(struct cio_chan *c)
{
	errcode_t rc = 0;
	size_t i;

	for (i = 0; i < c->nq && !rc; i++)
		rc = pwrite_all(c->fd, c->q[i].data, c->q[i].len, c->q[i].off);
	cio_drop_queue(c);
	if (!rc && fsync(c->fd) < 0)
		rc = errno;
	return rc;
}

/*
 * The power cut: each pending write of each open channel lands whole, not
 * at all or (torn) as a subset of its sectors; survivors land in program
 * order, so a later write to the same bytes wins as on a real disk queue.
 */
static void __attribute__((noreturn)) cio_power_cut(void)
{
	unsigned long long applied = 0, pending = 0;
	struct cio_chan *c;
	size_t i;

	rnd_state = (cio.seed * 0x9E3779B97F4A7C15ULL) ^ (cio.crash_at + 1) ^ 0x5DEECE66DULL;
	if (!rnd_state)
		rnd_state = 1;
	for (c = cio.open; c; c = c->next) {
		for (i = 0; i < c->nq; i++) {
			struct cio_write *w = &c->q[i];
			/* Sectors are aligned on the device, not on the write. */
			uint64_t first = w->off / cio.sector;
			uint64_t last = (w->off + w->len - 1) / cio.sector;
			size_t nsec = w->len ? (size_t)(last - first + 1) : 1;
			unsigned int how;

			pending++;
			if (cio.prefix) {
				pwrite_all(c->fd, w->data, w->len, w->off);
				applied++;
				continue;
			}
			how = (unsigned int)(rnd() % (cio.torn && nsec > 1 ? 3 : 2));
			if (how == 0)
				continue;
			applied++;
			if (how == 1) {
				pwrite_all(c->fd, w->data, w->len, w->off);
				continue;
			}
			for (uint64_t sec = first; sec <= last; sec++) {
				uint64_t s = MAX(sec * cio.sector, w->off);
				uint64_t e = MIN((sec + 1) * cio.sector, w->off + w->len);

				if (rnd() & 1)
					pwrite_all(c->fd, w->data + (s - w->off), (size_t)(e - s), s);
			}
		}
		fsync(c->fd);
	}
	fprintf(stderr, "crash_io: power cut at write %llu (seed %llu%s%s, %zu-byte sectors): "
			"%llu of %llu pending writes applied\n",
		(unsigned long long)cio.crash_at, (unsigned long long)cio.seed,
		cio.prefix ? ", prefix" : "", cio.torn ? ", torn" : "", cio.sector, applied, pending);
	_exit(BP_CRASH_EXIT);
}

static errcode_t cio_open(const char *name, int flags, io_channel *channel);

static errcode_t cio_close(io_channel channel)
{
	struct cio_chan *c, **pp;
	errcode_t rc = 0;

	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	if (--channel->refcount > 0)
		return 0;
	c = channel->private_data;
	/* unix_io's close writes its cache out as well (no fsync). */
	rc = cio_apply_all(c);
	for (pp = &cio.open; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (close(c->fd) < 0 && !rc)
		rc = errno;
	free(c->q);
	free(c);
	ext2fs_free_mem(&channel->name);
	ext2fs_free_mem(&channel);
	cio_write_count();
	return rc;
}

static errcode_t cio_set_blksize(io_channel channel, int blksize)
{
	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	channel->block_size = blksize;
	return 0;
}

/* Negative counts are bytes (ext2_io.h convention). */
static int cio_span(io_channel channel, unsigned long long block, int count, uint64_t *off,
		    size_t *len)
{
	if (count < 0)
		*len = (size_t)-(long long)count;
	else
		*len = (size_t)count * (size_t)channel->block_size;
	*off = (uint64_t)block * (uint64_t)channel->block_size;
	return *len > (size_t)1 << 30 ? -1 : 0;
}

static errcode_t cio_read_blk64(io_channel channel, unsigned long long block, int count,
				void *data)
{
	struct cio_chan *c;
	unsigned char *buf = data;
	uint64_t off;
	size_t len, done = 0, i;

	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	c = channel->private_data;
	if (cio_span(channel, block, count, &off, &len))
		return EXT2_ET_INVALID_ARGUMENT;
	while (done < len) {
		ssize_t n = pread(c->fd, buf + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0) {	/* past the end: zeros, as a short unix_io read would not */
			memset(buf + done, 0, len - done);
			break;
		}
		done += (size_t)n;
	}
	/* The volatile cache is what a reader sees: overlay it in program order. */
	for (i = 0; i < c->nq; i++) {
		const struct cio_write *w = &c->q[i];
		uint64_t s = MAX(off, w->off), e = MIN(off + len, w->off + w->len);

		if (s < e)
			memcpy(buf + (s - off), w->data + (s - w->off), (size_t)(e - s));
	}
	c->stats.bytes_read += len;
	return 0;
}

static errcode_t cio_read_blk(io_channel channel, unsigned long block, int count, void *data)
{
	return cio_read_blk64(channel, block, count, data);
}

static errcode_t cio_queue(io_channel channel, uint64_t off, size_t len, const void *data)
{
	struct cio_chan *c = channel->private_data;
	struct cio_write *w;

	if (c->counted)
		cio.writes++;
	if (c->nq == c->aq) {
		size_t na = c->aq ? 2 * c->aq : 64;
		struct cio_write *nq = realloc(c->q, na * sizeof(*nq));

		if (!nq)
			return EXT2_ET_NO_MEMORY;
		c->q = nq;
		c->aq = na;
	}
	w = &c->q[c->nq];
	w->data = malloc(len ? len : 1);
	if (!w->data)
		return EXT2_ET_NO_MEMORY;
	memcpy(w->data, data, len);
	w->off = off;
	w->len = len;
	c->nq++;
	c->stats.bytes_written += len;
	cio_log("write", (unsigned long long)len, (unsigned long long)off);
	if (c->counted && cio.crash_at && cio.writes == cio.crash_at)
		cio_power_cut();
	if (c->counted && cio.signal_at && cio.writes == cio.signal_at)
		raise(SIGTERM);
	return 0;
}

static errcode_t cio_write_blk64(io_channel channel, unsigned long long block, int count,
				 const void *data)
{
	uint64_t off;
	size_t len;

	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	if (cio_span(channel, block, count, &off, &len))
		return EXT2_ET_INVALID_ARGUMENT;
	return cio_queue(channel, off, len, data);
}

static errcode_t cio_write_blk(io_channel channel, unsigned long block, int count,
			       const void *data)
{
	return cio_write_blk64(channel, block, count, data);
}

/*
 * Not implemented on purpose: ext2fs_flush() then writes the primary
 * superblock as one 1024-byte write instead of one write_byte per changed
 * 16-bit run (doc/relayout-safety.md §5).
 */
static errcode_t cio_write_byte(io_channel channel, unsigned long offset, int size,
				const void *data)
{
	(void)offset;
	(void)size;
	(void)data;
	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	return EXT2_ET_UNIMPLEMENTED;
}

static errcode_t cio_flush(io_channel channel)
{
	struct cio_chan *c;

	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	c = channel->private_data;
	cio.flushes++;
	cio_log("flush", (unsigned long long)cio.flushes,
		(unsigned long long)c->nq);
	return cio_apply_all(c);
}

static errcode_t cio_set_option(io_channel channel, const char *option, const char *arg)
{
	(void)arg;
	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	/* unix_io's cache switch: there is nothing but the volatile queue here. */
	if (!strcmp(option, "cache"))
		return 0;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t cio_get_stats(io_channel channel, io_stats *stats)
{
	struct cio_chan *c;

	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	c = channel->private_data;
	c->stats.num_fields = 2;
	if (stats)
		*stats = &c->stats;
	return 0;
}

/* Discard and zeroout: unsupported, so the library falls back to plain (counted) writes. */
static errcode_t cio_discard(io_channel channel, unsigned long long block,
			     unsigned long long count)
{
	(void)block;
	(void)count;
	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	return EXT2_ET_UNIMPLEMENTED;
}

static errcode_t cio_zeroout(io_channel channel, unsigned long long block,
			     unsigned long long count)
{
	(void)block;
	(void)count;
	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	return EXT2_ET_UNIMPLEMENTED;
}

static errcode_t cio_cache_readahead(io_channel channel, unsigned long long block,
				     unsigned long long count)
{
	(void)block;
	(void)count;
	EXT2_CHECK_MAGIC(channel, EXT2_ET_MAGIC_IO_CHANNEL);
	return 0;
}

static struct struct_io_manager cio_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "bootpack crash-injection I/O manager",
	.open = cio_open,
	.close = cio_close,
	.set_blksize = cio_set_blksize,
	.read_blk = cio_read_blk,
	.write_blk = cio_write_blk,
	.flush = cio_flush,
	.write_byte = cio_write_byte,
	.set_option = cio_set_option,
	.get_stats = cio_get_stats,
	.read_blk64 = cio_read_blk64,
	.write_blk64 = cio_write_blk64,
	.discard = cio_discard,
	.cache_readahead = cio_cache_readahead,
	.zeroout = cio_zeroout,
};

io_manager crash_io_manager = &cio_manager;

static errcode_t cio_open(const char *name, int flags, io_channel *channel)
{
	io_channel io = NULL;
	struct cio_chan *c;
	int oflags = (flags & IO_FLAG_RW) ? O_RDWR : O_RDONLY;
	errcode_t rc;

	if (!name)
		return EXT2_ET_BAD_DEVICE_NAME;
	cio_load_env();
	if (flags & IO_FLAG_EXCLUSIVE)
		oflags |= O_EXCL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return EXT2_ET_NO_MEMORY;
	c->counted = !cio.device || (strlen(name) >= strlen(cio.device) &&
				     !strcmp(name + strlen(name) - strlen(cio.device), cio.device));
	c->fd = open(name, oflags | O_CLOEXEC);
	if (c->fd < 0) {
		rc = errno;
		free(c);
		return rc;
	}
	rc = ext2fs_get_memzero(sizeof(*io), &io);
	if (!rc)
		rc = ext2fs_get_mem(strlen(name) + 1, &io->name);
	if (rc) {
		close(c->fd);
		free(c);
		ext2fs_free_mem(&io);
		return rc;
	}
	strcpy(io->name, name);
	io->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	io->manager = crash_io_manager;
	io->block_size = 1024;
	io->refcount = 1;
	io->private_data = c;
	c->next = cio.open;
	cio.open = c;
	*channel = io;
	return 0;
}
