/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader-int.h --- bootpack-read's engine internals: the run's context, shared by its passes
 *
 * reader-io.c sets a run up and calls the passes; reader-meta.c reads the
 * metadata ranges through the block device, reader-files.c the file
 * entries; reader-read.c issues the reads with the configured method.
 */
#ifndef BP_READER_INT_H
#define BP_READER_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "reader.h"

enum fstate {
	FS_UNKNOWN = 0,
	FS_OK,
	FS_STALE,
	FS_UNSAFE,
	FS_MISSING,
};

#define URING_ENTRIES	1024	/* reads in flight at most */
#define URING_BATCH	512	/* reads submitted by one io_uring_enter(2): one block plug */
#define TAG_META	UINT64_MAX

/* Metadata ranges read as one request; budget: the earliest the boot needs one. */
struct meta_chain {
	uint64_t at, len, budget;
};

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
	uint64_t gap;		/* metadata gaps read through, bytes */
	int meta_async;		/* metadata issued with WILLNEED: check it at the end */
	uint64_t window;	/* io_uring: bytes queued or in flight at most (--in-flight) */
	uint64_t in_flight;	/* io_uring: bytes queued or in flight now */
	uint64_t fill_to;	/* io_uring: in_flight where the current refill ends */
	uint64_t req_bytes;	/* io_uring: bytes of one request, one submit (0: unknown) */
	uint64_t req_fill;	/* io_uring: disk bytes queued into the current request */
	uint64_t range_phys;	/* where the range being read starts on the device, or NONE */
	uint64_t next_phys;	/* where the last read queued ends on the device, or NONE */
	struct meta_chain *later;	/* metadata chains read at their place in the stream */
	unsigned int nlater, maxlater, next_later;
	uint64_t file_queued;	/* bytes of file ranges issued so far (pass 1) */
	int streaming;		/* o->streaming() was called */
	int pass;		/* 1: read; 2: check residency, read what is missing */
	uint64_t pg;		/* this system's page size (sysconf), a power of two */
	int round_out;		/* the pack is for smaller pages: file ranges rounded out to pg */
};

/* reader-read.c: how a range is read */
int rd_out_of_time(struct rctx *c);
void rd_count_bytes(struct rctx *c, uint64_t tag, uint64_t n);
int rd_uring_submit(struct rctx *c);
void rd_uring_drain(struct rctx *c);
uint64_t rd_read_range(struct rctx *c, int fd, uint64_t off, uint64_t len, uint64_t tag);
void rd_streaming(struct rctx *c);
unsigned char *rd_mincore(const struct rctx *c, int fd, uint64_t first, uint64_t npages);

/* reader-files.c: the file entries */
int rd_hash_init(struct rctx *c, uint32_t nfiles);
struct slot *rd_find_slot(struct rctx *c, uint32_t path_off);
void rd_read_entries(struct rctx *c, const struct bp_pack *p);

/* reader-meta.c: the metadata ranges */
void rd_read_meta(struct rctx *c, const struct bp_pack *p, int devfd);
void rd_meta_due(struct rctx *c, uint64_t pos);
int rd_meta_device(struct rctx *c, const struct bp_pack_info *in, int uuid_checked);

#endif /* BP_READER_INT_H */
