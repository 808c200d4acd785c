/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strategy.h --- the disk streams of four boot readahead strategies
 *
 * What the disk is asked to read during a boot under each strategy the boot
 * bench (bench/boot/) runs, built from one trace, so that bp-strategies
 * charges them on the same disk models as the real boot's disk filter (the
 * boot bench's own code: never linked into the installed bootpack):
 *
 *  stock       no readahead: the trace's ranges in first-access order, the
 *              metadata interleaved by first access; each range is its own
 *              request(s) of at most the kernel's readahead window
 *              (BP_STOCK_RA_WINDOW, the bench guest's read_ahead_kb), never
 *              merged with the range before (a demand read); a file's first
 *              range starts with the kernel's initial window
 *              (BP_STOCK_INITIAL_WINDOW). The strategies
 *              but bootpack read metadata this way too, in whichever process
 *              opens the files.
 *  sreadahead  bench/boot/sreadahead-style.c: files in first-access order,
 *              each file's traced ranges cut to at most 6 by joining the
 *              closest (the gaps are read too), one request per range (one
 *              readahead(2) call); 4 threads take files from one cursor.
 *              The threads are modelled as an elevator over their next
 *              requests: of the 4 threads' next reads the disk serves the
 *              nearest at or after the head, else the lowest (C-LOOK over a
 *              queue of 4). Opening a file reads the traced metadata first
 *              touched before that file, in the thread that opens it.
 *  ureadahead  bench/boot/ureadahead-style.c: the inode tables of the block
 *              groups holding more than 8 traced files (1 MiB reads), then
 *              the other traced metadata sorted by position (opening the
 *              files in inode order), then every traced range sorted by
 *              physical position, one request each: each is its own
 *              readahead(2) call, so adjacent ranges of different files are
 *              not merged (the real boot's disk log shows one request per
 *              range); overlapping bytes are read once.
 *  bootpack    bootpack-read with the pack: its metadata ranges in disk order
 *              (touching ones joined), then its entries in pack order, runs
 *              contiguous on disk merged across files (large io_uring reads).
 *
 * The first three read the layout recorded in the trace (the filesystem
 * before relayout); bootpack reads where the pack says (after relayout, when
 * the pack is relayout's). Only the reads are modelled: the boot's own demand
 * reads that race a reader, CPU time and writes are not. Streams do not depend
 * on the disk model.
 */
#ifndef BP_STRATEGY_H
#define BP_STRATEGY_H

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "pack-parse.h"
#include "stream.h"
#include "tracefile.h"

#define BP_STOCK_RA_WINDOW (128ULL << 10)	/* read_ahead_kb = 128 */
#define BP_STOCK_INITIAL_WINDOW (16ULL << 10)	/* a file's first read: 4 pages */
#define BP_SREADAHEAD_THREADS 4
#define BP_SREADAHEAD_MAX_RANGES 6		/* per file, as sreadahead's packer */
#define BP_UREADAHEAD_ITABLE_FILES 8		/* groups with more files: preload */
#define BP_UREADAHEAD_PREAD (1ULL << 20)	/* its buffer reading the inode tables */

enum bp_strategy {
	BP_STRATEGY_STOCK = 0,
	BP_STRATEGY_SREADAHEAD,
	BP_STRATEGY_UREADAHEAD,
	BP_STRATEGY_BOOTPACK,
	BP_STRATEGY_NR,
};

/* "stock", "sreadahead", "ureadahead", "bootpack" (the boot bench's names). */
extern const char *const bp_strategy_names[BP_STRATEGY_NR];

struct bp_strategy_in {
	const struct bp_trace *t;	/* positions as traced: before relayout */
	ext2_filsys fs;			/* inode tables (ureadahead) */
	const struct bp_pack *pack;	/* bootpack's read */
};

/* Build strategy k's stream into s (bp_stream_free() it). */
errcode_t bp_strategy_build(enum bp_strategy k, const struct bp_strategy_in *in,
			    struct bp_stream *s, struct bp_err *err);

#endif /* BP_STRATEGY_H */
