// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * delay.c --- a modelled disk that serves one request at a time (QD1)
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "delay.h"

void bp_delay_init(struct bp_delay *d, const struct bp_disk_model *m, double scale,
		   uint64_t t0_ns)
{
	memset(d, 0, sizeof(*d));
	bp_model_init(&d->model, m);
	d->scale = scale;
	d->t0_ns = t0_ns;
	d->busy_until_ns = t0_ns;
}

void bp_delay_free(struct bp_delay *d)
{
	bp_model_free(&d->model);
}

void bp_delay_admit(struct bp_delay *d, const struct bp_io *io, uint64_t now_ns,
		    struct bp_delay_slot *slot)
{
	double s = bp_model_charge(&d->model, io, NULL) * d->scale;

	slot->arrival_ns = now_ns;
	slot->start_ns = now_ns > d->busy_until_ns ? now_ns : d->busy_until_ns;
	slot->end_ns = slot->start_ns + (uint64_t)llround(s * 1e9);
	slot->service_s = s;
	slot->wait_s = (double)(slot->start_ns - now_ns) / 1e9;
	d->busy_until_ns = slot->end_ns;
	d->busy_s += s;
	d->requests++;
}

char bp_delay_type_char(enum bp_io_type type)
{
	switch (type) {
	case BP_IO_READ:
		return 'R';
	case BP_IO_WRITE:
		return 'W';
	case BP_IO_FLUSH:
		return 'F';
	case BP_IO_TRIM:
		return 'T';
	}
	return '?';
}

int bp_delay_format(char *buf, size_t size, const struct bp_delay *d, const struct bp_io *io,
		    const struct bp_delay_slot *slot)
{
	uint64_t start = slot->start_ns >= d->t0_ns ? slot->start_ns - d->t0_ns : 0;

	return snprintf(buf, size, "%llu %llu %llu %c %.3f %.3f\n",
			(unsigned long long)(start / 1000), (unsigned long long)io->offset,
			(unsigned long long)io->length, bp_delay_type_char(io->type),
			slot->service_s * 1e6, slot->wait_s * 1e6);
}
