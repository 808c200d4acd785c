/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * from-kernel.h --- the record of the bootpack kernel patch (kernel/)
 *
 * With bootpack.record=1 the patched kernel records every page-cache read
 * from disk and shows the record in debugfs (kernel/README.md):
 *
 *   bootpack-record 1                        first line: magic and version
 *   page-size <bytes>                        the unit of <index> and <count>
 *   state <recording|stopped|freed>
 *   capacity <entries>                       size of the in-kernel buffer
 *   entries <n>                              entries held
 *   dropped <pages>                          pages not recorded: buffer full
 *   F <ns> <maj>:<min> <ino> <gen> <index> <count>
 *                                            file pages [index, index+count) of
 *                                            inode <ino> (generation <gen>) of the
 *                                            filesystem on <maj>:<min>, first read
 *                                            <ns> nanoseconds after boot
 *   B <ns> <maj>:<min> <index> <count>       pages of block device <maj>:<min>
 *                                            itself (metadata), by device offset
 *   end <n>                                  last line: number of F and B lines
 *
 * Header lines come before the first entry; readers ignore header keys they
 * do not know. All numbers are unsigned decimal.
 */
#ifndef BP_FROM_KERNEL_H
#define BP_FROM_KERNEL_H

#include <stdint.h>
#include <stdio.h>

#include "bperr.h"
#include "trace-engine.h"

#define BP_KREC_PATH "/sys/kernel/debug/bootpack/record"
#define BP_KREC_CONTROL "/sys/kernel/debug/bootpack/control"
#define BP_KREC_VERSION 1

enum bp_krec_state { BP_KREC_RECORDING, BP_KREC_STOPPED, BP_KREC_FREED };

struct bp_krec_entry {
	uint64_t time_ns;
	uint64_t ino;		/* 0 for block-device pages */
	uint64_t index, count;	/* pages */
	uint32_t kdev;		/* BP_KDEV(major, minor) */
	uint32_t gen;
	int bdev;		/* a 'B' line */
	int skip;		/* dropped by bp_krec_check_generations */
};

struct bp_krec {
	uint64_t page_size;
	enum bp_krec_state state;
	uint64_t capacity, entries, dropped;
	struct bp_krec_entry *e;
	size_t n, cap;
};

/*
 * Parse a record. A malformed or truncated record is BP_ET_TRACE_CORRUPT
 * ("NAME:LINE: reason"); another version is BP_ET_UNSUPPORTED.
 */
errcode_t bp_krec_parse(FILE *fp, const char *name, struct bp_krec **ret, struct bp_err *err);
void bp_krec_free(struct bp_krec *r);

/*
 * Mark (skip = 1) the file entries of kdev whose inode on devpath now has
 * another generation or is deleted: the inode was reused since the record.
 * libext2fs, read-only. *nskipped gets the number of pages marked.
 */
errcode_t bp_krec_check_generations(struct bp_krec *r, uint32_t kdev, const char *devpath,
				    uint64_t *nskipped, struct bp_err *err);

/*
 * Feed the entries not skipped into c as page-cache additions: file pages
 * as events of their device, block-device pages as metadata (major 0,
 * inode = the device's dev_t, as the filemap events show them). The
 * record's dropped pages are counted as lost events.
 */
errcode_t bp_krec_collect(const struct bp_krec *r, struct bp_collect *c, struct bp_err *err);

/*
 * What --from-kernel does: read the record at path (NULL: the live record,
 * stopped first by writing "stop" to the control file), pick the traced
 * device (*kdev, when 0: the one device files were read from), drop
 * reused inodes (devpath) and feed the rest into c.
 */
errcode_t bp_krec_read(const char *path, const char *devpath, uint32_t *kdev,
		       struct bp_collect *c, struct bp_err *err);

#endif /* BP_FROM_KERNEL_H */
