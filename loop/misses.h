/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * misses.h --- what a boot read from the disk that the pack did not hold
 *
 * The boot's reads come as a trace (the read boot's recorder, resolved, or
 * any trace of the boot). Each read is compared, by physical position, with
 * the ranges the pack reads: what the pack holds is a hit, the rest is a
 * miss, counted in bytes, pages (of the system's size, pages.h) and runs
 * (physically contiguous pieces: each needs a request of its own, a seek on
 * a rotating disk), and
 * split by kind (metakind.h). The hit rate is the share of the bytes the
 * boot read from the disk, by the reader or by anyone else, that the pack
 * held. The boot's requests (read_runs) are the pack's ranges (the reader
 * reads each with one request at least) and the misses' runs. Saved in
 * BP_STATEDIR/misses for bootpack status.
 */
#ifndef BP_LOOP_MISSES_H
#define BP_LOOP_MISSES_H

#include <stdint.h>
#include <time.h>

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "metakind.h"
#include "pack-parse.h"
#include "tracefile.h"

#define BP_MISSES_NAMES 8	/* the largest misses named */

struct bp_miss_count {
	uint64_t bytes, runs;
};

struct bp_miss_name {
	enum bp_mkind kind;	/* data or directory (extent tree: the file's) */
	uint64_t bytes;
	char path[512];
};

struct bp_misses {
	time_t when;
	int control;			/* a control boot: the reader did not run */
	uint64_t events, lost;		/* of the recorder (lost > 0: counts are low) */
	uint64_t read_bytes, read_runs;	/* what the boot read from the disk */
	uint64_t pack_runs;		/* the pack's ranges (of read_runs) */
	uint64_t hit_bytes;		/* ... that the pack held (or resident at the end) */
	uint64_t miss_bytes, miss_pages, miss_runs;
	unsigned int hit_pct;		/* hit_bytes / read_bytes */
	struct bp_miss_count kind[BP_MK_NR];
	struct bp_miss_name names[BP_MISSES_NAMES];
	unsigned int nnames;
};

/*
 * Compare the boot's reads t with pack p on fs (t of fs: its metadata where
 * bp_trace_meta_now() finds it on fs, kinds from the owners).
 * The recorder leaves out bootpack-read's own reads: resident, the packed
 * bytes in the page cache at the end of the boot, stands for them (the
 * hits are the larger of it and the packed bytes t holds).
 */
errcode_t bp_misses_compute(ext2_filsys fs, const struct bp_trace *t, const struct bp_pack *p,
			    uint64_t resident, struct bp_misses *m, struct bp_err *err);

/* BP_STATEDIR/misses under root, atomically; load: ENOENT if none. */
errcode_t bp_misses_save(const char *root, const struct bp_misses *m, struct bp_err *err);
errcode_t bp_misses_load(const char *root, struct bp_misses *m, struct bp_err *err);

#endif /* BP_LOOP_MISSES_H */
