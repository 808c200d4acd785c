/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stream.h --- the boot's read stream, from a trace, as physical reads
 */
#ifndef BP_STREAM_H
#define BP_STREAM_H

#include <ext2fs/ext2fs.h>

#include "bperr.h"
#include "diskmodel.h"
#include "tracefile.h"

struct bp_stream {
	struct bp_io *ios;	/* in first-access order, adjacent reads merged */
	size_t n;
	uint64_t file_bytes;	/* file data mapped to disk */
	uint64_t meta_bytes;
	uint64_t stale_files;	/* "now" only: changed (fileid.h) or gone */
	uint64_t discontig;	/* discontiguities of ios (contig.h rule) */
};

/*
 * Build the stream of trace t: metadata ranges and file ranges interleaved
 * by first access. With fs == NULL the physical positions recorded in the
 * trace are used (the layout when it was traced: R's phys, M ranges and the
 * O records' at=, bp_trace_meta_traced()); otherwise every file range is
 * mapped again on fs and the metadata is where its owners are now
 * (bp_trace_meta_now()). Holes cost nothing.
 */
errcode_t bp_stream_build(const struct bp_trace *t, ext2_filsys fs, struct bp_stream *s,
			  struct bp_err *err);
void bp_stream_free(struct bp_stream *s);

#endif /* BP_STREAM_H */
