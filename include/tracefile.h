/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefile.h --- the bootpack trace: what a boot read, in first-access order
 *
 * This is the contract between `bootpack trace` (writer) and relayout,
 * pack, dump and verify (readers). Implemented in trace/tracefile.c
 * (the object, writing) and trace/tracefile-parse.c (loading).
 *
 * On-disk format, version 2: UTF-8 text, one record per line, fields
 * separated by one space, '#' starts a comment line, blank lines ignored.
 * All numbers are unsigned decimal unless said otherwise; offsets and
 * lengths are in bytes; times are nanoseconds since the start of the trace
 * (the first event is 0). Paths are relative to the root of the traced
 * filesystem, start with '/', and escape '%', space, control characters
 * and bytes >= 0x7f as %XX (hex).
 *
 *   bootpack-trace 2                     first line: magic and version
 *   uuid <uuid>                          filesystem UUID (lower case)
 *   block-size <n>                       filesystem block size
 *   device <path>                        device the trace was resolved against (escaped)
 *   dev <major>:<minor>                  dev_t of the traced block device ("0:0" if unknown)
 *   kernel <release>                     uname -r of the traced kernel (escaped)
 *   source <command|boot|import|merge>   how it was collected
 *   created <unix-seconds>
 *   events <added> <accessed> <lost>     counts from the tracer (lost > 0: the buffer overflowed)
 *   O <kind> <id> <gen> <index> <count> <first> [at=<offset>]
 *                                        metadata blocks named by their owner (below)
 *   M <offset> <length> <first>          metadata range with no owner: physical bytes
 *                                        on the device (partition-table probes, blocks
 *                                        beyond the filesystem, free blocks)
 *   F <ino> <generation> <size> <mtime> <path>
 *                                        a regular file (mtime in seconds); its R lines follow
 *   R <offset> <length> <first> <phys>   a range of the preceding F's file; <phys> is the
 *                                        physical byte offset of <offset> on the device, the
 *                                        range being physically contiguous, or "-" for a hole
 *                                        or unwritten extent (nothing to read from disk)
 *   end <records>                        last line: number of M, F and R lines (truncation check)
 *
 * Metadata by owner (version 2). A block the boot read through the block
 * device is recorded as what it is on the filesystem the trace was taken
 * on (resolved once, with libext2fs, when the trace is made: trace/owner.c),
 * so that it can be found again after a relayout moved it. <count> blocks
 * from <index>; <id> and <gen> as the kind says, 0 where unused:
 *
 *   dir      a directory's blocks: id inode, gen its generation, index logical block
 *   tree     a file's or directory's extent-tree or indirect blocks: id inode, gen
 *            generation, index the ordinal of the block among the inode's mapping
 *            blocks in walk order (bp_ext2_file_walk, BP_EXT2_WALK_META)
 *   itable   inode-table blocks: id group, index block within the group's table
 *   super    a superblock (primary or backup): id group, index 0
 *   gdt      group descriptor (and reserved GDT) blocks: id group, index block in the run
 *   bbitmap  a block bitmap: id group, index 0
 *   ibitmap  an inode bitmap: id group, index 0
 *   journal  the internal journal: index logical block of the journal inode
 *
 * at=<offset> (optional): the physical byte offset on the device of the
 * first of the <count> blocks when the traced boot read them (written when
 * the trace is resolved: the blocks of one O line are then physically
 * contiguous too), a multiple of the block size, the blocks within 64-bit
 * bytes. It says where the boot read, not where the owner is: readers
 * that model the traced boot's reads (the bench's "traced" stream,
 * bp_trace_meta_traced()) use it; an O line without it was read somewhere
 * unknown.
 *
 * O lines are sorted by (kind in the order above, id, gen, index) and do
 * not overlap. Version 1 had no O lines (every metadata range an M line);
 * it is still read, and converted where a device is at hand
 * (bp_trace_upgrade()): its M blocks are named by what owns them on the
 * device now, which is right when the filesystem has not been relaid out
 * since the trace was taken (after a relayout the moved blocks own nothing
 * or something else: see bp_trace_meta_now() for what is dropped; retrace
 * with `bootpack trace` for an exact trace).
 *
 * Header lines come first, in any order; unknown header keys are an error.
 * An unknown device or kernel is written as "-". Ranges of one file do not
 * overlap and are sorted by offset; M lines are sorted by offset and do not
 * overlap. Readers report a corrupt file with its line number and the
 * reason.
 */
#ifndef BP_TRACEFILE_H
#define BP_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "fileid.h"

#define BP_TRACE_VERSION 2
#define BP_PHYS_NONE UINT64_MAX
#define BP_TRACE_PATH_MAX 4096

struct bp_trace_meta {
	uint64_t offset;	/* physical byte offset on the device */
	uint64_t length;
	uint64_t first_ns;
	uint32_t kind;		/* enum bp_own_kind: BP_OWN_NONE for an M line */
};

