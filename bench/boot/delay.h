/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * delay.h --- a modelled disk that serves one request at a time (QD1)
 *
 * The scheduling core of the nbdkit filter bootpack-delay, kept free of
 * nbdkit and of locking so that the unit tests drive it with their own
 * clock. Requests are admitted in arrival order: each starts when the disk
 * is free (at arrival, or when the previous request completes), is charged
 * by the disk model (disk/diskmodel.c, the same code as `bootpack bench`)
 * times a scale factor, and occupies the disk until its completion time.
 * The caller sleeps until that time and serialises calls to admit.
 */
#ifndef BP_DELAY_H
#define BP_DELAY_H

#include <stddef.h>
#include <stdint.h>

#include "diskmodel.h"

struct bp_delay {
	struct bp_model_state model;
	double scale;		/* multiplies every modelled time */
	uint64_t t0_ns;		/* the clock at open: log times count from here */
	uint64_t busy_until_ns;	/* completion of the last admitted request */
	double busy_s;		/* sum of scaled service times */
	uint64_t requests;
};

struct bp_delay_slot {
	uint64_t arrival_ns, start_ns, end_ns;	/* on the caller's clock */
	double service_s;	/* scaled model time */
	double wait_s;		/* queued behind earlier requests */
};

void bp_delay_init(struct bp_delay *d, const struct bp_disk_model *m, double scale,
		   uint64_t t0_ns);
/* Release what the model's state owns (bp_model_free). */
void bp_delay_free(struct bp_delay *d);
void bp_delay_admit(struct bp_delay *d, const struct bp_io *io, uint64_t now_ns,
		    struct bp_delay_slot *slot);

/* 'R', 'W', 'F', 'T' */
char bp_delay_type_char(enum bp_io_type type);

/*
 * One log line, newline included: "start_us offset length type service_us
 * wait_us" with start counted from t0 (when the disk began serving it).
 * Returns the snprintf result.
 */
int bp_delay_format(char *buf, size_t size, const struct bp_delay *d, const struct bp_io *io,
		    const struct bp_delay_slot *slot);

#endif /* BP_DELAY_H */
