/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * svg.h --- bootchart-style SVG of boot disk activity, one column per run
 *
 * Shared by `bp-strategies --svg` (modelled streams, before and after
 * relayout) and the boot bench's drawer bench/boot/bp-bootchart (the disk
 * filter's log and the guest's monitor samples). Every column has the same
 * time axis; panels from top to bottom: disk throughput (MB/s, reads and
 * writes), seek distance per request (log scale), CPU busy and I/O pressure
 * (when samples exist), and the disk map: where on the disk each request
 * went over time. The reader's run is shaded, done booting is a red line.
 */
#ifndef BP_SVG_H
#define BP_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct bp_svg_req {
	double t, dur;		/* service start and time, seconds */
	uint64_t offset, length;	/* bytes */
	char type;		/* 'R', 'W', 'F', 'T' */
};

struct bp_svg_sample {
	double t;		/* end of the interval, seconds */
	double cpu;		/* busy fraction over the interval, 0..1 */
	double io;		/* I/O pressure (some) fraction, 0..1; < 0: unknown */
};

struct bp_svg_run {
	const char *title;	/* column heading */
	const char *note;	/* a line of figures under it, or NULL */
	const struct bp_svg_req *reqs;
	size_t nreqs;
	const struct bp_svg_sample *samples;
	size_t nsamples;
	double reader_start, reader_end;	/* seconds; < 0: no reader */
	double done;		/* seconds; < 0: not reached */
	const char *done_label;	/* "done booting" */
	double tmax;		/* end of the time axis, seconds; 0: the last event */
};

/* Write the whole document. Returns 0 or -1 (errno from the stream). */
int bp_svg_write(FILE *f, const char *title, const char *subtitle, const struct bp_svg_run *runs,
		 size_t nruns);

#endif /* BP_SVG_H */