/* What owns a metadata block (the O line kinds, in their sort order). */
enum bp_own_kind {
	BP_OWN_NONE = 0,	/* an M line: raw offset, no owner */
	BP_OWN_DIR,
	BP_OWN_TREE,
	BP_OWN_ITABLE,
	BP_OWN_SUPER,
	BP_OWN_GDT,
	BP_OWN_BBITMAP,
	BP_OWN_IBITMAP,
	BP_OWN_JOURNAL,
	BP_OWN_NR,
};

struct bp_trace_owned {
	uint32_t kind;		/* enum bp_own_kind, never BP_OWN_NONE */
	uint32_t id;		/* inode (dir, tree) or group */
	uint32_t gen;		/* generation (dir, tree), else 0 */
	uint64_t index;		/* first block: logical, ordinal or within the group's run */
	uint64_t count;		/* blocks */
	uint64_t first_ns;
	uint64_t at;		/* has_at: device byte offset of index as traced (at=) */
	uint32_t has_at;
};

/* "dir", "tree", ... ("raw" for BP_OWN_NONE, "?" out of range). */
const char *bp_own_kind_name(uint32_t kind);

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
	/*
	 * Sorted by offset. Loaded: the M lines (kind BP_OWN_NONE). Resolved
	 * in this process (bp_trace_owners_resolve()): also the device ranges
	 * of the owned blocks as they were read, kind set, each a copy of what
	 * an O record names; bp_trace_save() writes only the BP_OWN_NONE ones,
	 * bp_trace_meta_now() passes the others over.
	 */
	struct bp_trace_meta *meta;
	size_t nmeta, ameta;
	struct bp_trace_owned *owned;	/* O lines, sorted (see above) */
	size_t nowned, aowned;
	int version;			/* as loaded (1 or 2); built: BP_TRACE_VERSION */
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
/* Add count blocks of an owner (merged by bp_trace_normalize()). EINVAL, ENOMEM. */
errcode_t bp_trace_add_owned(struct bp_trace *t, const struct bp_trace_owned *o);
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
/* Number of O, M, F and R records bp_trace_save() writes. */
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

/*
 * Owners (trace/owner.c, libext2fs; fs opened read-only is enough).
 *
 * bp_trace_owners_resolve(): name the blocks of t's M ranges by their
 * owners on fs (the filesystem the trace is taken on): the blocks of
 * directories (a reverse map of every directory's blocks, from one walk
 * of the inode tables), the mapping blocks of directories and of the
 * traced files, inode tables, superblocks, descriptors, bitmaps and the
 * journal become O records; what owns nothing stays an M range. Sets
 * t->version to BP_TRACE_VERSION. *nsec: the time it took (may be NULL).
 *
 * bp_trace_upgrade(): bp_trace_owners_resolve() if t is a version 1 trace
 * (see above), else nothing. *free_blocks (may be NULL): the blocks of
 * its M ranges that own nothing and are free on fs now, the sign of a
 * relayout since the trace (whatever was there moved away).
 *
 * bp_trace_meta_now(): where the trace's metadata is on fs now: each O
 * record's blocks looked up again (a directory or file whose inode now has
 * another generation, or fewer blocks, gives nothing for the rest), each
 * M block kept unless it is free now or now belongs to a directory, a
 * mapping block, a group's metadata or the journal (a relayout freed or
 * reused it). One entry per run of blocks of one kind and first access,
 * kind set, sorted by offset, disjoint (the earliest first access kept);
 * *ret malloc'd. st (may be NULL): blocks found per kind, and lost.
 */
struct bp_meta_now_stats {
	uint64_t found[BP_OWN_NR];	/* blocks located, by kind */
	uint64_t gone[BP_OWN_NR];	/* blocks no longer there (raw: freed or reused) */
};
errcode_t bp_trace_owners_resolve(ext2_filsys fs, struct bp_trace *t, uint64_t *nsec,
				  struct bp_err *err);
errcode_t bp_trace_upgrade(ext2_filsys fs, struct bp_trace *t, uint64_t *free_blocks,
			   struct bp_err *err);
errcode_t bp_trace_meta_now(ext2_filsys fs, const struct bp_trace *t, struct bp_trace_meta **ret,
			    size_t *nret, struct bp_meta_now_stats *st, struct bp_err *err);

/*
 * bp_trace_meta_traced(): where the traced boot read its metadata, before
 * any relayout: the M ranges and the O records' at= offsets (no device
 * needed). Sorted by offset, disjoint (the earliest first access kept),
 * kind set; *ret malloc'd. *unplaced (may be NULL): blocks of O records
 * without at=, left out. ENOMEM is the only error.
 */
errcode_t bp_trace_meta_traced(const struct bp_trace *t, struct bp_trace_meta **ret,
			       size_t *nret, uint64_t *unplaced);

#endif /* BP_TRACEFILE_H */
