/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-engine.h --- the engine behind bootpack trace: tracefs, event
 * parsing, collection per inode, resolution with libext2fs
 */
#ifndef BP_TRACE_ENGINE_H
#define BP_TRACE_ENGINE_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "bperr.h"
#include "tracefile.h"

/* The kernel's internal dev_t encoding, as the filemap events print it. */
#define BP_KDEV(major, minor) (((uint32_t)(major) << 20) | ((uint32_t)(minor) & 0xfffff))
#define BP_KDEV_MAJOR(k) ((uint32_t)(k) >> 20)
#define BP_KDEV_MINOR(k) ((uint32_t)(k) & 0xfffff)

/*
 * The unit of the filemap events' pages (order=N is 2^N of them): the page
 * size of the running system, which is the traced one for a live trace
 * (sysconf; 4096 if it cannot say).
 */
uint64_t bp_trace_page_size(void);
#define BP_PAGE_SIZE bp_trace_page_size()

/* --- collect.c: events to page ranges per inode ------------------------ */

enum bp_ev_kind {
	BP_EV_ADD,	/* mm_filemap_add_to_page_cache: read from disk */
	BP_EV_ACCESS,	/* get_pages, map_pages, fault: used by someone */
};

struct bp_collect;

struct bp_prange {
	uint64_t start, end;	/* bytes, [start, end) */
	uint64_t first_ns;
};

struct bp_cfile {
	uint64_t ino;
	struct bp_prange *r;
	size_t n;
};

struct bp_collected {
	struct bp_cfile *files;	/* sorted by ino */
	size_t nfiles;
	struct bp_prange *meta;	/* physical bytes on the device, sorted */
	size_t nmeta;
	uint64_t added, accessed, lost;	/* events for this device; lost in total */
	int used_access;	/* ranges are added ∩ accessed */
};

struct bp_collect *bp_collect_new(void);
void bp_collect_free(struct bp_collect *c);
errcode_t bp_collect_event(struct bp_collect *c, enum bp_ev_kind kind, uint32_t kdev,
			   uint64_t ino, uint64_t start, uint64_t end, uint64_t ts_ns);
void bp_collect_lost(struct bp_collect *c, uint64_t n);	/* adds n */
uint64_t bp_collect_get_lost(const struct bp_collect *c);
void bp_collect_set_lost(struct bp_collect *c, uint64_t n);
uint64_t bp_collect_nevents(const struct bp_collect *c);
/* Distinct devices (major != 0) that file events came from, sorted; count returned. */
size_t bp_collect_devices(const struct bp_collect *c, uint32_t *kdevs, size_t max);
/*
 * Page ranges of device kdev: per inode, the pages added to the page cache,
 * intersected with the accessed pages when the trace has access events;
 * block-device entries (major 0, inode = kdev) become metadata ranges.
 * Times are relative to the first event kept (0).
 */
errcode_t bp_collect_finish(struct bp_collect *c, uint32_t kdev, struct bp_collected *out,
			    struct bp_err *err);
void bp_collected_free(struct bp_collected *col);

/* --- parse-text.c: the text of tracefs's "trace" file --------------------- */

/*
 * Parse a text trace into c. Lines of other events are skipped; a filemap
 * line that cannot be parsed, or a line that is not an event, is an error
 * (BP_ET_TRACE_CORRUPT, "NAME:LINE: reason"). Lost events ("[LOST n
 * EVENTS]", or entries-in-buffer/entries-written) go to bp_collect_lost.
 */
errcode_t bp_parse_text(FILE *fp, const char *name, struct bp_collect *c, struct bp_err *err);

/* --- resolve.c: inodes and page ranges to files and physical extents ------ */

struct bp_resolve_stats {
	uint64_t files, deleted, nonreg, written, unnamed;
	uint64_t owner_ns;		/* naming the metadata's owners (bp_trace_owners_resolve) */
};

/*
 * Open devpath read-only with libext2fs and turn col into t: UUID, block
 * size, files (generation, size, mtime, path, physical offsets) and
 * metadata. Files modified at or after written_after (nanoseconds since
 * the epoch, INT64_MIN: no check), deleted and non-regular inodes are dropped.
 */
errcode_t bp_resolve(const struct bp_collected *col, const char *devpath, int64_t written_after,
		     struct bp_trace *t, struct bp_resolve_stats *st, struct bp_err *err);
/* The same for a filesystem at an offset in an image file (fsident.h). */
struct bp_fsloc;
errcode_t bp_resolve_at(const struct bp_collected *col, const struct bp_fsloc *loc,
			int64_t written_after, struct bp_trace *t, struct bp_resolve_stats *st,
			struct bp_err *err);

/* What bp_trace_from_events() learnt on its way. */
struct bp_events_stats {
	int collected;			/* the events were collected: lost, used_access hold */
	uint64_t lost;			/* events lost in total */
	int used_access;		/* ranges are added ∩ accessed */
	struct bp_resolve_stats res;	/* once resolved */
};

/*
 * The one way from collected events to a trace: the events of device kdev
 * in c (bp_collect_finish()), resolved on the filesystem at loc
 * (bp_resolve_at(), written_after as there) into a new trace, *ret (free
 * with bp_trace_free()), whose header holds kdev's major and minor; the
 * caller fills in the rest of the header. c stays the caller's. What the
 * collection says of itself is in *st once st->collected is set, also when
 * the resolution then fails. On error *ret is NULL.
 */
errcode_t bp_trace_from_events(struct bp_collect *c, uint32_t kdev, const struct bp_fsloc *loc,
			       int64_t written_after, struct bp_trace **ret,
			       struct bp_events_stats *st, struct bp_err *err);

/* --- event-format.c: an event's tracefs "format" file --------------------- */

