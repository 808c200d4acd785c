/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefile.h --- the bootpack trace: what a boot read, in first-access order
 *
 * This is the contract between `bootpack trace` (writer) and relayout,
 * pack, dump and verify (readers). Implemented in trace/tracefile.c
 * (the object, writing) and trace/tracefile-parse.c (loading).
 *
 * On-disk format, version 1: UTF-8 text, one record per line, fields
 * separated by one space, '#' starts a comment line, blank lines ignored.
 * All numbers are unsigned decimal unless said otherwise; offsets and
 * lengths are in bytes; times are nanoseconds since the start of the trace
 * (the first event is 0). Paths are relative to the root of the traced
 * filesystem, start with '/', and escape '%', space, control characters
 * and bytes >= 0x7f as %XX (hex).
 *
 *   bootpack-trace 1                     first line: magic and version
 *   uuid <uuid>                          filesystem UUID (lower case)
 *   block-size <n>                       filesystem block size
 *   device <path>                        device the trace was resolved against (escaped)
 *   dev <major>:<minor>                  dev_t of the traced block device ("0:0" if unknown)
 *   kernel <release>                     uname -r of the traced kernel (escaped)
 *   source <command|boot|import|merge>   how it was collected
 *   created <unix-seconds>
 *   events <added> <accessed> <lost>     counts from the tracer (lost > 0: the buffer overflowed)
 *   M <offset> <length> <first>          metadata range: physical bytes on the device
 *   F <ino> <generation> <size> <mtime> <path>
 *                                        a regular file (mtime in seconds); its R lines follow
 *   R <offset> <length> <first> <phys>   a range of the preceding F's file; <phys> is the
 *                                        physical byte offset of <offset> on the device, the
 *                                        range being physically contiguous, or "-" for a hole
 *                                        or unwritten extent (nothing to read from disk)
 *   end <records>                        last line: number of M, F and R lines (truncation check)
 *
 * Header lines come first, in any order; unknown header keys are an error
 * in version 1. An unknown device or kernel is written as "-". Ranges of one file do not overlap and are sorted by offset;
 * M lines are sorted by offset and do not overlap. Readers report a corrupt
 * file with its line number and the reason.
 */
#ifndef BP_TRACEFILE_H
#define BP_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "bperr.h"
#include "fileid.h"

#define BP_TRACE_VERSION 1
#define BP_PHYS_NONE UINT64_MAX
#define BP_TRACE_PATH_MAX 4096

struct bp_trace_meta {
	uint64_t offset;	/* physical byte offset on the device */
	uint64_t length;
	uint64_t first_ns;
};

struct bp_trace_range {
	uint64_t offset;	/* byte offset in the file */
	uint64_t length;
	uint64_t first_ns;
	uint64_t phys;		/* physical byte offset, or BP_PHYS_NONE */
};

struct bp_trace_file {
	uint32_t ino;
	uint32_t generation;
	uint64_t size;
	int64_t mtime;
	char *path;
	uint64_t first_ns;	/* min over ranges */
	struct bp_trace_range *ranges;
	size_t nranges, aranges;	/* aranges: allocated (bp_array_reserve) */
};

/* The file's identity as the trace recorded it (seconds only: no nanoseconds). */
static inline struct bp_file_id bp_trace_file_id(const struct bp_trace_file *f)
{
	return (struct bp_file_id){ .ino = f->ino, .generation = f->generation, .size = f->size,
				    .mtime_sec = f->mtime };
}

struct bp_trace_hdr {
	char uuid[37];
	uint32_t block_size;
	char *device;
	uint32_t dev_major, dev_minor;
	char *kernel;
	char *source;
	int64_t created;
	uint64_t events_added, events_accessed, events_lost;
};

struct bp_trace {
	struct bp_trace_hdr hdr;
	struct bp_trace_file *files;	/* sorted by first_ns, then ino */
	size_t nfiles, afiles;		/* afiles, ameta: allocated (bp_array_reserve) */
	struct bp_trace_meta *meta;	/* sorted by offset */
	size_t nmeta, ameta;
};

/* One file range, seen in first-access order across all files. */
struct bp_trace_ref {
	const struct bp_trace_file *file;
	const struct bp_trace_range *range;
};

struct bp_trace *bp_trace_new(void);
void bp_trace_free(struct bp_trace *t);

/* Parse a trace file. BP_ET_TRACE_CORRUPT with "PATH:LINE: reason" in err. */
errcode_t bp_trace_load(const char *path, struct bp_trace **ret, struct bp_err *err);

/* Write atomically (temporary file + fsync + rename). */
errcode_t bp_trace_save(const struct bp_trace *t, const char *path, struct bp_err *err);

/* Every file range ordered by first access (ties: file order, then offset). */
errcode_t bp_trace_ranges_by_time(const struct bp_trace *t, struct bp_trace_ref **ret,
				  size_t *count);

/*
 * Building a trace (trace/build.c), for the writers: add records, then
 * normalise (sort, merge overlapping/adjacent ranges, order files).
 */
struct bp_trace_file *bp_trace_add_file(struct bp_trace *t, uint32_t ino, uint32_t generation,
					uint64_t size, int64_t mtime, const char *path);
errcode_t bp_trace_file_add_range(struct bp_trace_file *f, uint64_t offset, uint64_t length,
				  uint64_t first_ns, uint64_t phys);
errcode_t bp_trace_add_meta(struct bp_trace *t, uint64_t offset, uint64_t length,
			    uint64_t first_ns);
/* Set a header string (device, kernel, source); copies value. */
errcode_t bp_trace_set_str(char **field, const char *value);
/*
 * Sort ranges by offset and merge those that overlap, or touch with no other
 * file first read in between (a run of first access: the head and the tail
 * of a file read apart stay two ranges), and, for file ranges, are physically
 * contiguous; order files by first access, then inode; sort and merge
 * metadata ranges; drop files with no range. ENOMEM is the only error.
 */
errcode_t bp_trace_normalize(struct bp_trace *t);
/* Number of M, F and R records bp_trace_save() writes. */
uint64_t bp_trace_records(const struct bp_trace *t);

/*
 * Merge src into dst (trace/merge.c): same UUID required
 * (BP_ET_TRACE_MISMATCH). A file whose generation, size or mtime differs
 * is taken from the trace created last. dst is normalised afterwards.
 */
errcode_t bp_trace_merge(struct bp_trace *dst, const struct bp_trace *src, struct bp_err *err);

/* Escape a path for the file format into buf (at least 3 * strlen + 1). */
void bp_trace_escape(const char *in, char *buf);

/*
 * Refuse a trace of another filesystem (trace/resolve.c, libext2fs): 0, or
 * BP_ET_TRACE_MISMATCH when devpath's UUID or block size differs.
 */
errcode_t bp_trace_check_device(const struct bp_trace *t, const char *devpath,
				struct bp_err *err);

#endif /* BP_TRACEFILE_H */