#define BP_EV_FIELDS_MAX 32

struct bp_ev_field {
	char name[48];
	unsigned int offset, size;
	int is_signed;
};

struct bp_ev_format {
	char name[64];
	unsigned int id;
	struct bp_ev_field fields[BP_EV_FIELDS_MAX];
	unsigned int nfields;
	char print_fmt[1024];
};

errcode_t bp_ev_format_parse(FILE *fp, const char *path, struct bp_ev_format *f,
			     struct bp_err *err);
const struct bp_ev_field *bp_ev_format_field(const struct bp_ev_format *f, const char *name);
/*
 * 0 if f is a filemap event whose layout bootpack reads: a 4- or 8-byte
 * i_ino (32-bit, 64-bit or u64 kernels), s_dev, index, and a print format
 * with dev, ino in hex and ofs in bytes; else BP_ET_UNSUPPORTED and why.
 */
errcode_t bp_ev_format_check(const struct bp_ev_format *f, struct bp_err *err);

/* --- tracefs.c: a tracefs instance of our own ------------------------------ */

struct bp_tracefs {
	char root[512];		/* the tracefs mount */
	char dir[PATH_MAX];	/* our instance, or root for the top buffer */
	int instance;		/* dir is an instance we created */
	unsigned int enabled;	/* bit i: bp_tracefs_events[i] enabled */
	unsigned int missing;	/* bit i: bp_tracefs_events[i] not in this kernel */
	int on_fd;		/* tracing_on, kept open for signal handlers */
	int restore_on;		/* top buffer: tracing_on was 1, set it back on close */
	unsigned int ino_size;	/* bytes of i_ino in add_to_page_cache (4 or 8) */
	unsigned int bad_layout;	/* bit i: event present but its layout is unknown */
};

/* "filemap/mm_filemap_add_to_page_cache", …; index 0 is required. */
extern const char *const bp_tracefs_events[];
extern const unsigned int bp_tracefs_nevents;

/* Find tracefs, mounting it on /sys/kernel/tracing if needed. */
errcode_t bp_tracefs_open(struct bp_tracefs *tf, struct bp_err *err);
/* Remove instances of earlier runs whose process is gone. */
void bp_tracefs_reap(const struct bp_tracefs *tf);
/*
 * Create instance "bootpack-PID" with buffer_kb per CPU, enable the events
 * that exist (filtered to kdev when kdev != 0), tracing off until start.
 */
errcode_t bp_tracefs_create(struct bp_tracefs *tf, unsigned int buffer_kb, uint32_t kdev,
			    struct bp_err *err);
/*
 * The same with instance name (NULL: "bootpack-PID", which bp_tracefs_reap()
 * removes once PID is gone; any other name outlives its creator), only the
 * events of mask (bit i: bp_tracefs_events[i]; index 0 is always on), and
 * extra ANDed to the device filter when the kernel takes it (e.g.
 * 'comm != "x"'; refused: the device filter alone).
 */
errcode_t bp_tracefs_create_named(struct bp_tracefs *tf, const char *name, unsigned int buffer_kb,
				  uint32_t kdev, unsigned int mask, const char *extra,
				  struct bp_err *err);
/* Take over instance name, created earlier (by another process); ENOENT: none. */
errcode_t bp_tracefs_attach(struct bp_tracefs *tf, const char *name, struct bp_err *err);
/*
 * Use the top-level buffer (boot trace), without creating anything. Close
 * disables our events there and restores tracing_on.
 */
errcode_t bp_tracefs_top(struct bp_tracefs *tf, struct bp_err *err);
errcode_t bp_tracefs_start(struct bp_tracefs *tf, struct bp_err *err);
/* Async-signal-safe: tracing_on = 0. */
void bp_tracefs_stop(struct bp_tracefs *tf);
/* Events lost to overruns and drops, summed over CPUs. */
errcode_t bp_tracefs_lost(const struct bp_tracefs *tf, uint64_t *lost, struct bp_err *err);
/* Parse the instance's text trace into c. */
errcode_t bp_tracefs_read(const struct bp_tracefs *tf, struct bp_collect *c, struct bp_err *err);
/* Disable our events; remove the instance if we created it. Idempotent. */
void bp_tracefs_close(struct bp_tracefs *tf);

/* --- recorder.c: the cheap recorder of a read boot ------------------------- */

/*
 * A boot read from the pack records what it reads in a small tracefs
 * instance of its own, BP_RECORDER_NAME-MAJOR-MINOR (one per filesystem,
 * which bp_tracefs_reap() leaves alone): the page-cache insertions only
 * (mm_filemap_add_to_page_cache: what came from the disk, not what was
 * used), on the root's device, without bootpack-read's own reads (its
 * comm, where the kernel filters on it). Started early in the boot by one
 * process, collected at the end by another.
 */
#define BP_RECORDER_NAME "bootpack_misses"
#define BP_RECORDER_BUFFER_KB 4096	/* per CPU: ~80,000 events */
#define BP_RECORDER_SKIP_COMM "bootpack-read"

/* Create and start the instance for device kdev; EEXIST if one runs already. */
errcode_t bp_recorder_start(uint32_t kdev, unsigned int buffer_kb, struct bp_err *err);
/*
 * Stop the instance, parse what it holds into a new collection (*ret; free
 * with bp_collect_free()) and remove it. ENOENT: no recorder runs.
 */
errcode_t bp_recorder_collect(uint32_t kdev, struct bp_collect **ret, struct bp_err *err);
/* Stop recording (the boot is over), keep what was recorded for collect. */
void bp_recorder_stop(uint32_t kdev);
/* Stop and remove the instance, if any (nothing to record on this boot). */
void bp_recorder_discard(uint32_t kdev);

#endif /* BP_TRACE_ENGINE_H */
